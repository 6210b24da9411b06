/// Namespace of Attribute Protocol PDU parameter types (Core 5.4 Vol 3 Part F §3.4).
///
/// Attribute handles are plain `UInt16`. Decoders accept any handle, 0x0000 included: where the
/// specification calls a handle invalid (§3.2.2, §3.4.3.1, §3.4.4.1 …) it wants the server to
/// answer with an Error Response naming that handle (Invalid Handle, 0x01), which it can only do
/// if the PDU decoded. The server checks handles and ranges; these types only check form.
public enum ATT {}

/// The parameters of one ATT PDU: everything after the opcode octet (Core 5.4 Vol 3 Part F
/// §3.3.1, Figure 3.1).
///
/// `init(from:)` reads the parameters only and, where the last field runs to the end of the PDU
/// (an attribute value), consumes the rest of the reader: an ATT PDU is always a whole L2CAP SDU.
public protocol ATTPDUParameters: WireCodable, WireRenderable, Hashable {
    static var opcode: ATTOpcode { get }
    /// This value as a whole PDU.
    var pdu: ATTPDU { get }
}

/// One Attribute Protocol PDU: opcode and parameters (Core 5.4 Vol 3 Part F §3.3.1, §3.4).
///
/// Decoding reads the opcode, then the parameters of that PDU, and rejects trailing octets;
/// every variable-length field is a slice of the input. An opcode this version does not know is
/// kept raw in `.unknown` (never an error), so a server can still apply §3.3 to it.
public enum ATTPDU: WireCodable, Hashable, WireRenderable {
    case errorResponse(ATT.ErrorResponse)
    case exchangeMTURequest(ATT.ExchangeMTURequest)
    case exchangeMTUResponse(ATT.ExchangeMTUResponse)
    case findInformationRequest(ATT.FindInformationRequest)
    case findInformationResponse(ATT.FindInformationResponse)
    case findByTypeValueRequest(ATT.FindByTypeValueRequest)
    case findByTypeValueResponse(ATT.FindByTypeValueResponse)
    case readByTypeRequest(ATT.ReadByTypeRequest)
    case readByTypeResponse(ATT.ReadByTypeResponse)
    case readRequest(ATT.ReadRequest)
    case readResponse(ATT.ReadResponse)
    case readBlobRequest(ATT.ReadBlobRequest)
    case readBlobResponse(ATT.ReadBlobResponse)
    case readMultipleRequest(ATT.ReadMultipleRequest)
    case readMultipleResponse(ATT.ReadMultipleResponse)
    case readByGroupTypeRequest(ATT.ReadByGroupTypeRequest)
    case readByGroupTypeResponse(ATT.ReadByGroupTypeResponse)
    case readMultipleVariableRequest(ATT.ReadMultipleVariableRequest)
    case readMultipleVariableResponse(ATT.ReadMultipleVariableResponse)
    case writeRequest(ATT.WriteRequest)
    case writeResponse(ATT.WriteResponse)
    case writeCommand(ATT.WriteCommand)
    case signedWriteCommand(ATT.SignedWriteCommand)
    case prepareWriteRequest(ATT.PrepareWriteRequest)
    case prepareWriteResponse(ATT.PrepareWriteResponse)
    case executeWriteRequest(ATT.ExecuteWriteRequest)
    case executeWriteResponse(ATT.ExecuteWriteResponse)
    case handleValueNotification(ATT.HandleValueNotification)
    case handleValueIndication(ATT.HandleValueIndication)
    case handleValueConfirmation(ATT.HandleValueConfirmation)
    case multipleHandleValueNotification(ATT.MultipleHandleValueNotification)
    /// An opcode not in `ATTOpcode.table`, with its parameters as received. Encoding writes the
    /// opcode and parameters as given (a known opcode placed here decodes as its typed case).
    case unknown(opcode: ATTOpcode, parameters: ArraySlice<UInt8>)

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "ATT PDU"
        let raw = try reader.u8("Attribute Opcode")
        // A switch over literals compiles to a jump table.
        switch raw {
        case 0x01: self = .errorResponse(try .init(from: &reader))
        case 0x02: self = .exchangeMTURequest(try .init(from: &reader))
        case 0x03: self = .exchangeMTUResponse(try .init(from: &reader))
        case 0x04: self = .findInformationRequest(try .init(from: &reader))
        case 0x05: self = .findInformationResponse(try .init(from: &reader))
        case 0x06: self = .findByTypeValueRequest(try .init(from: &reader))
        case 0x07: self = .findByTypeValueResponse(try .init(from: &reader))
        case 0x08: self = .readByTypeRequest(try .init(from: &reader))
        case 0x09: self = .readByTypeResponse(try .init(from: &reader))
        case 0x0A: self = .readRequest(try .init(from: &reader))
        case 0x0B: self = .readResponse(try .init(from: &reader))
        case 0x0C: self = .readBlobRequest(try .init(from: &reader))
        case 0x0D: self = .readBlobResponse(try .init(from: &reader))
        case 0x0E: self = .readMultipleRequest(try .init(from: &reader))
        case 0x0F: self = .readMultipleResponse(try .init(from: &reader))
        case 0x10: self = .readByGroupTypeRequest(try .init(from: &reader))
        case 0x11: self = .readByGroupTypeResponse(try .init(from: &reader))
        case 0x12: self = .writeRequest(try .init(from: &reader))
        case 0x13: self = .writeResponse(try .init(from: &reader))
        case 0x16: self = .prepareWriteRequest(try .init(from: &reader))
        case 0x17: self = .prepareWriteResponse(try .init(from: &reader))
        case 0x18: self = .executeWriteRequest(try .init(from: &reader))
        case 0x19: self = .executeWriteResponse(try .init(from: &reader))
        case 0x1B: self = .handleValueNotification(try .init(from: &reader))
        case 0x1D: self = .handleValueIndication(try .init(from: &reader))
        case 0x1E: self = .handleValueConfirmation(try .init(from: &reader))
        case 0x20: self = .readMultipleVariableRequest(try .init(from: &reader))
        case 0x21: self = .readMultipleVariableResponse(try .init(from: &reader))
        case 0x23: self = .multipleHandleValueNotification(try .init(from: &reader))
        case 0x52: self = .writeCommand(try .init(from: &reader))
        case 0xD2: self = .signedWriteCommand(try .init(from: &reader))
        default: self = .unknown(opcode: ATTOpcode(raw), parameters: reader.rest())
        }
        // ATT PDUs carry no room for later extensions: octets past the parameters are an error.
        try reader.finish()
    }

    public func encode(into writer: inout ByteWriter) {
        writer.u8(opcode.rawValue)
        switch self {
        case .errorResponse(let p): p.encode(into: &writer)
        case .exchangeMTURequest(let p): p.encode(into: &writer)
        case .exchangeMTUResponse(let p): p.encode(into: &writer)
        case .findInformationRequest(let p): p.encode(into: &writer)
        case .findInformationResponse(let p): p.encode(into: &writer)
        case .findByTypeValueRequest(let p): p.encode(into: &writer)
        case .findByTypeValueResponse(let p): p.encode(into: &writer)
        case .readByTypeRequest(let p): p.encode(into: &writer)
        case .readByTypeResponse(let p): p.encode(into: &writer)
        case .readRequest(let p): p.encode(into: &writer)
        case .readResponse(let p): p.encode(into: &writer)
        case .readBlobRequest(let p): p.encode(into: &writer)
        case .readBlobResponse(let p): p.encode(into: &writer)
        case .readMultipleRequest(let p): p.encode(into: &writer)
        case .readMultipleResponse(let p): p.encode(into: &writer)
        case .readByGroupTypeRequest(let p): p.encode(into: &writer)
        case .readByGroupTypeResponse(let p): p.encode(into: &writer)
        case .readMultipleVariableRequest(let p): p.encode(into: &writer)
        case .readMultipleVariableResponse(let p): p.encode(into: &writer)
        case .writeRequest(let p): p.encode(into: &writer)
        case .writeResponse(let p): p.encode(into: &writer)
        case .writeCommand(let p): p.encode(into: &writer)
        case .signedWriteCommand(let p): p.encode(into: &writer)
        case .prepareWriteRequest(let p): p.encode(into: &writer)
        case .prepareWriteResponse(let p): p.encode(into: &writer)
        case .executeWriteRequest(let p): p.encode(into: &writer)
        case .executeWriteResponse(let p): p.encode(into: &writer)
        case .handleValueNotification(let p): p.encode(into: &writer)
        case .handleValueIndication(let p): p.encode(into: &writer)
        case .handleValueConfirmation(let p): p.encode(into: &writer)
        case .multipleHandleValueNotification(let p): p.encode(into: &writer)
        case .unknown(_, let parameters): writer.append(parameters)
        }
    }

    /// The opcode this PDU is sent with.
    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: .errorResponse
        case .exchangeMTURequest: .exchangeMTURequest
        case .exchangeMTUResponse: .exchangeMTUResponse
        case .findInformationRequest: .findInformationRequest
        case .findInformationResponse: .findInformationResponse
        case .findByTypeValueRequest: .findByTypeValueRequest
        case .findByTypeValueResponse: .findByTypeValueResponse
        case .readByTypeRequest: .readByTypeRequest
        case .readByTypeResponse: .readByTypeResponse
        case .readRequest: .readRequest
        case .readResponse: .readResponse
        case .readBlobRequest: .readBlobRequest
        case .readBlobResponse: .readBlobResponse
        case .readMultipleRequest: .readMultipleRequest
        case .readMultipleResponse: .readMultipleResponse
        case .readByGroupTypeRequest: .readByGroupTypeRequest
        case .readByGroupTypeResponse: .readByGroupTypeResponse
        case .readMultipleVariableRequest: .readMultipleVariableRequest
        case .readMultipleVariableResponse: .readMultipleVariableResponse
        case .writeRequest: .writeRequest
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand
        case .signedWriteCommand: .signedWriteCommand
        case .prepareWriteRequest: .prepareWriteRequest
        case .prepareWriteResponse: .prepareWriteResponse
        case .executeWriteRequest: .executeWriteRequest
        case .executeWriteResponse: .executeWriteResponse
        case .handleValueNotification: .handleValueNotification
        case .handleValueIndication: .handleValueIndication
        case .handleValueConfirmation: .handleValueConfirmation
        case .multipleHandleValueNotification: .multipleHandleValueNotification
        case .unknown(let opcode, _): opcode
        }
    }

    /// The PDU's role, from the opcode table (derived from the Command Flag when unknown).
    public var kind: ATTOpcode.Kind { opcode.kind }

    /// Opcode and kind of a raw PDU without decoding its parameters, for a bearer that must route
    /// a PDU (request, response, command …) before, or instead of, decoding it. Nil when empty.
    @inlinable
    public static func peek(_ bytes: ArraySlice<UInt8>) -> (opcode: ATTOpcode, kind: ATTOpcode.Kind)? {
        guard let first = bytes.first else { return nil }
        let opcode = ATTOpcode(first)
        return (opcode, opcode.kind)
    }

    @inlinable
    public static func peek(_ bytes: [UInt8]) -> (opcode: ATTOpcode, kind: ATTOpcode.Kind)? {
        peek(bytes[...])
    }
}
