/// An L2CAP signalling command code (Core 5.4 Vol 3 Part A §4), with the one table of
/// what this version knows about each code: name, kind, paired request/response, data length
/// bounds and the logical links that carry it.
public struct L2CAPSignalCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    CustomRendering
{
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let commandReject = L2CAPSignalCode(0x01)
    public static let connectionRequest = L2CAPSignalCode(0x02)
    public static let connectionResponse = L2CAPSignalCode(0x03)
    public static let configurationRequest = L2CAPSignalCode(0x04)
    public static let configurationResponse = L2CAPSignalCode(0x05)
    public static let disconnectionRequest = L2CAPSignalCode(0x06)
    public static let disconnectionResponse = L2CAPSignalCode(0x07)
    public static let echoRequest = L2CAPSignalCode(0x08)
    public static let echoResponse = L2CAPSignalCode(0x09)
    public static let informationRequest = L2CAPSignalCode(0x0A)
    public static let informationResponse = L2CAPSignalCode(0x0B)
    public static let connectionParameterUpdateRequest = L2CAPSignalCode(0x12)
    public static let connectionParameterUpdateResponse = L2CAPSignalCode(0x13)
    public static let leCreditBasedConnectionRequest = L2CAPSignalCode(0x14)
    public static let leCreditBasedConnectionResponse = L2CAPSignalCode(0x15)
    public static let flowControlCreditIndication = L2CAPSignalCode(0x16)
    public static let creditBasedConnectionRequest = L2CAPSignalCode(0x17)
    public static let creditBasedConnectionResponse = L2CAPSignalCode(0x18)
    public static let creditBasedReconfigureRequest = L2CAPSignalCode(0x19)
    public static let creditBasedReconfigureResponse = L2CAPSignalCode(0x1A)

    /// Whether a command asks for an answer, answers one, or stands alone.
    public enum Kind: Hashable, Sendable {
        case request
        case response
        /// Flow Control Credit Indication: no response is sent.
        case indication
    }

    /// The logical links whose signalling channel carries a command: ACL-U (CID 0x0001) and
    /// LE-U (CID 0x0005) (Vol 3 Part A §4).
    public struct Links: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let aclU = Links(rawValue: 0x01)
        public static let leU = Links(rawValue: 0x02)
    }

    /// One row of the command code table.
    public struct Entry: Hashable, Sendable {
        public let code: L2CAPSignalCode
        /// The specification's name, e.g. "L2CAP_DISCONNECTION_REQ".
        public let name: String
        public let kind: Kind
        /// The response of a request, or the request a response answers. Command Reject may
        /// answer any request, so it has none.
        public let pairedCode: L2CAPSignalCode?
        /// Fewest data octets (after the 4-octet command header).
        public let minimumLength: Int
        /// Most data octets, or nil when the command has no fixed upper bound.
        public let maximumLength: Int?
        public let links: Links
        /// The section defining the command, e.g. "4.6".
        public let section: String

        /// Whether `BLEWire` decodes this code on the LE signalling channel; the others (BR/EDR
        /// only) arrive as `.unknown` and are answered with Command Reject.
        @inlinable public var isDecodedOnLE: Bool { links.contains(.leU) }
    }

    /// Every code Core 5.4 defines, in code order (0x0C...0x11, once used by AMP, are reserved).
    public static let allDefined: [L2CAPSignalCode] =
        (0x01...0x0B).map { L2CAPSignalCode(UInt8($0)) } + (0x12...0x1A).map { L2CAPSignalCode(UInt8($0)) }

    /// The table row for this code, or nil for a reserved code.
    public var entry: Entry? {
        // A switch, not a dictionary: allocation-free lookups on decode paths.
        switch rawValue {
        case 0x01: row("L2CAP_COMMAND_REJECT_RSP", .response, nil, 2, nil, [.aclU, .leU], "4.1")
        case 0x02: row("L2CAP_CONNECTION_REQ", .request, 0x03, 4, nil, .aclU, "4.2")
        case 0x03: row("L2CAP_CONNECTION_RSP", .response, 0x02, 8, 8, .aclU, "4.3")
        case 0x04: row("L2CAP_CONFIGURATION_REQ", .request, 0x05, 4, nil, .aclU, "4.4")
        case 0x05: row("L2CAP_CONFIGURATION_RSP", .response, 0x04, 6, nil, .aclU, "4.5")
        case 0x06: row("L2CAP_DISCONNECTION_REQ", .request, 0x07, 4, 4, [.aclU, .leU], "4.6")
        case 0x07: row("L2CAP_DISCONNECTION_RSP", .response, 0x06, 4, 4, [.aclU, .leU], "4.7")
        case 0x08: row("L2CAP_ECHO_REQ", .request, 0x09, 0, nil, .aclU, "4.8")
        case 0x09: row("L2CAP_ECHO_RSP", .response, 0x08, 0, nil, .aclU, "4.9")
        case 0x0A: row("L2CAP_INFORMATION_REQ", .request, 0x0B, 2, 2, .aclU, "4.10")
        case 0x0B: row("L2CAP_INFORMATION_RSP", .response, 0x0A, 4, nil, .aclU, "4.11")
        case 0x12: row("L2CAP_CONNECTION_PARAMETER_UPDATE_REQ", .request, 0x13, 8, 8, .leU, "4.20")
        case 0x13: row("L2CAP_CONNECTION_PARAMETER_UPDATE_RSP", .response, 0x12, 2, 2, .leU, "4.21")
        case 0x14: row("L2CAP_LE_CREDIT_BASED_CONNECTION_REQ", .request, 0x15, 10, 10, .leU, "4.22")
        case 0x15: row("L2CAP_LE_CREDIT_BASED_CONNECTION_RSP", .response, 0x14, 10, 10, .leU, "4.23")
        case 0x16: row("L2CAP_FLOW_CONTROL_CREDIT_IND", .indication, nil, 4, 4, [.aclU, .leU], "4.24")
        // 0x17...0x19 carry one to five CIDs; a response may carry none (see
        // `L2CAPSignal.CreditBasedConnectionResponse`).
        case 0x17: row("L2CAP_CREDIT_BASED_CONNECTION_REQ", .request, 0x18, 10, 18, [.aclU, .leU], "4.25")
        case 0x18: row("L2CAP_CREDIT_BASED_CONNECTION_RSP", .response, 0x17, 8, 18, [.aclU, .leU], "4.26")
        case 0x19: row("L2CAP_CREDIT_BASED_RECONFIGURE_REQ", .request, 0x1A, 6, 14, [.aclU, .leU], "4.27")
        case 0x1A: row("L2CAP_CREDIT_BASED_RECONFIGURE_RSP", .response, 0x19, 2, 2, [.aclU, .leU], "4.28")
        default: nil
        }
    }

    private func row(
        _ name: String, _ kind: Kind, _ paired: UInt8?, _ minimum: Int, _ maximum: Int?, _ links: Links,
        _ section: String
    ) -> Entry {
        Entry(
            code: self, name: name, kind: kind, pairedCode: paired.map(L2CAPSignalCode.init(rawValue:)),
            minimumLength: minimum, maximumLength: maximum, links: links, section: section)
    }

    /// The specification's name, or nil for a reserved code.
    public var name: String? { entry?.name }

    public var description: String {
        "\(name ?? "Reserved") (\(Hex.prefixed(rawValue, width: 2)))"
    }

    public var rendered: RenderedValue { .symbol(description) }
}
