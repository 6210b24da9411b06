/// What a receiver made of a packet (Core 5.4 Vol 6 Part B §3.1, §4.5.1).
public enum Reception: Sendable, Hashable {
    /// Access address and CRC match: the packet is processed.
    case valid
    /// Access address matched but the CRC did not: the packet counts as received (the
    /// peripheral still answers) but its header and payload are ignored.
    case crcError
    /// Not even the access address was found: as if nothing had been sent.
    case missed
}

/// Decides the fate of each packet on the air. The planner asks once per packet sent, in air
/// order, so a seeded source gives the same run every time.
public protocol PacketErrorSource {
    mutating func reception(ofPacketFrom sender: LinkSide, payloadLength: Int) -> Reception
}

/// A clean channel: every packet is received.
public struct NoPacketErrors: PacketErrorSource, Sendable {
    public init() {}
    public func reception(ofPacketFrom sender: LinkSide, payloadLength: Int) -> Reception { .valid }
}

/// Independent errors per packet: a CRC error with probability `crcErrorRate`, a missed packet
/// with probability `missRate`, whatever the length (a packet error rate, not a bit error rate).
public struct RandomPacketErrors<Generator: RandomNumberGenerator>: PacketErrorSource {
    public var generator: Generator
    public let crcErrorRate: Double
    public let missRate: Double

    public init(generator: Generator, crcErrorRate: Double, missRate: Double = 0) {
        self.generator = generator
        self.crcErrorRate = crcErrorRate
        self.missRate = missRate
    }

    public mutating func reception(ofPacketFrom sender: LinkSide, payloadLength: Int) -> Reception {
        // 53 random bits → a uniform double in [0, 1).
        let draw = Double(generator.next() >> 11) * 0x1p-53
        if draw < missRate { return .missed }
        if draw < missRate + crcErrorRate { return .crcError }
        return .valid
    }
}

extension RandomPacketErrors: Sendable where Generator: Sendable {}

extension RandomPacketErrors where Generator == SplitMix64 {
    /// Errors drawn from a SplitMix64 generator seeded with `seed`.
    public init(seed: UInt64, crcErrorRate: Double, missRate: Double = 0) {
        self.init(generator: SplitMix64(seed: seed), crcErrorRate: crcErrorRate, missRate: missRate)
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seedable generator, so simulated channels are
/// reproducible (the system generator is never used).
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
