extension ATT {
    /// ATT_READ_REQ (Core 5.4 Vol 3 Part F §3.4.4.3): the value of one attribute.
    public struct ReadRequest: ATTPDUParameters {
        public static let opcode = ATTOpcode.readRequest

        public var handle: UInt16

        public init(handle: UInt16) { self.handle = handle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Read Request"
            handle = try reader.u16("Attribute Handle")
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(handle) }

        public var pdu: ATTPDU { .readRequest(self) }
    }

    /// ATT_READ_RSP (Core 5.4 Vol 3 Part F §3.4.4.4): the value, or its first ATT_MTU − 1 octets.
    public struct ReadResponse: ATTPDUParameters {
        public static let opcode = ATTOpcode.readResponse

        public var value: ArraySlice<UInt8>

        public init(value: ArraySlice<UInt8>) { self.value = value }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Read Response"
            value = reader.rest()
        }

        public func encode(into writer: inout ByteWriter) { writer.append(value) }

        public var pdu: ATTPDU { .readResponse(self) }
    }

    /// ATT_READ_BLOB_REQ (Core 5.4 Vol 3 Part F §3.4.4.5): part of a long value from an offset.
    public struct ReadBlobRequest: ATTPDUParameters {
        public static let opcode = ATTOpcode.readBlobRequest

        public var handle: UInt16
        public var valueOffset: UInt16

        public init(handle: UInt16, valueOffset: UInt16) {
            self.handle = handle
            self.valueOffset = valueOffset
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Read Blob Request"
            handle = try reader.u16("Attribute Handle")
            valueOffset = try reader.u16("Value Offset")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(handle)
            writer.u16(valueOffset)
        }

        public var pdu: ATTPDU { .readBlobRequest(self) }
    }

    /// ATT_READ_BLOB_RSP (Core 5.4 Vol 3 Part F §3.4.4.6): part of the value from the offset.
    public struct ReadBlobResponse: ATTPDUParameters {
        public static let opcode = ATTOpcode.readBlobResponse

        public var partValue: ArraySlice<UInt8>

        public init(partValue: ArraySlice<UInt8>) { self.partValue = partValue }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Read Blob Response"
            partValue = reader.rest()
        }

        public func encode(into writer: inout ByteWriter) { writer.append(partValue) }

        public var pdu: ATTPDU { .readBlobResponse(self) }
    }

    /// ATT_READ_MULTIPLE_REQ (Core 5.4 Vol 3 Part F §3.4.4.7): the values of two or more
    /// attributes of known length.
    public struct ReadMultipleRequest: ATTHandleListRequest {
        public static let opcode = ATTOpcode.readMultipleRequest
        public static let context: StaticString = "ATT Read Multiple Request"

        public let setOfHandles: HandleList

        public init(setOfHandles: HandleList) { self.setOfHandles = setOfHandles }

        public var pdu: ATTPDU { .readMultipleRequest(self) }
    }

    /// ATT_READ_MULTIPLE_RSP (Core 5.4 Vol 3 Part F §3.4.4.8): the values concatenated with no
    /// separators (the client knows their lengths), cut to ATT_MTU − 1 octets.
    public struct ReadMultipleResponse: ATTPDUParameters {
        public static let opcode = ATTOpcode.readMultipleResponse

        public var setOfValues: ArraySlice<UInt8>

        public init(setOfValues: ArraySlice<UInt8>) { self.setOfValues = setOfValues }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Read Multiple Response"
            setOfValues = reader.rest()
        }

        public func encode(into writer: inout ByteWriter) { writer.append(setOfValues) }

        public var pdu: ATTPDU { .readMultipleResponse(self) }
    }

    /// ATT_READ_MULTIPLE_VARIABLE_REQ (Core 5.4 Vol 3 Part F §3.4.4.11): the values of two or
    /// more attributes, each returned with its length.
    public struct ReadMultipleVariableRequest: ATTHandleListRequest {
        public static let opcode = ATTOpcode.readMultipleVariableRequest
        public static let context: StaticString = "ATT Read Multiple Variable Request"

        public let setOfHandles: HandleList

        public init(setOfHandles: HandleList) { self.setOfHandles = setOfHandles }

        public var pdu: ATTPDU { .readMultipleVariableRequest(self) }
    }

    /// ATT_READ_MULTIPLE_VARIABLE_RSP (Core 5.4 Vol 3 Part F §3.4.4.12): a Length Value Tuple
    /// List (Value Length, 2 octets, then the value) of at least 4 octets.
    ///
    /// The server cuts the list to ATT_MTU − 1 octets, so the last tuple may be truncated: its
    /// value holds fewer octets than its Value Length says, or only the first octet of its Value
    /// Length made it. Both are valid and decode; `isTruncated` tells, and a lone trailing
    /// Value Length octet is not an entry. Any list of 4 or more octets is therefore well formed.
    public struct ReadMultipleVariableResponse: ATTPDUParameters, CustomRendering {
        public static let opcode = ATTOpcode.readMultipleVariableResponse

        /// One length-value tuple; `value` is a slice of the PDU.
        public struct Entry: Hashable, Sendable {
            /// The attribute value's full length as the server stated it.
            public var valueLength: UInt16
            public var value: ArraySlice<UInt8>

            public init(valueLength: UInt16, value: ArraySlice<UInt8>) {
                self.valueLength = valueLength
                self.value = value
            }

            /// The value was cut short by the MTU.
            @inlinable public var isTruncated: Bool { value.count < Int(valueLength) }
        }

        /// The tuples, read in order from the PDU's octets (forward only: tuples vary in size).
        public struct Tuples: Collection, Hashable, Sendable, CustomRendering {
            /// The Length Value Tuple List's octets (a slice of the PDU).
            public let bytes: ArraySlice<UInt8>

            @usableFromInline init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

            /// Index: absolute position of a tuple's Value Length in `bytes`.
            @inlinable
            public var startIndex: Int { skipPartial(bytes.startIndex) }
            @inlinable public var endIndex: Int { bytes.endIndex }

            /// `i`, or the end when fewer than the two Value Length octets remain there.
            @inlinable
            func skipPartial(_ i: Int) -> Int { bytes.endIndex &- i >= 2 ? i : bytes.endIndex }

            @inlinable
            public func index(after i: Int) -> Int {
                let end = i &+ 2 &+ Int(ATT.le16(bytes, i))
                return end >= bytes.endIndex ? bytes.endIndex : skipPartial(end)
            }

            @inlinable
            public subscript(position: Int) -> Entry {
                let length = ATT.le16(bytes, position)
                let start = position &+ 2
                let end = Swift.min(start &+ Int(length), bytes.endIndex)
                return Entry(valueLength: length, value: bytes[start..<end])
            }

            public var rendered: RenderedValue { .array(map { Rendering.render($0) }) }
        }

        public let tuples: Tuples

        /// The last tuple (or a lone Value Length octet) was cut short by the MTU.
        public var isTruncated: Bool {
            let bytes = tuples.bytes
            var i = bytes.startIndex
            while bytes.endIndex &- i >= 2 {
                let next = i &+ 2 &+ Int(ATT.le16(bytes, i))
                if next > bytes.endIndex { return true }
                i = next
            }
            return i != bytes.endIndex
        }

        /// The tuples for `values`, cut to `maximumListLength` octets (ATT_MTU − 1) as
        /// §3.4.4.12 requires. Nil when fewer than two values are given, a value exceeds 65 535
        /// octets, or the limit is under 4 octets.
        public init?(values: [ArraySlice<UInt8>], maximumListLength: Int = Int.max) {
            guard values.count >= 2, maximumListLength >= 4 else { return nil }
            var writer = ByteWriter()
            for value in values {
                guard value.count <= 0xFFFF else { return nil }
                writer.u16(UInt16(value.count))
                writer.append(value)
                if writer.count >= maximumListLength { break }
            }
            tuples = Tuples(bytes: writer.bytes.prefix(maximumListLength))
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Read Multiple Variable Response"
            let offset = reader.offset
            let list = reader.rest()
            if list.count < 4 {
                // Two Value Lengths at least: the request named two or more handles.
                throw reader.error(
                    "Length Value Tuple List", .truncated(needed: 4, available: list.count), at: offset)
            }
            tuples = Tuples(bytes: list)
        }

        public func encode(into writer: inout ByteWriter) { writer.append(tuples.bytes) }

        public var pdu: ATTPDU { .readMultipleVariableResponse(self) }

        public var rendered: RenderedValue {
            .object(
                name: nil, fields: [("tuples", tuples.rendered), ("isTruncated", .bool(isTruncated))])
        }
    }
}

/// Read Multiple and Read Multiple Variable Length Requests carry the same Set Of Handles
/// (Core 5.4 Vol 3 Part F §3.4.4.7, §3.4.4.11): one decoder, encoder and rendering for both.
public protocol ATTHandleListRequest: ATTPDUParameters, CustomRendering {
    var setOfHandles: ATT.HandleList { get }
    init(setOfHandles: ATT.HandleList)
    /// Decoding context, e.g. "ATT Read Multiple Request".
    static var context: StaticString { get }
}

extension ATTHandleListRequest {
    /// Nil unless there are at least two handles.
    public init?(handles: [UInt16]) {
        guard let list = ATT.HandleList(handles) else { return nil }
        self.init(setOfHandles: list)
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = Self.context
        self.init(setOfHandles: try ATT.HandleList(from: &reader))
    }

    @inlinable
    public func encode(into writer: inout ByteWriter) { writer.append(setOfHandles.bytes) }

    public var rendered: RenderedValue {
        .object(name: nil, fields: [("setOfHandles", setOfHandles.rendered)])
    }
}
