/// A value read together with its handle: Read Using Characteristic UUID and Read Multiple
/// Variable Length Characteristic Values (Core 5.4 Vol 3 Part G §4.8.2, §4.8.5).
public struct GATTHandleValue: Hashable, Sendable {
    public var handle: UInt16
    public var value: [UInt8]
    /// The value may hold only its first octets: the response cut it. In Read Multiple Variable
    /// Length the stated length exceeds what arrived; in Read Using Characteristic UUID the value
    /// filled its entry (ATT_MTU − 4 or 253 octets, whichever is smaller). Read Long
    /// Characteristic Values (§4.8.3) reads the whole value.
    public var isTruncated: Bool

    public init(handle: UInt16, value: [UInt8], isTruncated: Bool = false) {
        self.handle = handle
        self.value = value
        self.isTruncated = isTruncated
    }
}
