import BLEWire

/// One side of a connection, for the parts of the air-time model that differ by side.
public enum LinkSide: Sendable, Hashable, CustomStringConvertible {
    case central
    case peripheral

    public var description: String {
        switch self {
        case .central: "central"
        case .peripheral: "peripheral"
        }
    }
}

/// The timing of one connection as the air-time model needs it: interval, event length, the PHY
/// and effective data length of each direction, encryption, and how the central decides to end
/// an event.
///
/// Connection events: Core 5.4 Vol 6 Part B §4.5.1; effective data length (connEffectiveMaxTxOctets /
/// connEffectiveMaxTxTime of each side): §4.5.10; CE_Length: Core 5.4 Vol 4 Part E §7.8.12.
public struct LinkTiming: Sendable, Hashable {
    /// PHY and effective maximum payload and time of one direction of the link (Core 5.4 Vol 6
    /// Part B §4.5.10): the sender's connEffectiveMaxTxOctets/Time, the receiver's
    /// connEffectiveMaxRxOctets/Time.
    public struct Direction: Sendable, Hashable {
        public var phy: PHY
        public var maxOctets: Int
        public var maxTime: Duration

        /// `maxTime` defaults to the time `maxOctets` need with a MIC on `phy`, so only the
        /// octets limit the payload.
        public init(phy: PHY, maxOctets: Int, maxTime: Duration? = nil) {
            self.phy = phy
            self.maxOctets = maxOctets
            self.maxTime = maxTime ?? AirTime.timeNeeded(octets: maxOctets, phy: phy)
        }

        /// Lmax: the largest LL payload this direction carries.
        public func largestPayload(encrypted: Bool) -> Int {
            AirTime.largestPayload(maxTxOctets: maxOctets, maxTxTime: maxTime, phy: phy, encrypted: encrypted)
        }
    }

    /// How the central decides, before each pair of packets, whether the pair still fits in the
    /// event (the spec leaves it to the implementation; Core 5.4 Vol 6 Part B §4.5.6).
    public enum EndRule: Sendable, Hashable, CustomStringConvertible {
        /// Ideal: the pair fits if both actual packets and their T_IFS end by the event length.
        case ruleA
        /// As real controllers do: the central's packet, 2 · T_IFS and a full-length reply must
        /// fit, whatever the reply will be.
        case ruleB

        public var description: String {
            switch self {
            case .ruleA: "rule A"
            case .ruleB: "rule B"
            }
        }
    }

    /// Time between anchor points.
    public var interval: Duration
    /// The longest a connection event may last from its anchor (CE_Length), at most the interval.
    public var eventLength: Duration
    /// What the central sends: the central's tx, the peripheral's rx.
    public var centralToPeripheral: Direction
    /// What the peripheral sends: the peripheral's tx, the central's rx.
    public var peripheralToCentral: Direction
    /// Whether the link is encrypted (non-empty packets carry a 4-octet MIC).
    public var encrypted: Bool
    public var endRule: EndRule
    /// A vendor's cap on pairs per event (phones); nil = unlimited.
    public var maxPacketsPerEvent: Int?

    public init(
        interval: Duration, eventLength: Duration? = nil, centralToPeripheral: Direction,
        peripheralToCentral: Direction, encrypted: Bool = false, endRule: EndRule = .ruleB,
        maxPacketsPerEvent: Int? = nil
    ) {
        self.interval = interval
        self.eventLength = eventLength ?? interval
        self.centralToPeripheral = centralToPeripheral
        self.peripheralToCentral = peripheralToCentral
        self.encrypted = encrypted
        self.endRule = endRule
        self.maxPacketsPerEvent = maxPacketsPerEvent
    }

    /// A symmetric link: the same PHY and data length both ways.
    public init(
        interval: Duration, eventLength: Duration? = nil, phy: PHY = .le1M,
        maxOctets: Int = AirTime.minimumMaximumPayload, maxTime: Duration? = nil, encrypted: Bool = false,
        endRule: EndRule = .ruleB, maxPacketsPerEvent: Int? = nil
    ) {
        let direction = Direction(phy: phy, maxOctets: maxOctets, maxTime: maxTime)
        self.init(
            interval: interval, eventLength: eventLength, centralToPeripheral: direction,
            peripheralToCentral: direction, encrypted: encrypted, endRule: endRule,
            maxPacketsPerEvent: maxPacketsPerEvent)
    }

    /// The direction `side` transmits in.
    public func transmitting(_ side: LinkSide) -> Direction {
        switch side {
        case .central: centralToPeripheral
        case .peripheral: peripheralToCentral
        }
    }

    /// Lmax of what `side` sends.
    public func largestPayload(sentBy side: LinkSide) -> Int {
        transmitting(side).largestPayload(encrypted: encrypted)
    }

    /// The event length actually usable: CE_Length, never beyond the interval.
    public var effectiveEventLength: Duration { min(eventLength, interval) }
}
