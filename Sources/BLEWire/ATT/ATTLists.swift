/// An entry of a fixed-stride ATT list (Read By Type, Read By Group Type, Find Information and
/// Find By Type Value Responses; Core 5.4 Vol 3 Part F §3.4.3–§3.4.4).
public protocol ATTListEntry: Hashable, Sendable {
    /// Reads the entry occupying `bytes[start ..< start + stride]`. Only called on lists whose
    /// shape decoding (or a validating initializer) has already checked, so it cannot fail.
    init(validated bytes: ArraySlice<UInt8>, at start: Int, stride: Int)
}

extension ATT {
    /// Little-endian UInt16 at absolute index `i` of an already validated slice.
    @inlinable
    static func le16(_ bytes: ArraySlice<UInt8>, _ i: Int) -> UInt16 {
        UInt16(bytes[i]) | UInt16(bytes[i &+ 1]) << 8
    }

    /// Little-endian UInt64 at absolute index `i` of an already validated slice.
    @inlinable
    static func le64(_ bytes: ArraySlice<UInt8>, _ i: Int) -> UInt64 {
        var value: UInt64 = 0
        for k in 0..<8 { value |= UInt64(bytes[i &+ k]) << (8 * UInt64(k)) }
        return value
    }

    /// Reads an attribute type that fills the rest of the PDU: 2 or 16 octets (Core 5.4 Vol 3
    /// Part F §3.4.4.1, §3.4.4.9; 32-bit UUIDs travel as 128-bit ones, §3.2.1). Any other width
    /// is an error the server answers with Invalid PDU.
    @inlinable
    static func readAttributeType(_ reader: inout ByteReader, _ field: StaticString) throws(DecodeError)
        -> BluetoothUUID
    {
        let width = reader.remaining
        guard width == 2 || width == 16 else {
            throw reader.error(field, .invalidValue(UInt64(width)))
        }
        return try BluetoothUUID(from: &reader, width: width, field: field)
    }

    /// Checks that `list` is a non-empty sequence of whole `stride`-octet entries; a partial last
    /// entry is reported as truncated at its own offset.
    @inlinable
    static func checkFixedList(
        _ list: ArraySlice<UInt8>, stride: Int, at offset: Int, _ reader: ByteReader, _ field: StaticString
    ) throws(DecodeError) {
        if list.isEmpty {
            throw reader.error(field, .truncated(needed: stride, available: 0), at: offset)
        }
        let partial = list.count % stride
        if partial != 0 {
            throw reader.error(
                field, .truncated(needed: stride, available: partial), at: offset &+ list.count &- partial)
        }
    }

    /// The entries of a fixed-stride list (Core 5.4 Vol 3 Part F §3.4.3.2, §3.4.3.4, §3.4.4.2,
    /// §3.4.4.10), decoded on access from the PDU's own octets: no allocation, O(1) random
    /// access, and no failure (the shape was validated when decoding).
    public struct EntryList<Entry: ATTListEntry>: RandomAccessCollection, Hashable, Sendable, CustomRendering {
        /// The list's octets (a slice of the decoded PDU).
        public let bytes: ArraySlice<UInt8>
        /// Octets per entry; `bytes.count` is a non-zero multiple of it.
        public let stride: Int

        /// `stride` ≥ 1 and `bytes.count` a multiple of it: the caller has checked.
        @usableFromInline
        init(validated bytes: ArraySlice<UInt8>, stride: Int) {
            self.bytes = bytes
            self.stride = stride
        }

        @inlinable public var startIndex: Int { 0 }
        @inlinable public var endIndex: Int { bytes.count / stride }

        @inlinable
        public subscript(position: Int) -> Entry {
            precondition(position >= 0 && position < endIndex, "ATT list index out of range")
            return Entry(validated: bytes, at: bytes.startIndex &+ position &* stride, stride: stride)
        }

        public var rendered: RenderedValue { .array(map { Rendering.render($0) }) }
    }

    /// A Set Of Handles (Read Multiple and Read Multiple Variable Length Requests, Core 5.4 Vol 3
    /// Part F §3.4.4.7, §3.4.4.11): two or more little-endian handles, read on access.
    public struct HandleList: RandomAccessCollection, Hashable, Sendable, CustomRendering {
        /// The list's octets (a slice of the decoded PDU); an even count ≥ 4.
        public let bytes: ArraySlice<UInt8>

        @usableFromInline
        init(validated bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        /// Decodes the rest of the reader as a Set Of Handles.
        @inlinable
        init(from reader: inout ByteReader) throws(DecodeError) {
            let offset = reader.offset
            let list = reader.rest()
            if list.count < 4 {
                // Two handles at least: reading one attribute has its own request.
                throw reader.error("Set Of Handles", .truncated(needed: 4, available: list.count), at: offset)
            }
            if list.count & 1 != 0 {
                throw reader.error(
                    "Set Of Handles", .truncated(needed: 2, available: 1), at: offset &+ list.count &- 1)
            }
            self.init(validated: list)
        }

        /// A list of `handles`; nil unless there are at least two.
        public init?(_ handles: [UInt16]) {
            guard handles.count >= 2 else { return nil }
            var writer = ByteWriter(capacity: handles.count * 2)
            for handle in handles { writer.u16(handle) }
            self.init(validated: writer.bytes[...])
        }

        @inlinable public var startIndex: Int { 0 }
        @inlinable public var endIndex: Int { bytes.count / 2 }

        @inlinable
        public subscript(position: Int) -> UInt16 {
            precondition(position >= 0 && position < endIndex, "ATT handle index out of range")
            return ATT.le16(bytes, bytes.startIndex &+ position &* 2)
        }

        public var rendered: RenderedValue { .array(map { .unsigned(UInt64($0)) }) }
    }
}
