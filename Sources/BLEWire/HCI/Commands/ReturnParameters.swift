extension HCI {
    /// Return parameters that are the status alone (Reset, Set Event Mask, most LE setters)
    /// (Core 5.4 Vol 4 Part E §7.7.14).
    public struct StatusReturnParameters: HCIReturnParameters, Hashable {
        public var status: HCIStatus

        public init(status: HCIStatus = .success) { self.status = status }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Command Complete return parameters"
            status = HCIStatus(try reader.u8("Status"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(status.rawValue) }
    }

    /// Return parameters of a status and the Connection_Handle the command named (LE Long Term
    /// Key Request Reply, LE Set Data Length, … — Core 5.4 Vol 4 Part E §7.8.25, §7.8.33).
    public struct ConnectionHandleReturnParameters: HCIReturnParameters, Hashable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle = 0

        public init(status: HCIStatus = .success, connectionHandle: ConnectionHandle) {
            self.status = status
            self.connectionHandle = connectionHandle
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Command Complete return parameters"
            status = HCIStatus(try reader.u8("Status"))
            if HCI.endsAfterFailure(status, reader) { return }
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            writer.u16(connectionHandle.rawValue)
        }
    }
}
