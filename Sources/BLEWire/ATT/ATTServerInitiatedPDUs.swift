extension ATT {
    /// ATT_HANDLE_VALUE_NTF (Core 5.4 Vol 3 Part F §3.4.7.1): a value the server pushes
    /// unacknowledged. `value` is a slice of the PDU.
    public struct HandleValueNotification: ATTHandleValueParameters {
        public static let opcode = ATTOpcode.handleValueNotification

        public var handle: UInt16
        /// 0 to ATT_MTU − 3 octets.
        public var value: ArraySlice<UInt8>

        public init(handle: UInt16, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.value = value
        }

        public static let context: StaticString = "ATT Handle Value Notification"

        public var pdu: ATTPDU { .handleValueNotification(self) }
    }

    /// ATT_HANDLE_VALUE_IND (Core 5.4 Vol 3 Part F §3.4.7.2): a value the client confirms.
    public struct HandleValueIndication: ATTHandleValueParameters {
        public static let opcode = ATTOpcode.handleValueIndication

        public var handle: UInt16
        /// 0 to ATT_MTU − 3 octets.
        public var value: ArraySlice<UInt8>

        public init(handle: UInt16, value: ArraySlice<UInt8>) {
            self.handle = handle
            self.value = value
        }

        public static let context: StaticString = "ATT Handle Value Indication"

        public var pdu: ATTPDU { .handleValueIndication(self) }
    }

    /// ATT_HANDLE_VALUE_CFM (Core 5.4 Vol 3 Part F §3.4.7.3): the client received an indication.
    /// No parameters.
    public struct HandleValueConfirmation: ATTPDUParameters, WireEmpty {
        public static let opcode = ATTOpcode.handleValueConfirmation

        public init() {}

        public var pdu: ATTPDU { .handleValueConfirmation(self) }
    }

    /// ATT_MULTIPLE_HANDLE_VALUE_NTF (Core 5.4 Vol 3 Part F §3.4.7.4): several values in one
    /// notification, as a Handle Length Value Tuple List (handle, 2-octet length, value) of two
    /// or more tuples. Unlike the Read Multiple Variable Length Response, no tuple may be cut
    /// short: each value must hold exactly the octets its length states.
    public struct MultipleHandleValueNotification: ATTPDUParameters, CustomRendering {
        public static let opcode = ATTOpcode.multipleHandleValueNotification

        /// One handle-value tuple; `value` is a slice of the PDU.
        public struct Entry: Hashable, Sendable {
            public var handle: UInt16
            public var value: ArraySlice<UInt8>

            public init(handle: UInt16, value: ArraySlice<UInt8>) {
                self.handle = handle
                self.value = value
            }
        }

        /// The tuples, read in order from the PDU's octets (forward only: tuples vary in size).
        public struct Tuples: Collection, Hashable, Sendable, CustomRendering {
            /// The Handle Length Value Tuple List's octets (a slice of the PDU), validated.
            public let bytes: ArraySlice<UInt8>

            @usableFromInline init(validated bytes: ArraySlice<UInt8>) { self.bytes = bytes }

            /// Index: absolute position of a tuple's handle in `bytes`.
            @inlinable public var startIndex: Int { bytes.startIndex }
            @inlinable public var endIndex: Int { bytes.endIndex }

            @inlinable
            public func index(after i: Int) -> Int {
                i &+ 4 &+ Int(ATT.le16(bytes, i &+ 2))
            }

            @inlinable
            public subscript(position: Int) -> Entry {
                let start = position &+ 4
                let end = start &+ Int(ATT.le16(bytes, position &+ 2))
                return Entry(handle: ATT.le16(bytes, position), value: bytes[start..<end])
            }

            public var rendered: RenderedValue { .array(map { Rendering.render($0) }) }
        }

        public let tuples: Tuples

        /// The tuples; nil for fewer than two or a value longer than 65 535 octets.
        public init?(entries: [Entry]) {
            guard entries.count >= 2 else { return nil }
            var writer = ByteWriter()
            for entry in entries {
                guard entry.value.count <= 0xFFFF else { return nil }
                writer.u16(entry.handle)
                writer.u16(UInt16(entry.value.count))
                writer.append(entry.value)
            }
            tuples = Tuples(validated: writer.bytes[...])
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "ATT Multiple Handle Value Notification"
            let list = reader.bytes[reader.index...]
            var count = 0
            // Walk the tuples once so that iterating them later cannot fail.
            while !reader.isAtEnd {
                _ = try reader.u16("Attribute Handle")
                let lengthOffset = reader.offset
                let length = Int(try reader.u16("Attribute Value Length"))
                if length > reader.remaining {
                    throw reader.error(
                        "Attribute Value Length", .lengthMismatch(declared: length, actual: reader.remaining),
                        at: lengthOffset)
                }
                try reader.skip(length, "Attribute Value")
                count &+= 1
            }
            if count < 2 {
                throw reader.error(
                    "Handle Length Value Tuple List", .outOfRange(value: count, allowed: 2...Int.max),
                    at: list.startIndex &- reader.bytes.startIndex)
            }
            tuples = Tuples(validated: list)
        }

        public func encode(into writer: inout ByteWriter) { writer.append(tuples.bytes) }

        public var pdu: ATTPDU { .multipleHandleValueNotification(self) }

        public var rendered: RenderedValue { .object(name: nil, fields: [("tuples", tuples.rendered)]) }
    }
}
