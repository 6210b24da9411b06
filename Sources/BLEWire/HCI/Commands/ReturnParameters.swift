extension HCI {
    /// Return parameters that are the status alone (Reset, Set Event Mask, most LE setters).
    public struct StatusReturnParameters: HCIReturnParameters, Hashable {
        public var status: HCIStatus

        public init(status: HCIStatus = .success) { self.status = status }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Command Complete return parameters"
            status = HCIStatus(try reader.u8("Status"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(status.rawValue) }
    }
}
