import BLE

/// How a `Reconnector` retries: the first attempt at once, then after capped exponential
/// backoff with jitter — before retry k (k ≥ 1) it waits
/// `min(maximumDelay, initialDelay × multiplier^(k−1)) × (1 + jitter × (2u − 1))`, u uniform in
/// [0, 1) from the reconnector's random generator — so that many phones losing one device do
/// not all come back in step.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The wait before the first retry (the second attempt).
    public var initialDelay: Duration
    /// Each retry waits this many times longer than the one before, up to `maximumDelay`.
    public var multiplier: Double
    public var maximumDelay: Duration
    /// The fraction (0…1) by which a wait is spread either way.
    public var jitter: Double
    /// Attempts before giving up; nil: until cancelled.
    public var maximumAttempts: Int?
    /// How long one attempt scans for the device.
    public var scanTimeout: Duration
    /// How one attempt connects; by default it gives up after 10 s (a pending connect would
    /// otherwise wait for ever, and the policy's backoff would never run).
    public var connectOptions: ConnectOptions

    public init(
        initialDelay: Duration = .seconds(1), multiplier: Double = 2, maximumDelay: Duration = .seconds(60),
        jitter: Double = 0.2, maximumAttempts: Int? = nil, scanTimeout: Duration = .seconds(10),
        connectOptions: ConnectOptions = ConnectOptions(timeout: .seconds(10))
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumAttempts = maximumAttempts
        self.scanTimeout = scanTimeout
        self.connectOptions = connectOptions
    }

    /// The wait before retry `retry` (1 for the second attempt), before jitter.
    public func baseDelay(beforeRetry retry: Int) -> Duration {
        let initial = Self.nanoseconds(initialDelay)
        let cap = Self.nanoseconds(maximumDelay)
        let exponent = Double(max(0, retry - 1))
        let grown = initial * power(max(1, multiplier), exponent)
        return .nanoseconds(Int64(min(cap, grown.isFinite ? grown : cap).rounded()))
    }

    /// The wait before retry `retry` with jitter drawn from `unit` (in [0, 1); 0.5 is none).
    public func delay(beforeRetry retry: Int, unit: Double) -> Duration {
        let spread = min(1, max(0, jitter)) * (2 * min(1, max(0, unit)) - 1)
        let waited = Self.nanoseconds(baseDelay(beforeRetry: retry)) * (1 + spread)
        return .nanoseconds(Int64(max(0, waited).rounded()))
    }

    /// A uniform draw in [0, 1) from the top 53 bits of one generator output.
    public static func unit(from random: inout some RandomNumberGenerator) -> Double {
        unit(fromBits: random.next())
    }

    /// The unit a generator output stands for: its top 53 bits as a fraction of 2⁵³.
    public static func unit(fromBits bits: UInt64) -> Double {
        Double(bits >> 11) * 0x1p-53
    }

    private static func nanoseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e9 + Double(attoseconds / 1_000_000_000)
    }
}

/// Powers without Foundation's `pow` on every platform.
private func power(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(exponent)
    // Exponents past 1100 overflow any base above 1.9; stop early.
    while remaining > 0 && result.isFinite {
        result *= base
        remaining -= 1
    }
    return result
}
