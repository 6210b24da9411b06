extension ATT {
    /// ATT_WRITE_REQ (Core 5.4 Vol 3 Part F §3.4.5.1): write a value, answered by a Write Response.
    public struct WriteRequest: ATTHandleValueParameters {
        public static let opcode = ATTOpcode.writeRequest

        public var handle: UInt16
        public var value: ArraySlice<UInt8>

        public init(handle: UInt16, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.value = value
        }

        public static let context: StaticString = "ATT Write Request"

        public var pdu: ATTPDU { .writeRequest(self) }
    }

    /// ATT_WRITE_RSP (Core 5.4 Vol 3 Part F §3.4.5.2): the write succeeded. No parameters.
    public struct WriteResponse: ATTPDUParameters, WireEmpty {
        public static let opcode = ATTOpcode.writeResponse

        public init() {}

        public var pdu: ATTPDU { .writeResponse(self) }
    }

    /// ATT_WRITE_CMD (Core 5.4 Vol 3 Part F §3.4.5.3): write a value, no answer.
    public struct WriteCommand: ATTHandleValueParameters {
        public static let opcode = ATTOpcode.writeCommand

        public var handle: UInt16
        public var value: ArraySlice<UInt8>

        public init(handle: UInt16, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.value = value
        }

        public static let context: StaticString = "ATT Write Command"

        public var pdu: ATTPDU { .writeCommand(self) }
    }

    /// The 12-octet Authentication Signature that ends a signed PDU (Core 5.4 Vol 3 Part F
    /// §3.3.1, §3.4.5.4; computed as Vol 3 Part C §10.4.1 and Part H §2.4.5 describe): the
    /// SignCounter (4 octets) followed by the 8-octet MAC, both little-endian on the wire.
    public struct AuthenticationSignature: Hashable, Sendable, CustomRendering {
        public var signCounter: UInt32
        /// The MAC's 8 octets as a little-endian integer (first wire octet least significant).
        public var mac: UInt64

        public init(signCounter: UInt32, mac: UInt64) {
            self.signCounter = signCounter
            self.mac = mac
        }

        public static let length = 12

        /// The MAC as its 8 wire octets, in order.
        public var macBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: mac >> (8 * UInt64($0))) } }

        public var rendered: RenderedValue {
            .object(
                name: nil,
                fields: [("signCounter", .unsigned(UInt64(signCounter))), ("mac", .bytes(macBytes))])
        }
    }

    /// ATT_SIGNED_WRITE_CMD (Core 5.4 Vol 3 Part F §3.4.5.4): a Write Command authenticated by a
    /// signature over the opcode, handle and value (the PDU's first `count − 12` octets). Verifying
    /// it (CSRK, SignCounter replay) is the server's job.
    public struct SignedWriteCommand: ATTPDUParameters {
        public static let opcode = ATTOpcode.signedWriteCommand

        public var handle: UInt16
        /// 0 to ATT_MTU − 15 octets.
        public var value: ArraySlice<UInt8>
        public var signature: AuthenticationSignature

        public init(handle: UInt16, value: ArraySlice<UInt8>, signature: AuthenticationSignature) {
            self.handle = handle
            self.value = value
            self.signature = signature
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Signed Write Command"
            handle = try reader.u16("Attribute Handle")
            let valueLength = reader.remaining &- AuthenticationSignature.length
            if valueLength < 0 {
                throw reader.error(
                    "Authentication Signature",
                    .truncated(needed: AuthenticationSignature.length, available: reader.remaining))
            }
            value = try reader.take(valueLength, "Attribute Value")
            let counter = try reader.u32("Authentication Signature")
            signature = AuthenticationSignature(
                signCounter: counter, mac: try reader.u64("Authentication Signature"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(handle)
            writer.append(value)
            writer.u32(signature.signCounter)
            writer.u64(signature.mac)
        }

        public var pdu: ATTPDU { .signedWriteCommand(self) }
    }

    /// ATT_PREPARE_WRITE_REQ (Core 5.4 Vol 3 Part F §3.4.6.1): queue part of a value at an offset.
    public typealias PrepareWriteRequest = PrepareWrite<PrepareWriteRequestKind>
    /// ATT_PREPARE_WRITE_RSP (Core 5.4 Vol 3 Part F §3.4.6.2): echoes the queued request, so the
    /// client can check the server received it intact.
    public typealias PrepareWriteResponse = PrepareWrite<PrepareWriteResponseKind>

    /// The parameters of both Prepare Write PDUs, which are the same (§3.4.6.1, §3.4.6.2);
    /// `Kind` says which PDU it is.
    public struct PrepareWrite<Kind: ATTPrepareWriteKind>: ATTPDUParameters, Sendable {
        public static var opcode: ATTOpcode { Kind.opcode }

        public var handle: UInt16
        public var valueOffset: UInt16
        /// A slice of the PDU when decoded.
        public var partValue: ArraySlice<UInt8>

        public init(handle: UInt16, valueOffset: UInt16, partValue: ArraySlice<UInt8>) {
            self.handle = handle
            self.valueOffset = valueOffset
            self.partValue = partValue
        }

        @inlinable
        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = Kind.context
            handle = try reader.u16("Attribute Handle")
            valueOffset = try reader.u16("Value Offset")
            partValue = reader.rest()
        }

        @inlinable
        public func encode(into writer: inout ByteWriter) {
            writer.u16(handle)
            writer.u16(valueOffset)
            writer.append(partValue)
        }

        public var pdu: ATTPDU { Kind.pdu(self) }
    }

    public enum PrepareWriteRequestKind: ATTPrepareWriteKind {
        public static let opcode = ATTOpcode.prepareWriteRequest
        public static let context: StaticString = "ATT Prepare Write Request"
        public static func pdu(_ request: PrepareWrite<Self>) -> ATTPDU { .prepareWriteRequest(request) }
    }

    public enum PrepareWriteResponseKind: ATTPrepareWriteKind {
        public static let opcode = ATTOpcode.prepareWriteResponse
        public static let context: StaticString = "ATT Prepare Write Response"
        public static func pdu(_ response: PrepareWrite<Self>) -> ATTPDU { .prepareWriteResponse(response) }
    }

    /// ATT_EXECUTE_WRITE_REQ (Core 5.4 Vol 3 Part F §3.4.6.3): write or discard the queue.
    public struct ExecuteWriteRequest: ATTPDUParameters {
        public static let opcode = ATTOpcode.executeWriteRequest

        /// The Flags field (Table 3.36); every other value is reserved and fails to decode.
        public enum Flags: UInt8, Sendable, Hashable {
            /// 0x00: cancel all prepared writes.
            case cancel = 0x00
            /// 0x01: immediately write all pending prepared values.
            case write = 0x01
        }

        public var flags: Flags

        public init(flags: Flags) { self.flags = flags }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Execute Write Request"
            let offset = reader.offset
            let raw = try reader.u8("Flags")
            guard let flags = Flags(rawValue: raw) else {
                throw reader.error("Flags", .invalidValue(UInt64(raw)), at: offset)
            }
            self.flags = flags
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(flags.rawValue) }

        public var pdu: ATTPDU { .executeWriteRequest(self) }
    }

    /// ATT_EXECUTE_WRITE_RSP (Core 5.4 Vol 3 Part F §3.4.6.4): the queue was written or
    /// discarded. No parameters.
    public struct ExecuteWriteResponse: ATTPDUParameters, WireEmpty {
        public static let opcode = ATTOpcode.executeWriteResponse

        public init() {}

        public var pdu: ATTPDU { .executeWriteResponse(self) }
    }
}

/// The PDUs whose parameters are an attribute handle followed by a value to the end of the PDU:
/// Write Request and Command (Core 5.4 Vol 3 Part F §3.4.5.1, §3.4.5.3), Handle Value
/// Notification and Indication (§3.4.7.1, §3.4.7.2). One decoder and encoder for all four.
public protocol ATTHandleValueParameters: ATTPDUParameters {
    var handle: UInt16 { get }
    /// A slice of the PDU when decoded.
    var value: ArraySlice<UInt8> { get }
    init(handle: UInt16, value: ArraySlice<UInt8>)
    /// Decoding context, e.g. "ATT Write Request".
    static var context: StaticString { get }
}

extension ATTHandleValueParameters {
    @inlinable
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = Self.context
        let handle = try reader.u16("Attribute Handle")
        self.init(handle: handle, value: reader.rest())
    }

    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.u16(handle)
        writer.append(value)
    }
}

/// Which Prepare Write PDU an `ATT.PrepareWrite` is.
public protocol ATTPrepareWriteKind: Sendable {
    static var opcode: ATTOpcode { get }
    /// Decoding context, e.g. "ATT Prepare Write Request".
    static var context: StaticString { get }
    static func pdu(_ parameters: ATT.PrepareWrite<Self>) -> ATTPDU
}

extension ATT.PrepareWrite where Kind == ATT.PrepareWriteResponseKind {
    /// The response echoing `request`.
    public init(echoing request: ATT.PrepareWriteRequest) {
        self.init(handle: request.handle, valueOffset: request.valueOffset, partValue: request.partValue)
    }
}
