// PHY parameters of the LE commands (Core 5.4 Vol 4 Part E §7.8.47–§7.8.49, §7.8.53, §7.8.64,
// §7.8.66).

extension HCI {
    /// A set of LE PHYs as a bit mask: TX_PHYs/RX_PHYs (§7.8.48), Scanning_PHYs (§7.8.64),
    /// Initiating_PHYs (§7.8.66). Unknown bits are kept in `rawValue`.
    public struct LEPHYs: OptionSet, Hashable, Sendable, CustomRendering {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let le1M = LEPHYs(rawValue: 1 << 0)
        public static let le2M = LEPHYs(rawValue: 1 << 1)
        public static let leCoded = LEPHYs(rawValue: 1 << 2)

        static let bitNames: [(Int, String)] = [(0, "le1M"), (1, "le2M"), (2, "leCoded")]
        public var rendered: RenderedValue {
            HCI.renderBits(UInt64(rawValue), width: 8, names: Self.bitNames)
        }
    }

    /// All_PHYs (Core 5.4 Vol 4 Part E §7.8.48): the directions in which the host has no
    /// preference (the matching TX_PHYs/RX_PHYs octet is then ignored).
    public struct AllPHYsPreference: OptionSet, Hashable, Sendable, CustomRendering {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let noTransmitPreference = AllPHYsPreference(rawValue: 1 << 0)
        public static let noReceivePreference = AllPHYsPreference(rawValue: 1 << 1)

        static let bitNames: [(Int, String)] = [(0, "noTransmitPreference"), (1, "noReceivePreference")]
        public var rendered: RenderedValue {
            HCI.renderBits(UInt64(rawValue), width: 8, names: Self.bitNames)
        }
    }

    /// PHY_Options (Core 5.4 Vol 4 Part E §7.8.49): preferred coding on the LE Coded PHY.
    public enum CodedPHYOptions: Hashable, Sendable {
        case noPreference
        /// S=2 coding preferred.
        case preferS2
        /// S=8 coding preferred.
        case preferS8
        case other(UInt16)

        public init(rawValue: UInt16) {
            switch rawValue {
            case 0x0000: self = .noPreference
            case 0x0001: self = .preferS2
            case 0x0002: self = .preferS8
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt16 {
            switch self {
            case .noPreference: 0x0000
            case .preferS2: 0x0001
            case .preferS8: 0x0002
            case .other(let value): value
            }
        }
    }

    /// Primary_Advertising_PHY_Options / Secondary_Advertising_PHY_Options (Core 5.4 Vol 4 Part E
    /// §7.8.53, version 2 of the command): coding of advertising on the LE Coded PHY.
    public enum AdvertisingPHYOptions: Hashable, Sendable {
        case noPreference
        case preferS2
        case preferS8
        case requireS2
        case requireS8
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .noPreference
            case 0x01: self = .preferS2
            case 0x02: self = .preferS8
            case 0x03: self = .requireS2
            case 0x04: self = .requireS8
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .noPreference: 0x00
            case .preferS2: 0x01
            case .preferS8: 0x02
            case .requireS2: 0x03
            case .requireS8: 0x04
            case .other(let value): value
            }
        }
    }
}
