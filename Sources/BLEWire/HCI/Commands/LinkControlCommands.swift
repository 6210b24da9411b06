// Link Control commands (OGF 0x01, Core 5.4 Vol 4 Part E §7.1) that an LE host uses.

extension HCI {
    /// HCI_Disconnect (Core 5.4 Vol 4 Part E §7.1.6): terminates a connection. Command Status,
    /// then HCI_Disconnection_Complete.
    public struct Disconnect: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.linkControl, ocf: 0x0006)
        public static let name = "Disconnect"

        public var connectionHandle: ConnectionHandle
        /// Why: 0x05, 0x13–0x15, 0x1A, 0x29 or 0x3B are the values the specification allows.
        public var reason: HCIStatus

        public init(connectionHandle: ConnectionHandle, reason: HCIStatus = .remoteUserTerminatedConnection) {
            self.connectionHandle = connectionHandle
            self.reason = reason
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Disconnect"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            reason = HCIStatus(try reader.u8("Reason"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            writer.u8(reason.rawValue)
        }
    }

    /// HCI_Read_Remote_Version_Information (Core 5.4 Vol 4 Part E §7.1.23). Command Status, then
    /// HCI_Read_Remote_Version_Information_Complete.
    public struct ReadRemoteVersionInformation: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.linkControl, ocf: 0x001D)
        public static let name = "Read Remote Version Information"

        public var connectionHandle: ConnectionHandle

        public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Read Remote Version Information"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(connectionHandle.rawValue) }
    }
}
