/// One command on the LE signalling channel, CID 0x0005 (Core 5.4 Vol 3 Part A §4): the C-frame
/// information payload `Code (1) | Identifier (1) | Length (2) | Data (Length)`.
///
/// On LE-U a C-frame carries exactly one command (Vol 3 Part A §4), so decoding requires the
/// Length field to equal the octets that follow (`.lengthMismatch` otherwise) and the command's
/// data to fill it exactly (`.truncated` / `.trailingBytes` naming the field). Identifier 0x00 is
/// illegal (§4); a request or indication carrying it is `.invalidValue(0)` for "Identifier".
/// A response with identifier 0 still decodes: it matches no outstanding request, and the spec
/// has the host silently discard such a response.
///
/// Decoders accept every value a field can hold; the semantic ranges a receiver checks (MTU,
/// MPS, credits, CID and SPSM ranges, connection parameter limits) are reported by each
/// request's `validate()`, and for connection requests by `refusal`, the result code to answer
/// with. Checking them after decoding, not in the decoder, keeps the identifier and fields
/// available so the host can send that answer.
public struct L2CAPSignal: WireCodable, Hashable, WireRenderable {
    /// The LE signalling channel (Core 5.4 Vol 3 Part A §2.1).
    public static let leSignallingChannelID: UInt16 = 0x0005
    /// The minimum signalling MTU on LE-U (Core 5.4 Vol 3 Part A §4).
    public static let minimumLEMTU = 23

    /// Matches a response to its request; 0x00 is never valid in a request.
    public var identifier: UInt8
    public var command: L2CAPSignalCommand

    /// The command's code.
    @inlinable public var code: L2CAPSignalCode { command.code }

    @inlinable
    public init(identifier: UInt8, command: L2CAPSignalCommand) {
        self.identifier = identifier
        self.command = command
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "L2CAP signalling C-frame"
        let code = try reader.u8("Code")
        let identifierOffset = reader.offset
        identifier = try reader.u8("Identifier")
        let lengthOffset = reader.offset
        let length = Int(try reader.u16("Length"))
        if length != reader.remaining {
            throw reader.error(
                "Length", .lengthMismatch(declared: length, actual: reader.remaining), at: lengthOffset)
        }
        if identifier == 0 && L2CAPSignalCommand.needsIdentifier(code) {
            throw reader.error("Identifier", .invalidValue(0), at: identifierOffset)
        }
        command = try L2CAPSignalCommand(code: code, from: &reader)
        try reader.finish()
    }

    public func encode(into writer: inout ByteWriter) {
        writer.u8(code.rawValue)
        writer.u8(identifier)
        let lengthPosition = writer.count
        writer.u16(0)
        command.encodeData(into: &writer)
        // Data of the commands defined here is at most 18 octets; `.unknown` data is the
        // caller's and is truncated to 16 bits like any other length field.
        writer.patchU16(UInt16(truncatingIfNeeded: writer.count - lengthPosition - 2), at: lengthPosition)
    }
}

/// The data of one L2CAP signalling command (Core 5.4 Vol 3 Part A §4.1–§4.28), as used on the
/// LE signalling channel. `L2CAPSignal` adds the code, identifier and length header.
public enum L2CAPSignalCommand: Hashable, Sendable, WireRenderable {
    case commandReject(L2CAPSignal.CommandReject)
    case disconnectionRequest(L2CAPSignal.DisconnectionRequest)
    case disconnectionResponse(L2CAPSignal.DisconnectionResponse)
    case connectionParameterUpdateRequest(L2CAPSignal.ConnectionParameterUpdateRequest)
    case connectionParameterUpdateResponse(L2CAPSignal.ConnectionParameterUpdateResponse)
    case leCreditBasedConnectionRequest(L2CAPSignal.LECreditBasedConnectionRequest)
    case leCreditBasedConnectionResponse(L2CAPSignal.LECreditBasedConnectionResponse)
    case flowControlCreditIndication(L2CAPSignal.FlowControlCreditIndication)
    case creditBasedConnectionRequest(L2CAPSignal.CreditBasedConnectionRequest)
    case creditBasedConnectionResponse(L2CAPSignal.CreditBasedConnectionResponse)
    case creditBasedReconfigureRequest(L2CAPSignal.CreditBasedReconfigureRequest)
    case creditBasedReconfigureResponse(L2CAPSignal.CreditBasedReconfigureResponse)
    /// A reserved code, or a BR/EDR-only command (Connection, Configuration, Echo, Information)
    /// that the LE signalling channel does not carry; the host answers it with Command Reject
    /// (Command not understood). The data is kept as received.
    case unknown(code: UInt8, data: ArraySlice<UInt8>)

    /// Decodes the data of a command with `code`, reading exactly the octets it defines.
    public init(code: UInt8, from reader: inout ByteReader) throws(DecodeError) {
        typealias S = L2CAPSignal
        switch code {
        case 0x01: self = .commandReject(try S.CommandReject(from: &reader))
        case 0x06: self = .disconnectionRequest(try S.DisconnectionRequest(from: &reader))
        case 0x07: self = .disconnectionResponse(try S.DisconnectionResponse(from: &reader))
        case 0x12:
            self = .connectionParameterUpdateRequest(try S.ConnectionParameterUpdateRequest(from: &reader))
        case 0x13:
            self = .connectionParameterUpdateResponse(try S.ConnectionParameterUpdateResponse(from: &reader))
        case 0x14:
            self = .leCreditBasedConnectionRequest(try S.LECreditBasedConnectionRequest(from: &reader))
        case 0x15:
            self = .leCreditBasedConnectionResponse(try S.LECreditBasedConnectionResponse(from: &reader))
        case 0x16: self = .flowControlCreditIndication(try S.FlowControlCreditIndication(from: &reader))
        case 0x17: self = .creditBasedConnectionRequest(try S.CreditBasedConnectionRequest(from: &reader))
        case 0x18: self = .creditBasedConnectionResponse(try S.CreditBasedConnectionResponse(from: &reader))
        case 0x19: self = .creditBasedReconfigureRequest(try S.CreditBasedReconfigureRequest(from: &reader))
        case 0x1A:
            self = .creditBasedReconfigureResponse(try S.CreditBasedReconfigureResponse(from: &reader))
        default: self = .unknown(code: code, data: reader.rest())
        }
    }

    /// Requests and indications decoded here must carry a non-zero identifier (§4).
    @inlinable
    static func needsIdentifier(_ code: UInt8) -> Bool {
        switch code {
        case 0x06, 0x12, 0x14, 0x16, 0x17, 0x19: true
        default: false
        }
    }

    /// Appends the command's data (without the 4-octet header).
    public func encodeData(into writer: inout ByteWriter) {
        switch self {
        case .commandReject(let command): command.encode(into: &writer)
        case .disconnectionRequest(let command): command.encode(into: &writer)
        case .disconnectionResponse(let command): command.encode(into: &writer)
        case .connectionParameterUpdateRequest(let command): command.encode(into: &writer)
        case .connectionParameterUpdateResponse(let command): command.encode(into: &writer)
        case .leCreditBasedConnectionRequest(let command): command.encode(into: &writer)
        case .leCreditBasedConnectionResponse(let command): command.encode(into: &writer)
        case .flowControlCreditIndication(let command): command.encode(into: &writer)
        case .creditBasedConnectionRequest(let command): command.encode(into: &writer)
        case .creditBasedConnectionResponse(let command): command.encode(into: &writer)
        case .creditBasedReconfigureRequest(let command): command.encode(into: &writer)
        case .creditBasedReconfigureResponse(let command): command.encode(into: &writer)
        case .unknown(_, let data): writer.append(data)
        }
    }

    /// The command's code.
    public var code: L2CAPSignalCode {
        switch self {
        case .commandReject: .commandReject
        case .disconnectionRequest: .disconnectionRequest
        case .disconnectionResponse: .disconnectionResponse
        case .connectionParameterUpdateRequest: .connectionParameterUpdateRequest
        case .connectionParameterUpdateResponse: .connectionParameterUpdateResponse
        case .leCreditBasedConnectionRequest: .leCreditBasedConnectionRequest
        case .leCreditBasedConnectionResponse: .leCreditBasedConnectionResponse
        case .flowControlCreditIndication: .flowControlCreditIndication
        case .creditBasedConnectionRequest: .creditBasedConnectionRequest
        case .creditBasedConnectionResponse: .creditBasedConnectionResponse
        case .creditBasedReconfigureRequest: .creditBasedReconfigureRequest
        case .creditBasedReconfigureResponse: .creditBasedReconfigureResponse
        case .unknown(let code, _): L2CAPSignalCode(code)
        }
    }
}

/// The data of one signalling command, without the header (Core 5.4 Vol 3 Part A §4).
public protocol L2CAPSignalParameters: WireCodable, WireRenderable, Hashable {
    static var code: L2CAPSignalCode { get }
    /// This command wrapped as an `L2CAPSignalCommand`.
    var command: L2CAPSignalCommand { get }
}

extension L2CAPSignalParameters {
    /// The complete C-frame payload for this command with `identifier`.
    public func signal(identifier: UInt8) -> L2CAPSignal {
        L2CAPSignal(identifier: identifier, command: command)
    }
}

extension L2CAPSignal {
    /// First and last CID of the LE-U dynamically allocated range (Core 5.4 Vol 3 Part A §2.1).
    public static let leDynamicCIDs: ClosedRange<UInt16> = 0x0040...0x007F

    /// Up to five channel identifiers, held inline: the Source / Destination CID lists of the
    /// credit based commands (Core 5.4 Vol 3 Part A §4.25–§4.27). Decoding one allocates nothing.
    public struct CIDList: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral,
        CustomRendering
    {
        /// The most CIDs one command carries (§4.25: "up to 5").
        public static let capacity = 5

        // Unused slots stay zero so synthesized equality and hashing see only the list.
        private var c0: UInt16 = 0
        private var c1: UInt16 = 0
        private var c2: UInt16 = 0
        private var c3: UInt16 = 0
        private var c4: UInt16 = 0
        private var storedCount: UInt8 = 0

        public init() {}

        /// A list of `cids`, or nil when there are more than `capacity`.
        public init?(_ cids: some Sequence<UInt16>) {
            for cid in cids {
                guard append(cid) else { return nil }
            }
        }

        /// Traps on more than five CIDs: a literal is the programmer's, not a peer's, input.
        public init(arrayLiteral elements: UInt16...) {
            guard let list = CIDList(elements) else {
                preconditionFailure("a CID list holds at most \(Self.capacity) CIDs")
            }
            self = list
        }

        /// Appends `cid`; false (and no change) when the list is full.
        @discardableResult
        public mutating func append(_ cid: UInt16) -> Bool {
            switch storedCount {
            case 0: c0 = cid
            case 1: c1 = cid
            case 2: c2 = cid
            case 3: c3 = cid
            case 4: c4 = cid
            default: return false
            }
            storedCount &+= 1
            return true
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { Int(storedCount) }

        public subscript(position: Int) -> UInt16 {
            precondition(position >= 0 && position < endIndex, "CID list index out of range")
            switch position {
            case 0: return c0
            case 1: return c1
            case 2: return c2
            case 3: return c3
            default: return c4
            }
        }

        /// Reads CIDs to the end of the command: at least `minimum`, at most `capacity`. Fewer
        /// than `minimum` or an odd octet is `.truncated`; octets past the fifth CID are left
        /// for the caller's `.trailingBytes` check.
        init(from reader: inout ByteReader, minimum: Int, field: StaticString) throws(DecodeError) {
            self.init()
            while storedCount < minimum || (reader.remaining > 0 && storedCount < Self.capacity) {
                append(try reader.u16(field))
            }
        }

        func encode(into writer: inout ByteWriter) {
            for cid in self { writer.u16(cid) }
        }

        public var rendered: RenderedValue {
            .array(map { .symbol(Hex.prefixed($0, width: 4)) })
        }
    }
}
