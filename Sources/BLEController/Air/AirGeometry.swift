#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a radio is in the simulated room, in metres.
///
/// The Core specification places no devices; the air needs positions only to turn distance into
/// received signal strength and range (see `PropagationModel`).
public struct AirPosition: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double = 0, y: Double = 0, z: Double = 0) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let origin = AirPosition()

    /// Euclidean distance in metres.
    public func distance(to other: AirPosition) -> Double {
        let dx = x - other.x
        let dy = y - other.y
        let dz = z - other.z
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }

    public var description: String { "(\(x), \(y), \(z)) m" }
}

/// Log-distance path loss: how strong a packet arrives, and whether it arrives at all.
///
/// `received = txPower − (referenceLoss + 10 · exponent · log10(d / 1 m))`. A packet is out of
/// range when the distance exceeds `maximumRange` or the received power falls below
/// `sensitivity` (a receiver's reference sensitivity is at most −70 dBm on LE 1M; real chips reach
/// −95 to −100 dBm: Core 5.4 Vol 6 Part A §4.1). RSSI is reported in dBm, clamped to the
/// −127…+20 range of HCI reports (Core 5.4 Vol 4 Part E §7.7.65.2).
public struct PropagationModel: Hashable, Sendable {
    /// Loss at 1 m in dB (free space at 2.4 GHz is about 40 dB).
    public var referenceLoss: Double
    /// Path-loss exponent n: 2 in free space, 2.5–4 indoors.
    public var pathLossExponent: Double
    /// Beyond this distance in metres nothing is received; nil for no limit.
    public var maximumRange: Double?
    /// Weakest received power, in dBm, that is still demodulated.
    public var sensitivity: Double
    /// Distances below this (metres) count as this, so co-located radios stay finite.
    public var minimumDistance: Double

    public init(
        referenceLoss: Double = 40, pathLossExponent: Double = 2, maximumRange: Double? = 100,
        sensitivity: Double = -95, minimumDistance: Double = 0.1
    ) {
        self.referenceLoss = referenceLoss
        self.pathLossExponent = pathLossExponent
        self.maximumRange = maximumRange
        self.sensitivity = sensitivity
        self.minimumDistance = minimumDistance
    }

    /// Loss over `distance` metres, in dB.
    public func pathLoss(distance: Double) -> Double {
        let d = max(distance, minimumDistance)
        return referenceLoss + 10 * pathLossExponent * log10(d)
    }

    /// Power arriving from a transmitter of `txPower` dBm `distance` metres away, in dBm.
    public func receivedPower(txPower: Double, distance: Double) -> Double {
        txPower - pathLoss(distance: distance)
    }

    /// The RSSI a receiver reports, or nil when the packet is out of range.
    public func rssi(txPower: Int8, distance: Double) -> Int8? {
        if let maximumRange, distance > maximumRange { return nil }
        let power = receivedPower(txPower: Double(txPower), distance: distance)
        guard power.isFinite, power >= sensitivity else { return nil }
        let rounded = power.rounded()
        return Int8(min(20, max(-127, rounded)))
    }
}
