/// An Attribute Protocol opcode (Core 5.4 Vol 3 Part F §3.3.1, Table 3.1): Method (bits 0–5),
/// Command Flag (bit 6) and Authentication Signature Flag (bit 7).
///
/// Any octet is an opcode: an opcode this version does not know is kept, and its `kind` is
/// derived from the Command Flag so that a server can still apply the rules of §3.3 to it.
/// Everything known about an opcode lives in one table, `ATTOpcode.table` (§3.4.8).
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CustomRendering {
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// The role of a PDU in the protocol (Core 5.4 Vol 3 Part F §3.3, §3.4.9).
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// Client → server; the server answers with the paired response or an Error Response.
        case request
        /// Server → client, answering a request (Error Response answers any request).
        case response
        /// Client → server, no answer (Command Flag set).
        case command
        /// Server → client, no answer.
        case notification
        /// Server → client; the client answers with a Handle Value Confirmation.
        case indication
        /// Client → server, answering an indication.
        case confirmation
    }

    /// What a server does with a PDU whose opcode it does not support (Core 5.4 Vol 3 Part F §3.3):
    /// a request is answered with an Error Response, Request Not Supported (0x06), Attribute
    /// Handle In Error 0x0000; a command (Command Flag set) is ignored.
    public enum UnsupportedAction: Sendable, Hashable {
        case ignore
        case respondRequestNotSupported
    }

    /// One row of the opcode table (Core 5.4 Vol 3 Part F §3.4.8, Table 3.37).
    public struct Info: Sendable {
        public let opcode: ATTOpcode
        /// The specification's PDU name, e.g. "ATT_READ_BY_TYPE_REQ".
        public let symbol: StaticString
        /// A readable name, e.g. "Read By Type Request".
        public let name: StaticString
        public let kind: Kind
        /// The shortest valid PDU in octets, opcode included.
        public let minimumLength: Int
        /// For a request (or indication) its response (or confirmation); for a response (or
        /// confirmation) its request (or indication). Nil for the Error Response and unpaired PDUs.
        public let pair: ATTOpcode?
        /// Where the PDU is defined, e.g. "§3.4.4.1".
        public let section: StaticString

        @usableFromInline
        init(
            _ opcode: ATTOpcode, _ symbol: StaticString, _ name: StaticString, _ kind: Kind,
            minimumLength: Int, pair: ATTOpcode?, _ section: StaticString
        ) {
            self.opcode = opcode
            self.symbol = symbol
            self.name = name
            self.kind = kind
            self.minimumLength = minimumLength
            self.pair = pair
            self.section = section
        }
    }

    // MARK: Known opcodes (Core 5.4 Vol 3 Part F §3.4.8)

    public static let errorResponse = ATTOpcode(0x01)
    public static let exchangeMTURequest = ATTOpcode(0x02)
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    public static let findInformationRequest = ATTOpcode(0x04)
    public static let findInformationResponse = ATTOpcode(0x05)
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    public static let readByTypeRequest = ATTOpcode(0x08)
    public static let readByTypeResponse = ATTOpcode(0x09)
    public static let readRequest = ATTOpcode(0x0A)
    public static let readResponse = ATTOpcode(0x0B)
    public static let readBlobRequest = ATTOpcode(0x0C)
    public static let readBlobResponse = ATTOpcode(0x0D)
    public static let readMultipleRequest = ATTOpcode(0x0E)
    public static let readMultipleResponse = ATTOpcode(0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    public static let writeRequest = ATTOpcode(0x12)
    public static let writeResponse = ATTOpcode(0x13)
    public static let prepareWriteRequest = ATTOpcode(0x16)
    public static let prepareWriteResponse = ATTOpcode(0x17)
    public static let executeWriteRequest = ATTOpcode(0x18)
    public static let executeWriteResponse = ATTOpcode(0x19)
    public static let handleValueNotification = ATTOpcode(0x1B)
    public static let handleValueIndication = ATTOpcode(0x1D)
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    public static let writeCommand = ATTOpcode(0x52)
    public static let signedWriteCommand = ATTOpcode(0xD2)

    /// THE table of the Attribute Protocol (Core 5.4 Vol 3 Part F §3.4.8 Table 3.37, lengths from
    /// the PDU definitions of §3.4.1–§3.4.7). Every property of an opcode comes from here.
    public static let table: [Info] = [
        Info(
            .errorResponse, "ATT_ERROR_RSP", "Error Response", .response,
            minimumLength: 5, pair: nil, "§3.4.1.1"),
        Info(
            .exchangeMTURequest, "ATT_EXCHANGE_MTU_REQ", "Exchange MTU Request", .request,
            minimumLength: 3, pair: .exchangeMTUResponse, "§3.4.2.1"),
        Info(
            .exchangeMTUResponse, "ATT_EXCHANGE_MTU_RSP", "Exchange MTU Response", .response,
            minimumLength: 3, pair: .exchangeMTURequest, "§3.4.2.2"),
        Info(
            .findInformationRequest, "ATT_FIND_INFORMATION_REQ", "Find Information Request", .request,
            minimumLength: 5, pair: .findInformationResponse, "§3.4.3.1"),
        Info(
            .findInformationResponse, "ATT_FIND_INFORMATION_RSP", "Find Information Response", .response,
            minimumLength: 6, pair: .findInformationRequest, "§3.4.3.2"),
        Info(
            .findByTypeValueRequest, "ATT_FIND_BY_TYPE_VALUE_REQ", "Find By Type Value Request", .request,
            minimumLength: 7, pair: .findByTypeValueResponse, "§3.4.3.3"),
        Info(
            .findByTypeValueResponse, "ATT_FIND_BY_TYPE_VALUE_RSP", "Find By Type Value Response",
            .response, minimumLength: 5, pair: .findByTypeValueRequest, "§3.4.3.4"),
        Info(
            .readByTypeRequest, "ATT_READ_BY_TYPE_REQ", "Read By Type Request", .request,
            minimumLength: 7, pair: .readByTypeResponse, "§3.4.4.1"),
        Info(
            .readByTypeResponse, "ATT_READ_BY_TYPE_RSP", "Read By Type Response", .response,
            minimumLength: 4, pair: .readByTypeRequest, "§3.4.4.2"),
        Info(
            .readRequest, "ATT_READ_REQ", "Read Request", .request,
            minimumLength: 3, pair: .readResponse, "§3.4.4.3"),
        Info(
            .readResponse, "ATT_READ_RSP", "Read Response", .response,
            minimumLength: 1, pair: .readRequest, "§3.4.4.4"),
        Info(
            .readBlobRequest, "ATT_READ_BLOB_REQ", "Read Blob Request", .request,
            minimumLength: 5, pair: .readBlobResponse, "§3.4.4.5"),
        Info(
            .readBlobResponse, "ATT_READ_BLOB_RSP", "Read Blob Response", .response,
            minimumLength: 1, pair: .readBlobRequest, "§3.4.4.6"),
        Info(
            .readMultipleRequest, "ATT_READ_MULTIPLE_REQ", "Read Multiple Request", .request,
            minimumLength: 5, pair: .readMultipleResponse, "§3.4.4.7"),
        Info(
            .readMultipleResponse, "ATT_READ_MULTIPLE_RSP", "Read Multiple Response", .response,
            minimumLength: 1, pair: .readMultipleRequest, "§3.4.4.8"),
        Info(
            .readByGroupTypeRequest, "ATT_READ_BY_GROUP_TYPE_REQ", "Read By Group Type Request", .request,
            minimumLength: 7, pair: .readByGroupTypeResponse, "§3.4.4.9"),
        Info(
            .readByGroupTypeResponse, "ATT_READ_BY_GROUP_TYPE_RSP", "Read By Group Type Response",
            .response, minimumLength: 6, pair: .readByGroupTypeRequest, "§3.4.4.10"),
        Info(
            .readMultipleVariableRequest, "ATT_READ_MULTIPLE_VARIABLE_REQ",
            "Read Multiple Variable Length Request", .request,
            minimumLength: 5, pair: .readMultipleVariableResponse, "§3.4.4.11"),
        Info(
            .readMultipleVariableResponse, "ATT_READ_MULTIPLE_VARIABLE_RSP",
            "Read Multiple Variable Length Response", .response,
            minimumLength: 5, pair: .readMultipleVariableRequest, "§3.4.4.12"),
        Info(
            .writeRequest, "ATT_WRITE_REQ", "Write Request", .request,
            minimumLength: 3, pair: .writeResponse, "§3.4.5.1"),
        Info(
            .writeResponse, "ATT_WRITE_RSP", "Write Response", .response,
            minimumLength: 1, pair: .writeRequest, "§3.4.5.2"),
        Info(
            .writeCommand, "ATT_WRITE_CMD", "Write Command", .command,
            minimumLength: 3, pair: nil, "§3.4.5.3"),
        Info(
            .signedWriteCommand, "ATT_SIGNED_WRITE_CMD", "Signed Write Command", .command,
            minimumLength: 15, pair: nil, "§3.4.5.4"),
        Info(
            .prepareWriteRequest, "ATT_PREPARE_WRITE_REQ", "Prepare Write Request", .request,
            minimumLength: 5, pair: .prepareWriteResponse, "§3.4.6.1"),
        Info(
            .prepareWriteResponse, "ATT_PREPARE_WRITE_RSP", "Prepare Write Response", .response,
            minimumLength: 5, pair: .prepareWriteRequest, "§3.4.6.2"),
        Info(
            .executeWriteRequest, "ATT_EXECUTE_WRITE_REQ", "Execute Write Request", .request,
            minimumLength: 2, pair: .executeWriteResponse, "§3.4.6.3"),
        Info(
            .executeWriteResponse, "ATT_EXECUTE_WRITE_RSP", "Execute Write Response", .response,
            minimumLength: 1, pair: .executeWriteRequest, "§3.4.6.4"),
        Info(
            .handleValueNotification, "ATT_HANDLE_VALUE_NTF", "Handle Value Notification", .notification,
            minimumLength: 3, pair: nil, "§3.4.7.1"),
        Info(
            .handleValueIndication, "ATT_HANDLE_VALUE_IND", "Handle Value Indication", .indication,
            minimumLength: 3, pair: .handleValueConfirmation, "§3.4.7.2"),
        Info(
            .handleValueConfirmation, "ATT_HANDLE_VALUE_CFM", "Handle Value Confirmation", .confirmation,
            minimumLength: 1, pair: .handleValueIndication, "§3.4.7.3"),
        Info(
            .multipleHandleValueNotification, "ATT_MULTIPLE_HANDLE_VALUE_NTF",
            "Multiple Handle Value Notification", .notification,
            minimumLength: 9, pair: nil, "§3.4.7.4"),
    ]

    /// Opcode → row of `table` (−1: unknown), so a look-up is one load, not a search.
    @usableFromInline static let rowIndex: [Int8] = {
        var rows = [Int8](repeating: -1, count: 256)
        for (row, info) in table.enumerated() { rows[Int(info.opcode.rawValue)] = Int8(row) }
        return rows
    }()

    // MARK: Properties

    /// The table row of this opcode, nil when this version does not know it.
    @inlinable
    public var info: Info? {
        let row = Self.rowIndex[Int(rawValue)]
        return row < 0 ? nil : Self.table[Int(row)]
    }

    @inlinable public var isKnown: Bool { Self.rowIndex[Int(rawValue)] >= 0 }

    /// Bits 0–5 (§3.3.1).
    @inlinable public var method: UInt8 { rawValue & 0x3F }
    /// Command Flag, bit 6 (§3.3.1): the PDU is never answered.
    @inlinable public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Authentication Signature Flag, bit 7 (§3.3.1): a 12-octet signature ends the PDU.
    @inlinable public var isSigned: Bool { rawValue & 0x80 != 0 }

    /// The kind from the table; for an unknown opcode, `command` when the Command Flag is set and
    /// `request` otherwise — the only two a server can tell apart, and the two §3.3 gives rules for.
    @inlinable
    public var kind: Kind {
        if let info { return info.kind }
        return isCommand ? .command : .request
    }

    /// What a server that does not support this opcode does with it (Core 5.4 Vol 3 Part F §3.3):
    /// requests are answered with Request Not Supported, everything else is ignored.
    @inlinable
    public var unsupportedAction: UnsupportedAction {
        kind == .request ? .respondRequestNotSupported : .ignore
    }

    /// The response (or confirmation) that answers this request (or indication).
    @inlinable
    public var pairedResponse: ATTOpcode? {
        guard let info, info.kind == .request || info.kind == .indication else { return nil }
        return info.pair
    }

    /// The request (or indication) this response (or confirmation) answers; nil for the Error
    /// Response, which answers any request.
    @inlinable
    public var pairedRequest: ATTOpcode? {
        guard let info, info.kind == .response || info.kind == .confirmation else { return nil }
        return info.pair
    }

    /// The shortest valid PDU with this opcode, opcode included; nil when unknown.
    @inlinable public var minimumLength: Int? { info?.minimumLength }

    /// "ATT_READ_BY_TYPE_REQ", or nil when unknown.
    public var symbol: String? { info.map { $0.symbol.description } }

    /// "Read By Type Request", or nil when unknown.
    public var name: String? { info.map { $0.name.description } }

    /// "ATT_READ_BY_TYPE_REQ (0x08)"; an unknown opcode shows its derived kind.
    public var description: String {
        let hex = Hex.prefixed(rawValue, width: 2)
        if let info { return "\(info.symbol) (\(hex))" }
        return "Unknown \(kind == .command ? "Command" : "Request") (\(hex))"
    }

    public var rendered: RenderedValue { .symbol(description) }
}
