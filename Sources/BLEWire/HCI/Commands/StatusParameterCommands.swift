// Status Parameters commands (OGF 0x05, Core 5.4 Vol 4 Part E §7.5).

extension HCI {
    /// HCI_Read_RSSI (Core 5.4 Vol 4 Part E §7.5.4): on LE, the received signal strength of the
    /// connection in dBm.
    public struct ReadRSSI: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.statusParameters, ocf: 0x0005)
        public static let name = "Read RSSI"

        /// The spec calls it Handle (a BR/EDR or LE connection handle).
        public var handle: ConnectionHandle

        public init(handle: ConnectionHandle) { self.handle = handle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Read RSSI"
            handle = ConnectionHandle(try reader.u16("Handle"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(handle.rawValue) }

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.5.4).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var handle: ConnectionHandle = 0
            /// dBm on LE (127 means not available).
            public var rssi: Int8 = 0

            public init(status: HCIStatus = .success, handle: ConnectionHandle, rssi: Int8) {
                self.status = status
                self.handle = handle
                self.rssi = rssi
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read RSSI return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                handle = ConnectionHandle(try reader.u16("Handle"))
                rssi = try reader.i8("RSSI")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(handle.rawValue)
                writer.i8(rssi)
            }
        }
    }
}
