extension ATT {
    /// ATT_READ_BY_TYPE_REQ (Core 5.4 Vol 3 Part F §3.4.4.1): values of the attributes of a type
    /// in a range. The type is a 2- or 16-octet UUID; any other width fails to decode (the server
    /// answers Invalid PDU). Handle checks (0x0000, start > end) are the server's.
    public struct ReadByTypeRequest: ATTPDUParameters {
        public static let opcode = ATTOpcode.readByTypeRequest

        public var startingHandle: UInt16
        public var endingHandle: UInt16
        /// Encoded in 16 bits when it has a 16-bit alias, else in 128 bits.
        public var attributeType: BluetoothUUID

        public init(startingHandle: UInt16, endingHandle: UInt16, attributeType: BluetoothUUID) {
            self.startingHandle = startingHandle
            self.endingHandle = endingHandle
            self.attributeType = attributeType
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Read By Type Request"
            startingHandle = try reader.u16("Starting Handle")
            endingHandle = try reader.u16("Ending Handle")
            attributeType = try ATT.readAttributeType(&reader, "Attribute Type")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(startingHandle)
            writer.u16(endingHandle)
            attributeType.encodeATT(into: &writer)
        }

        public var pdu: ATTPDU { .readByTypeRequest(self) }
    }

    /// ATT_READ_BY_TYPE_RSP (Core 5.4 Vol 3 Part F §3.4.4.2): Length (octets per entry, ≥ 2),
    /// then a non-empty Attribute Data List of equally long (handle, value) pairs.
    public struct ReadByTypeResponse: ATTAttributeDataListResponse {
        public static let opcode = ATTOpcode.readByTypeResponse

        /// One handle-value pair; `value` is a slice of the PDU.
        public struct Entry: ATTListEntry {
            public var handle: UInt16
            public var value: ArraySlice<UInt8>

            public init(handle: UInt16, value: ArraySlice<UInt8>) {
                self.handle = handle
                self.value = value
            }

            @inlinable
            public init(validated bytes: ArraySlice<UInt8>, at start: Int, stride: Int) {
                handle = ATT.le16(bytes, start)
                value = bytes[(start &+ 2)..<(start &+ stride)]
            }
        }

        public let entries: EntryList<Entry>

        /// The pairs; nil when empty, when the values differ in length, or when a pair exceeds
        /// the 255 octets the Length field can state.
        public init?(entries: [Entry]) {
            guard let first = entries.first else { return nil }
            let stride = 2 + first.value.count
            guard stride <= 255, entries.allSatisfy({ $0.value.count == first.value.count }) else {
                return nil
            }
            var writer = ByteWriter(capacity: stride * entries.count)
            for entry in entries {
                writer.u16(entry.handle)
                writer.append(entry.value)
            }
            self.entries = EntryList(validated: writer.bytes[...], stride: stride)
        }

        @inlinable
        public init(validatedEntries entries: EntryList<Entry>) { self.entries = entries }

        public static let context: StaticString = "ATT Read By Type Response"
        public static let minimumLength = 2

        public var pdu: ATTPDU { .readByTypeResponse(self) }
    }

    /// ATT_READ_BY_GROUP_TYPE_REQ (Core 5.4 Vol 3 Part F §3.4.4.9): the grouping attributes of a
    /// type in a range (GATT: primary services). Group type 2 or 16 octets, as Read By Type.
    public struct ReadByGroupTypeRequest: ATTPDUParameters {
        public static let opcode = ATTOpcode.readByGroupTypeRequest

        public var startingHandle: UInt16
        public var endingHandle: UInt16
        /// Encoded in 16 bits when it has a 16-bit alias, else in 128 bits. The server answers
        /// Unsupported Group Type for a type that is not a grouping type.
        public var attributeGroupType: BluetoothUUID

        public init(startingHandle: UInt16, endingHandle: UInt16, attributeGroupType: BluetoothUUID) {
            self.startingHandle = startingHandle
            self.endingHandle = endingHandle
            self.attributeGroupType = attributeGroupType
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Read By Group Type Request"
            startingHandle = try reader.u16("Starting Handle")
            endingHandle = try reader.u16("Ending Handle")
            attributeGroupType = try ATT.readAttributeType(&reader, "Attribute Group Type")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(startingHandle)
            writer.u16(endingHandle)
            attributeGroupType.encodeATT(into: &writer)
        }

        public var pdu: ATTPDU { .readByGroupTypeRequest(self) }
    }

    /// ATT_READ_BY_GROUP_TYPE_RSP (Core 5.4 Vol 3 Part F §3.4.4.10): Length (octets per entry,
    /// ≥ 4), then a non-empty Attribute Data List of (handle, end group handle, value) entries.
    public struct ReadByGroupTypeResponse: ATTAttributeDataListResponse {
        public static let opcode = ATTOpcode.readByGroupTypeResponse

        /// One Attribute Data entry (Table 3.26); `value` is a slice of the PDU.
        public struct Entry: ATTListEntry {
            public var handle: UInt16
            public var endGroupHandle: UInt16
            public var value: ArraySlice<UInt8>

            public init(handle: UInt16, endGroupHandle: UInt16, value: ArraySlice<UInt8>) {
                self.handle = handle
                self.endGroupHandle = endGroupHandle
                self.value = value
            }

            @inlinable
            public init(validated bytes: ArraySlice<UInt8>, at start: Int, stride: Int) {
                handle = ATT.le16(bytes, start)
                endGroupHandle = ATT.le16(bytes, start &+ 2)
                value = bytes[(start &+ 4)..<(start &+ stride)]
            }
        }

        public let entries: EntryList<Entry>

        /// The entries; nil when empty, when the values differ in length, or when an entry
        /// exceeds 255 octets.
        public init?(entries: [Entry]) {
            guard let first = entries.first else { return nil }
            let stride = 4 + first.value.count
            guard stride <= 255, entries.allSatisfy({ $0.value.count == first.value.count }) else {
                return nil
            }
            var writer = ByteWriter(capacity: stride * entries.count)
            for entry in entries {
                writer.u16(entry.handle)
                writer.u16(entry.endGroupHandle)
                writer.append(entry.value)
            }
            self.entries = EntryList(validated: writer.bytes[...], stride: stride)
        }

        @inlinable
        public init(validatedEntries entries: EntryList<Entry>) { self.entries = entries }

        public static let context: StaticString = "ATT Read By Group Type Response"
        public static let minimumLength = 4

        public var pdu: ATTPDU { .readByGroupTypeResponse(self) }
    }

    /// Reads a Length octet and the Attribute Data List it describes (Read By Type and Read By
    /// Group Type Responses): Length ≥ `minimumLength` (the fixed fields of one entry), the list
    /// non-empty and a whole number of entries.
    @inlinable
    static func decodeLengthPrefixedList<Entry: ATTListEntry>(
        _ reader: inout ByteReader, minimumLength: Int
    ) throws(DecodeError) -> EntryList<Entry> {
        let lengthOffset = reader.offset
        let length = Int(try reader.u8("Length"))
        if length < minimumLength {
            throw reader.error(
                "Length", .outOfRange(value: length, allowed: minimumLength...255), at: lengthOffset)
        }
        let offset = reader.offset
        let list = reader.rest()
        if list.isEmpty {
            throw reader.error("Attribute Data List", .truncated(needed: length, available: 0), at: offset)
        }
        if list.count % length != 0 {
            throw reader.error(
                "Attribute Data List", .lengthMismatch(declared: length, actual: list.count), at: offset)
        }
        return EntryList(validated: list, stride: length)
    }
}

/// Read By Type and Read By Group Type Responses (Core 5.4 Vol 3 Part F §3.4.4.2, §3.4.4.10):
/// a Length octet (octets per entry), then a non-empty list of equally long entries. One
/// decoder, encoder and rendering for both; only the entry differs.
public protocol ATTAttributeDataListResponse: ATTPDUParameters, CustomRendering {
    associatedtype Entry: ATTListEntry
    var entries: ATT.EntryList<Entry> { get }
    /// From a list already checked (by decoding or a validating initializer).
    init(validatedEntries: ATT.EntryList<Entry>)
    /// Decoding context, e.g. "ATT Read By Type Response".
    static var context: StaticString { get }
    /// The octets of an entry's fixed fields: the least valid Length.
    static var minimumLength: Int { get }
}

extension ATTAttributeDataListResponse {
    /// The Length field: octets per entry.
    @inlinable public var length: UInt8 { UInt8(truncatingIfNeeded: entries.stride) }

    @inlinable
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = Self.context
        self.init(validatedEntries: try ATT.decodeLengthPrefixedList(&reader, minimumLength: Self.minimumLength))
    }

    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.u8(length)
        writer.append(entries.bytes)
    }

    public var rendered: RenderedValue {
        .object(name: nil, fields: [("length", .unsigned(UInt64(length))), ("entries", entries.rendered)])
    }
}
