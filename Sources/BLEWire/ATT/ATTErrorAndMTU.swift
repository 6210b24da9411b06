extension ATT {
    /// ATT_ERROR_RSP (Core 5.4 Vol 3 Part F §3.4.1.1): a request could not be performed.
    public struct ErrorResponse: ATTPDUParameters {
        public static let opcode = ATTOpcode.errorResponse

        /// The opcode of the request that failed (any octet: the server echoes what it got).
        public var requestOpcode: ATTOpcode
        /// The handle that caused the error, 0x0000 when no handle is concerned.
        public var handle: UInt16
        public var errorCode: ATTErrorCode

        public init(requestOpcode: ATTOpcode, handle: UInt16, errorCode: ATTErrorCode) {
            self.requestOpcode = requestOpcode
            self.handle = handle
            self.errorCode = errorCode
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Error Response"
            requestOpcode = ATTOpcode(try reader.u8("Request Opcode In Error"))
            handle = try reader.u16("Attribute Handle In Error")
            errorCode = ATTErrorCode(try reader.u8("Error Code"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(requestOpcode.rawValue)
            writer.u16(handle)
            writer.u8(errorCode.rawValue)
        }

        public var pdu: ATTPDU { .errorResponse(self) }
    }

    /// ATT_EXCHANGE_MTU_REQ (Core 5.4 Vol 3 Part F §3.4.2.1): the client's receive MTU.
    ///
    /// A value below the default ATT_MTU is not malformed: the specification has both sides keep
    /// the default MTU instead (§3.4.2.2), which is the bearer's decision.
    public struct ExchangeMTURequest: ATTPDUParameters {
        public static let opcode = ATTOpcode.exchangeMTURequest

        public var clientRxMTU: UInt16

        public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Exchange MTU Request"
            clientRxMTU = try reader.u16("Client Rx MTU")
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(clientRxMTU) }

        public var pdu: ATTPDU { .exchangeMTURequest(self) }
    }

    /// ATT_EXCHANGE_MTU_RSP (Core 5.4 Vol 3 Part F §3.4.2.2): the server's receive MTU.
    public struct ExchangeMTUResponse: ATTPDUParameters {
        public static let opcode = ATTOpcode.exchangeMTUResponse

        public var serverRxMTU: UInt16

        public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Exchange MTU Response"
            serverRxMTU = try reader.u16("Server Rx MTU")
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(serverRxMTU) }

        public var pdu: ATTPDU { .exchangeMTUResponse(self) }
    }
}
