/// An LE PHY (Core 5.4 Vol 6 Part A §3.2), the one PHY type of the stack from the wire formats up.
///
/// LE Coded is spelled out with its coding, because every LE Coded packet is sent with S = 2 or
/// S = 8 and the two differ in air time (Core 5.4 Vol 6 Part B §2.2). HCI names a PHY without
/// the coding (the coding travels in PHY_Options instead): `hci` and `HCIValue` are that encoding.
/// The air time of each PHY is the radio's business and lives with the air-time model.
public enum PHY: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// LE 1M: 1 Msym/s, uncoded.
    case le1M
    /// LE 2M: 2 Msym/s, uncoded.
    case le2M
    /// LE Coded with S = 2.
    case codedS2
    /// LE Coded with S = 8 (what primary advertising on LE Coded uses).
    case codedS8

    /// Whether this is LE Coded, of either coding.
    public var isCoded: Bool { self == .codedS2 || self == .codedS8 }

    /// The value HCI commands and events carry for this PHY (LE Coded without its coding).
    public var hci: HCIValue { HCIValue(self) }

    public var description: String {
        switch self {
        case .le1M: "LE 1M"
        case .le2M: "LE 2M"
        case .codedS2: "LE Coded S=2"
        case .codedS8: "LE Coded S=8"
        }
    }

    /// A PHY as an HCI parameter carries it: TX_PHY/RX_PHY (Core 5.4 Vol 4 Part E §7.8.47,
    /// §7.7.65.12), the advertising PHYs (§7.8.53) and the PHYs of an extended advertising report
    /// (§7.7.65.13): 0x01 LE 1M, 0x02 LE 2M, 0x03 LE Coded. It is the raw octet, not a second set
    /// of PHYs: a reserved value is kept as received, and `phy(coded:)` reads it as a `PHY`.
    public struct HCIValue: RawRepresentable, Sendable, Hashable, CustomRendering {
        public let rawValue: UInt8

        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The value of `phy`: either coding of LE Coded is 0x03.
        public init(_ phy: PHY) {
            switch phy {
            case .le1M: rawValue = 0x01
            case .le2M: rawValue = 0x02
            case .codedS2, .codedS8: rawValue = 0x03
            }
        }

        /// The PHY this value names, LE Coded as `coding` (which HCI does not carry); nil for a
        /// reserved value.
        public func phy(coded coding: PHY = .codedS8) -> PHY? {
            switch rawValue {
            case 0x01: .le1M
            case 0x02: .le2M
            case 0x03: coding.isCoded ? coding : .codedS8
            default: nil
            }
        }

        /// Whether the value names LE Coded.
        public var isCoded: Bool { rawValue == 0x03 }

        public var rendered: RenderedValue {
            switch rawValue {
            case 0x01: .symbol("LE 1M")
            case 0x02: .symbol("LE 2M")
            case 0x03: .symbol("LE Coded")
            default: .symbol("reserved(\(Hex.prefixed(rawValue, width: 2)))")
            }
        }
    }
}
