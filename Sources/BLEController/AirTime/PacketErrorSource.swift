import BLESimulation
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

extension RandomPacketErrors where Generator == SeededRandomGenerator {
    /// Errors drawn from the radio's seeded generator (SplitMix64) seeded with `seed`, so
    /// simulated channels are reproducible (the system generator is never used).
    public init(seed: UInt64, crcErrorRate: Double, missRate: Double = 0) {
        self.init(generator: SeededRandomGenerator(seed: seed), crcErrorRate: crcErrorRate, missRate: missRate)
    }
}
