extension HCI {
    /// HCI_Reset (Core 5.4 Vol 4 Part E §7.3.2).
    public struct Reset: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x0003)
        public static let name = "Reset"

        public init() {}
        public init(from reader: inout ByteReader) throws(DecodeError) {}
        public func encode(into writer: inout ByteWriter) {}
    }
}
