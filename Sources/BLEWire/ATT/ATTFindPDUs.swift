extension ATT {
    /// ATT_FIND_INFORMATION_REQ (Core 5.4 Vol 3 Part F §3.4.3.1): handles and types of the
    /// attributes in a range. The server answers Invalid Handle for a starting handle of 0x0000
    /// or greater than the ending handle.
    public struct FindInformationRequest: ATTPDUParameters {
        public static let opcode = ATTOpcode.findInformationRequest

        public var startingHandle: UInt16
        public var endingHandle: UInt16

        public init(startingHandle: UInt16, endingHandle: UInt16) {
            self.startingHandle = startingHandle
            self.endingHandle = endingHandle
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Find Information Request"
            startingHandle = try reader.u16("Starting Handle")
            endingHandle = try reader.u16("Ending Handle")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(startingHandle)
            writer.u16(endingHandle)
        }

        public var pdu: ATTPDU { .findInformationRequest(self) }
    }

    /// ATT_FIND_INFORMATION_RSP (Core 5.4 Vol 3 Part F §3.4.3.2): Format, then a non-empty
    /// Information Data list of (handle, UUID) pairs, all 16-bit (format 1) or all 128-bit (2).
    public struct FindInformationResponse: ATTPDUParameters, CustomRendering {
        public static let opcode = ATTOpcode.findInformationResponse

        /// The Format field (Table 3.8).
        public enum Format: UInt8, Sendable, Hashable {
            /// Handles with 16-bit Bluetooth UUIDs.
            case uuid16 = 0x01
            /// Handles with 128-bit UUIDs.
            case uuid128 = 0x02

            /// Octets per Information Data entry.
            @inlinable public var stride: Int { self == .uuid16 ? 4 : 18 }
        }

        /// One handle-UUID pair of the Information Data.
        public struct Entry: ATTListEntry {
            public var handle: UInt16
            public var uuid: BluetoothUUID

            public init(handle: UInt16, uuid: BluetoothUUID) {
                self.handle = handle
                self.uuid = uuid
            }

            @inlinable
            public init(validated bytes: ArraySlice<UInt8>, at start: Int, stride: Int) {
                handle = ATT.le16(bytes, start)
                if stride == 4 {
                    uuid = BluetoothUUID(ATT.le16(bytes, start &+ 2))
                } else {
                    uuid = BluetoothUUID(high: ATT.le64(bytes, start &+ 10), low: ATT.le64(bytes, start &+ 2))
                }
            }
        }

        public let entries: EntryList<Entry>

        @inlinable public var format: Format { entries.stride == 4 ? .uuid16 : .uuid128 }

        /// The pairs in `format`; nil when `entries` is empty or, for `.uuid16`, a UUID has no
        /// 16-bit alias. (A 16-bit UUID may be sent in 128-bit form.)
        public init?(format: Format, entries: [Entry]) {
            guard !entries.isEmpty else { return nil }
            var writer = ByteWriter(capacity: entries.count * format.stride)
            for entry in entries {
                writer.u16(entry.handle)
                if format == .uuid16 {
                    guard let short = entry.uuid.uuid16 else { return nil }
                    writer.u16(short)
                } else {
                    entry.uuid.encode(into: &writer, width: 16)
                }
            }
            self.entries = EntryList(validated: writer.bytes[...], stride: format.stride)
        }

        /// The pairs in format 1 when every UUID has a 16-bit alias, else format 2; nil when empty.
        public init?(entries: [Entry]) {
            let short = entries.allSatisfy { $0.uuid.uuid16 != nil }
            self.init(format: short ? .uuid16 : .uuid128, entries: entries)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Find Information Response"
            let formatOffset = reader.offset
            let raw = try reader.u8("Format")
            guard let format = Format(rawValue: raw) else {
                throw reader.error("Format", .invalidValue(UInt64(raw)), at: formatOffset)
            }
            let offset = reader.offset
            let list = reader.rest()
            try ATT.checkFixedList(list, stride: format.stride, at: offset, reader, "Information Data")
            entries = EntryList(validated: list, stride: format.stride)
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(format.rawValue)
            writer.append(entries.bytes)
        }

        public var pdu: ATTPDU { .findInformationResponse(self) }

        public var rendered: RenderedValue {
            .object(name: nil, fields: [("format", .symbol("\(format)")), ("entries", entries.rendered)])
        }
    }

    /// ATT_FIND_BY_TYPE_VALUE_REQ (Core 5.4 Vol 3 Part F §3.4.3.3): handles of the attributes in
    /// a range with a 16-bit type and a given value (GATT: primary services by UUID).
    public struct FindByTypeValueRequest: ATTPDUParameters, CustomRendering {
        public static let opcode = ATTOpcode.findByTypeValueRequest

        public var startingHandle: UInt16
        public var endingHandle: UInt16
        /// The attribute type: always a 16-bit UUID in this PDU.
        public var attributeType: UInt16
        /// The value to match (0 to ATT_MTU − 7 octets).
        public var value: ArraySlice<UInt8>

        public init(
            startingHandle: UInt16, endingHandle: UInt16, attributeType: UInt16, value: ArraySlice<UInt8>
        ) {
            self.startingHandle = startingHandle
            self.endingHandle = endingHandle
            self.attributeType = attributeType
            self.value = value
        }

        /// The attribute type as a UUID.
        @inlinable public var attributeTypeUUID: BluetoothUUID { BluetoothUUID(attributeType) }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Find By Type Value Request"
            startingHandle = try reader.u16("Starting Handle")
            endingHandle = try reader.u16("Ending Handle")
            attributeType = try reader.u16("Attribute Type")
            value = reader.rest()
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(startingHandle)
            writer.u16(endingHandle)
            writer.u16(attributeType)
            writer.append(value)
        }

        public var pdu: ATTPDU { .findByTypeValueRequest(self) }

        public var rendered: RenderedValue {
            .object(
                name: nil,
                fields: [
                    ("startingHandle", .unsigned(UInt64(startingHandle))),
                    ("endingHandle", .unsigned(UInt64(endingHandle))),
                    ("attributeType", attributeTypeUUID.rendered), ("value", .bytes(Array(value))),
                ])
        }
    }

    /// ATT_FIND_BY_TYPE_VALUE_RSP (Core 5.4 Vol 3 Part F §3.4.3.4): a non-empty Handles
    /// Information List of (Found Attribute Handle, Group End Handle) pairs.
    public struct FindByTypeValueResponse: ATTPDUParameters, CustomRendering {
        public static let opcode = ATTOpcode.findByTypeValueResponse

        /// One Handles Information entry (Table 3.12).
        public struct Entry: ATTListEntry {
            public var foundAttributeHandle: UInt16
            /// The end of the group, or the found handle itself for a non-grouping attribute.
            public var groupEndHandle: UInt16

            public init(foundAttributeHandle: UInt16, groupEndHandle: UInt16) {
                self.foundAttributeHandle = foundAttributeHandle
                self.groupEndHandle = groupEndHandle
            }

            @inlinable
            public init(validated bytes: ArraySlice<UInt8>, at start: Int, stride: Int) {
                foundAttributeHandle = ATT.le16(bytes, start)
                groupEndHandle = ATT.le16(bytes, start &+ 2)
            }
        }

        public let entries: EntryList<Entry>

        /// The entries; nil when empty.
        public init?(entries: [Entry]) {
            guard !entries.isEmpty else { return nil }
            var writer = ByteWriter(capacity: entries.count * 4)
            for entry in entries {
                writer.u16(entry.foundAttributeHandle)
                writer.u16(entry.groupEndHandle)
            }
            self.entries = EntryList(validated: writer.bytes[...], stride: 4)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Find By Type Value Response"
            let offset = reader.offset
            let list = reader.rest()
            try ATT.checkFixedList(list, stride: 4, at: offset, reader, "Handles Information List")
            entries = EntryList(validated: list, stride: 4)
        }

        public func encode(into writer: inout ByteWriter) { writer.append(entries.bytes) }

        public var pdu: ATTPDU { .findByTypeValueResponse(self) }

        public var rendered: RenderedValue { .object(name: nil, fields: [("entries", entries.rendered)]) }
    }
}
