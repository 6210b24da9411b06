/// Namespace of Security Manager Protocol command types (Core 5.4 Vol 3 Part H §3).
///
/// SMP runs on the LE fixed channel 0x0006 (Vol 3 Part A §2.1). Every command is one octet of
/// code followed by a fixed number of parameter octets (Vol 3 Part H §3.3), so each type here
/// decodes without heap allocation.
public enum SMP {
    /// The LE Security Manager fixed channel (Core 5.4 Vol 3 Part A §2.1).
    public static let channelID: UInt16 = 0x0006
}

/// Which pairing phase a command belongs to (Core 5.4 Vol 3 Part H §2.1).
public enum SMPPhase: Hashable, Sendable {
    /// Security Request: the responder asks the initiator to start (or re-encrypt) (§2.4.6).
    case securityInitiation
    /// Phase 1: Pairing Feature Exchange (§2.3).
    case pairingFeatureExchange
    /// Phase 2: Short Term Key (legacy) or Long Term Key (Secure Connections) generation (§2.3.5).
    case keyGeneration
    /// Phase 3: Transport Specific Key Distribution (§2.4.3).
    case keyDistribution
    /// Pairing Failed may end any phase (§3.5.5).
    case anyPhase
}

/// Who may send a command (Core 5.4 Vol 3 Part H §3.3). On LE the initiator is the central.
public enum SMPDirection: Hashable, Sendable {
    case initiatorToResponder
    case responderToInitiator
    case either
}

/// An SMP command code (Core 5.4 Vol 3 Part H §3.3), with the one table of what this
/// version knows about each: name, fixed PDU length, phase and direction.
public struct SMPCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CustomRendering {
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let pairingRequest = SMPCode(0x01)
    public static let pairingResponse = SMPCode(0x02)
    public static let pairingConfirm = SMPCode(0x03)
    public static let pairingRandom = SMPCode(0x04)
    public static let pairingFailed = SMPCode(0x05)
    public static let encryptionInformation = SMPCode(0x06)
    public static let centralIdentification = SMPCode(0x07)
    public static let identityInformation = SMPCode(0x08)
    public static let identityAddressInformation = SMPCode(0x09)
    public static let signingInformation = SMPCode(0x0A)
    public static let securityRequest = SMPCode(0x0B)
    public static let pairingPublicKey = SMPCode(0x0C)
    public static let pairingDHKeyCheck = SMPCode(0x0D)
    public static let keypressNotification = SMPCode(0x0E)

    /// One row of the command table.
    public struct Entry: Hashable, Sendable {
        public let code: SMPCode
        /// The specification's name, e.g. "Pairing Request".
        public let name: String
        /// The whole PDU length in octets, code included: SMP commands are fixed length.
        public let pduLength: Int
        public let phase: SMPPhase
        public let direction: SMPDirection
        /// The section defining the command, e.g. "3.5.1".
        public let section: String

        /// Parameter octets after the code.
        @inlinable public var parameterLength: Int { pduLength - 1 }
    }

    /// Every code Core 5.4 defines (0x01...0x0E), in code order.
    public static let allDefined: [SMPCode] = (0x01...0x0E).map { SMPCode(UInt8($0)) }

    /// The table row for this code, or nil for a reserved code (0x00, 0x0F...0xFF).
    public var entry: Entry? {
        // A switch, not a dictionary: the lookup stays allocation-free on decode paths.
        switch rawValue {
        case 0x01:
            Entry(
                code: self, name: "Pairing Request", pduLength: 7, phase: .pairingFeatureExchange,
                direction: .initiatorToResponder, section: "3.5.1")
        case 0x02:
            Entry(
                code: self, name: "Pairing Response", pduLength: 7, phase: .pairingFeatureExchange,
                direction: .responderToInitiator, section: "3.5.2")
        case 0x03:
            Entry(
                code: self, name: "Pairing Confirm", pduLength: 17, phase: .keyGeneration,
                direction: .either, section: "3.5.3")
        case 0x04:
            Entry(
                code: self, name: "Pairing Random", pduLength: 17, phase: .keyGeneration,
                direction: .either, section: "3.5.4")
        case 0x05:
            Entry(
                code: self, name: "Pairing Failed", pduLength: 2, phase: .anyPhase,
                direction: .either, section: "3.5.5")
        case 0x06:
            Entry(
                code: self, name: "Encryption Information", pduLength: 17, phase: .keyDistribution,
                direction: .either, section: "3.6.2")
        case 0x07:
            Entry(
                code: self, name: "Central Identification", pduLength: 11, phase: .keyDistribution,
                direction: .either, section: "3.6.3")
        case 0x08:
            Entry(
                code: self, name: "Identity Information", pduLength: 17, phase: .keyDistribution,
                direction: .either, section: "3.6.4")
        case 0x09:
            Entry(
                code: self, name: "Identity Address Information", pduLength: 8,
                phase: .keyDistribution, direction: .either, section: "3.6.5")
        case 0x0A:
            Entry(
                code: self, name: "Signing Information", pduLength: 17, phase: .keyDistribution,
                direction: .either, section: "3.6.6")
        case 0x0B:
            Entry(
                code: self, name: "Security Request", pduLength: 2, phase: .securityInitiation,
                direction: .responderToInitiator, section: "3.6.7")
        case 0x0C:
            Entry(
                code: self, name: "Pairing Public Key", pduLength: 65, phase: .keyGeneration,
                direction: .either, section: "3.5.6")
        case 0x0D:
            Entry(
                code: self, name: "Pairing DHKey Check", pduLength: 17, phase: .keyGeneration,
                direction: .either, section: "3.5.7")
        case 0x0E:
            Entry(
                code: self, name: "Keypress Notification", pduLength: 2, phase: .keyGeneration,
                direction: .either, section: "3.5.8")
        default:
            nil
        }
    }

    /// The specification's name, or nil for a reserved code.
    public var name: String? { entry?.name }

    public var description: String {
        "\(name ?? "Reserved") (\(Hex.prefixed(rawValue, width: 2)))"
    }

    public var rendered: RenderedValue { .symbol(description) }
}
