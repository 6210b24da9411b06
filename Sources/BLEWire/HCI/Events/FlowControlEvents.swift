extension HCIEvent {
    /// HCI_Number_Of_Completed_Packets (Core 5.4 Vol 4 Part E §7.7.19): data packets the
    /// controller has finished with, per connection handle, which return buffer credits to the
    /// host.
    ///
    /// Num_Handles is followed by that many (Connection_Handle, Num_Completed_Packets) pairs.
    /// The arrays are interleaved element by element (§5.2 parameter arrays), which is what
    /// controllers send. Decoding checks Num_Handles against the octets present before
    /// allocating the one array of entries.
    public struct NumberOfCompletedPackets: Sendable, Hashable, WireCodable, WireRenderable {
        /// One handle's count of completed packets.
        public struct Entry: Sendable, Hashable, WireRenderable {
            /// 12 bits; reserved top bits ignored on decode, written as zero.
            public var connectionHandle: ConnectionHandle
            public var numCompletedPackets: UInt16

            public init(connectionHandle: ConnectionHandle, numCompletedPackets: UInt16) {
                self.connectionHandle = connectionHandle
                self.numCompletedPackets = numCompletedPackets
            }
        }

        public var entries: [Entry]

        public init(entries: [Entry]) { self.entries = entries }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Number Of Completed Packets event"
            let count = Int(try reader.u8("Num_Handles"))
            // Each entry: Connection_Handle (2) and Num_Completed_Packets (2).
            let needed = count &* 4
            if needed > reader.remaining {
                throw reader.error(
                    "Num_Handles", .truncated(needed: needed, available: reader.remaining),
                    at: reader.offset &- 1)
            }
            var entries: [Entry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let handle = try HCIEventHandle.read(&reader)
                let completed = try reader.u16("Num_Completed_Packets")
                entries.append(Entry(connectionHandle: handle, numCompletedPackets: completed))
            }
            self.entries = entries
        }

        /// Writes Num_Handles and the pairs; at most 255 entries fit the count octet (63 fit
        /// one event).
        public func encode(into writer: inout ByteWriter) {
            writer.u8(UInt8(truncatingIfNeeded: entries.count))
            for entry in entries {
                HCIEventHandle.write(entry.connectionHandle, into: &writer)
                writer.u16(entry.numCompletedPackets)
            }
        }

        /// Total packets completed over all handles.
        public var totalCompletedPackets: Int {
            entries.reduce(0) { $0 &+ Int($1.numCompletedPackets) }
        }
    }

    /// HCI_Hardware_Error (Core 5.4 Vol 4 Part E §7.7.16): the controller hit a hardware
    /// problem; the code's meaning is implementation-specific.
    public struct HardwareError: Sendable, Hashable, WireCodable, WireRenderable {
        public var hardwareCode: UInt8

        public init(hardwareCode: UInt8) { self.hardwareCode = hardwareCode }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Hardware Error event"
            hardwareCode = try reader.u8("Hardware_Code")
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(hardwareCode) }
    }

    /// HCI_Data_Buffer_Overflow (Core 5.4 Vol 4 Part E §7.7.26): the host sent more data
    /// packets than the controller had buffers for; the data was lost.
    public struct DataBufferOverflow: Sendable, Hashable, WireCodable, WireRenderable {
        /// Which kind of buffer overflowed.
        public enum LinkType: Sendable, Hashable, CustomRendering {
            /// 0x00: synchronous (voice) buffers.
            case synchronous
            /// 0x01: ACL data buffers.
            case acl
            /// 0x02: isochronous data buffers (added with isochronous channels).
            case isochronous
            /// A reserved value, kept as received.
            case other(UInt8)

            public init(rawValue: UInt8) {
                switch rawValue {
                case 0x00: self = .synchronous
                case 0x01: self = .acl
                case 0x02: self = .isochronous
                default: self = .other(rawValue)
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .synchronous: 0x00
                case .acl: 0x01
                case .isochronous: 0x02
                case .other(let value): value
                }
            }

            public var rendered: RenderedValue {
                switch self {
                case .synchronous: .symbol("synchronous")
                case .acl: .symbol("acl")
                case .isochronous: .symbol("isochronous")
                case .other(let value): .symbol("reserved(\(Hex.prefixed(value, width: 2)))")
                }
            }
        }

        public var linkType: LinkType

        public init(linkType: LinkType) { self.linkType = linkType }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Data Buffer Overflow event"
            linkType = LinkType(rawValue: try reader.u8("Link_Type"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(linkType.rawValue) }
    }
}
