extension LEMetaEvent {
    /// HCI_LE_Advertising_Report (Core 5.4 Vol 4 Part E §7.7.65.2): legacy advertising PDUs and
    /// scan responses the scanner received, one or more per event.
    ///
    /// Num_Reports is followed by the reports one after another (Event_Type, Address_Type,
    /// Address, Data_Length, Data, RSSI each). Decoding walks and validates them once without
    /// allocating; `reports` then decodes each on access, its data a slice of the input.
    public struct AdvertisingReport: Sendable, Hashable, WireCodable, WireRenderable, CustomRendering {
        /// Event_Type of a legacy report: which advertising PDU was received.
        public enum EventType: Sendable, Hashable, CustomRendering {
            /// 0x00: connectable and scannable undirected (ADV_IND).
            case advInd
            /// 0x01: connectable directed (ADV_DIRECT_IND).
            case advDirectInd
            /// 0x02: scannable undirected (ADV_SCAN_IND).
            case advScanInd
            /// 0x03: non-connectable undirected (ADV_NONCONN_IND).
            case advNonconnInd
            /// 0x04: scan response (SCAN_RSP).
            case scanRsp
            /// A reserved value, kept as received.
            case other(UInt8)

            public init(rawValue: UInt8) {
                switch rawValue {
                case 0x00: self = .advInd
                case 0x01: self = .advDirectInd
                case 0x02: self = .advScanInd
                case 0x03: self = .advNonconnInd
                case 0x04: self = .scanRsp
                default: self = .other(rawValue)
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .advInd: 0x00
                case .advDirectInd: 0x01
                case .advScanInd: 0x02
                case .advNonconnInd: 0x03
                case .scanRsp: 0x04
                case .other(let value): value
                }
            }

            public var rendered: RenderedValue {
                switch self {
                case .advInd: .symbol("ADV_IND")
                case .advDirectInd: .symbol("ADV_DIRECT_IND")
                case .advScanInd: .symbol("ADV_SCAN_IND")
                case .advNonconnInd: .symbol("ADV_NONCONN_IND")
                case .scanRsp: .symbol("SCAN_RSP")
                case .other(let value): .symbol("reserved(\(Hex.prefixed(value, width: 2)))")
                }
            }
        }

        /// One received advertising PDU.
        public struct Report: Sendable, Hashable, WireRenderable {
            public var eventType: EventType
            public var address: LEAddress
            /// The advertising data or scan response data (AD structures), at most 31 octets.
            public var data: ArraySlice<UInt8>
            /// dBm (−127…+20); 127 means not available.
            public var rssi: Int8

            public init(eventType: EventType, address: LEAddress, data: ArraySlice<UInt8>, rssi: Int8) {
                self.eventType = eventType
                self.address = address
                self.data = data
                self.rssi = rssi
            }

            /// The RSSI in dBm, or nil when the controller reported 127 (not available).
            public var rssiIfAvailable: Int8? { rssi == 127 ? nil : rssi }
        }

        /// Data_Length is at most 31 octets (legacy advertising payload).
        public static let maximumDataLength = 31

        /// The reports, decoded on access from the validated parameter octets: decoding the
        /// event allocates nothing (a scanner sees thousands of these a second).
        public let reports: Reports

        /// Builds the event from reports (for encoding; this allocates the parameter octets).
        /// Data longer than 31 octets is not valid here (use extended advertising); the length
        /// octet then holds its count modulo 256.
        public init(reports: [Report]) {
            var writer = ByteWriter(capacity: 1 + reports.count * 42)
            writer.u8(UInt8(truncatingIfNeeded: reports.count))
            for report in reports {
                writer.u8(report.eventType.rawValue)
                writer.u8(report.address.type.rawValue)
                report.address.address.encode(into: &writer)
                writer.u8(UInt8(truncatingIfNeeded: report.data.count))
                writer.append(report.data)
                writer.i8(report.rssi)
            }
            self.reports = Reports(validated: writer.bytes[...], count: reports.count)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Advertising Report event"
            let start = reader.index
            let count = Int(try reader.u8("Num_Reports"))
            // Each report holds at least 10 octets.
            let needed = count &* 10
            if needed > reader.remaining {
                throw reader.error(
                    "Num_Reports", .truncated(needed: needed, available: reader.remaining),
                    at: reader.offset &- 1)
            }
            // Walk the reports once so that iterating them later cannot fail.
            for _ in 0..<count {
                try reader.skip(8, "Address")
                let length = Int(try reader.u8("Data_Length"))
                if length > Self.maximumDataLength {
                    throw reader.error(
                        "Data_Length", .outOfRange(value: length, allowed: 0...31), at: reader.offset &- 1)
                }
                try reader.skip(length, "Data")
                try reader.skip(1, "RSSI")
            }
            reports = Reports(validated: reader.bytes[start..<reader.index], count: count)
        }

        public func encode(into writer: inout ByteWriter) { writer.append(reports.parameters) }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.reports.parameters.elementsEqual(rhs.reports.parameters)
        }

        public func hash(into hasher: inout Hasher) {
            for byte in reports.parameters { hasher.combine(byte) }
        }

        /// The reports of one event, in order (Core 5.4 Vol 4 Part E §7.7.65.2).
        public struct Reports: Collection, Sendable, CustomRendering {
            /// Num_Reports followed by the reports, validated.
            public let parameters: ArraySlice<UInt8>
            public let count: Int

            @usableFromInline init(validated parameters: ArraySlice<UInt8>, count: Int) {
                self.parameters = parameters
                self.count = count
            }

            /// A report's position: the offset of its Event_Type octet.
            public struct Index: Comparable, Hashable, Sendable {
                @usableFromInline let offset: Int
                @usableFromInline init(_ offset: Int) { self.offset = offset }
                public static func < (lhs: Index, rhs: Index) -> Bool { lhs.offset < rhs.offset }
            }

            @inlinable public var startIndex: Index {
                Index(count == 0 ? parameters.endIndex : parameters.startIndex &+ 1)
            }
            @inlinable public var endIndex: Index { Index(parameters.endIndex) }
            @inlinable public var isEmpty: Bool { count == 0 }

            @inlinable
            public func index(after i: Index) -> Index {
                // Event_Type 1, Address_Type 1, Address 6, Data_Length 1, Data, RSSI 1.
                Index(i.offset &+ 10 &+ Int(parameters[i.offset &+ 8]))
            }

            @inlinable
            public subscript(position: Index) -> Report {
                // The octets were validated at decode time; read them without re-checking.
                let at = position.offset &- parameters.startIndex
                let fields = parameters.withUnsafeBufferPointer {
                    octets -> (type: UInt8, addressType: UInt8, address: UInt64, length: Int, rssi: UInt8) in
                    var address: UInt64 = 0
                    for i in 0..<6 { address |= UInt64(octets[at &+ 2 &+ i]) << (8 &* UInt64(i)) }
                    let length = Int(octets[at &+ 8])
                    return (octets[at], octets[at &+ 1], address, length, octets[at &+ 9 &+ length])
                }
                let dataStart = position.offset &+ 9
                return Report(
                    eventType: EventType(rawValue: fields.type),
                    address: LEAddress(
                        BluetoothAddress(fields.address), type: AddressType(rawValue: fields.addressType)),
                    data: parameters[dataStart..<(dataStart &+ fields.length)],
                    rssi: Int8(bitPattern: fields.rssi))
            }

            public var rendered: RenderedValue { .array(map { Rendering.render($0) }) }
        }

        public var rendered: RenderedValue {
            .object(name: nil, fields: [("reports", reports.rendered)])
        }
    }

    /// HCI_LE_Directed_Advertising_Report (Core 5.4 Vol 4 Part E §7.7.65.11): directed
    /// advertising (ADV_DIRECT_IND) to a resolvable private address the controller could not
    /// resolve, one or more per event, 16 octets per report.
    public struct DirectedAdvertisingReport: Sendable, Hashable, WireCodable, WireRenderable {
        public struct Report: Sendable, Hashable, WireRenderable {
            /// Always ADV_DIRECT_IND (0x01) in this version; other values kept as received.
            public var eventType: AdvertisingReport.EventType
            public var address: LEAddress
            /// The address the advertising was directed to (a random address).
            public var directAddress: LEAddress
            /// dBm (−127…+20); 127 means not available.
            public var rssi: Int8

            public init(
                eventType: AdvertisingReport.EventType = .advDirectInd, address: LEAddress,
                directAddress: LEAddress, rssi: Int8
            ) {
                self.eventType = eventType
                self.address = address
                self.directAddress = directAddress
                self.rssi = rssi
            }

            public var rssiIfAvailable: Int8? { rssi == 127 ? nil : rssi }
        }

        public var reports: [Report]

        public init(reports: [Report]) { self.reports = reports }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Directed Advertising Report event"
            let count = Int(try reader.u8("Num_Reports"))
            let needed = count &* 16
            if needed > reader.remaining {
                throw reader.error(
                    "Num_Reports", .truncated(needed: needed, available: reader.remaining),
                    at: reader.offset &- 1)
            }
            var reports: [Report] = []
            reports.reserveCapacity(count)
            for _ in 0..<count {
                let eventType = AdvertisingReport.EventType(rawValue: try reader.u8("Event_Type"))
                let type = AddressType(rawValue: try reader.u8("Address_Type"))
                let address = try BluetoothAddress(from: &reader, field: "Address")
                let directType = AddressType(rawValue: try reader.u8("Direct_Address_Type"))
                let directAddress = try BluetoothAddress(from: &reader, field: "Direct_Address")
                let rssi = try reader.i8("RSSI")
                reports.append(
                    Report(
                        eventType: eventType, address: LEAddress(address, type: type),
                        directAddress: LEAddress(directAddress, type: directType), rssi: rssi))
            }
            self.reports = reports
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(UInt8(truncatingIfNeeded: reports.count))
            for report in reports {
                writer.u8(report.eventType.rawValue)
                writer.u8(report.address.type.rawValue)
                report.address.address.encode(into: &writer)
                writer.u8(report.directAddress.type.rawValue)
                report.directAddress.address.encode(into: &writer)
                writer.i8(report.rssi)
            }
        }
    }

    /// HCI_LE_Advertising_Set_Terminated (Core 5.4 Vol 4 Part E §7.7.65.18): an extended
    /// advertising set stopped, because a connection was created (success, with its handle),
    /// its duration or event count ran out, or it failed.
    public struct AdvertisingSetTerminated: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var advertisingHandle: UInt8
        /// Valid only when `status` is success; 12 bits, reserved top bits ignored.
        public var connectionHandle: ConnectionHandle
        public var numCompletedExtendedAdvertisingEvents: UInt8

        public init(
            status: HCIStatus = .success, advertisingHandle: UInt8, connectionHandle: ConnectionHandle,
            numCompletedExtendedAdvertisingEvents: UInt8
        ) {
            self.status = status
            self.advertisingHandle = advertisingHandle
            self.connectionHandle = connectionHandle
            self.numCompletedExtendedAdvertisingEvents = numCompletedExtendedAdvertisingEvents
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Advertising Set Terminated event"
            status = HCIStatus(try reader.u8("Status"))
            advertisingHandle = try reader.u8("Advertising_Handle")
            connectionHandle = try HCIEventHandle.read(&reader)
            numCompletedExtendedAdvertisingEvents = try reader.u8("Num_Completed_Extended_Advertising_Events")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            writer.u8(advertisingHandle)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(numCompletedExtendedAdvertisingEvents)
        }
    }

    /// HCI_LE_Scan_Request_Received (Core 5.4 Vol 4 Part E §7.7.65.19): an advertising set
    /// with scan request notifications enabled received a scan request.
    public struct ScanRequestReceived: Sendable, Hashable, WireCodable, WireRenderable {
        public var advertisingHandle: UInt8
        public var scannerAddress: LEAddress

        public init(advertisingHandle: UInt8, scannerAddress: LEAddress) {
            self.advertisingHandle = advertisingHandle
            self.scannerAddress = scannerAddress
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Scan Request Received event"
            advertisingHandle = try reader.u8("Advertising_Handle")
            let type = AddressType(rawValue: try reader.u8("Scanner_Address_Type"))
            scannerAddress = LEAddress(
                try BluetoothAddress(from: &reader, field: "Scanner_Address"), type: type)
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(advertisingHandle)
            writer.u8(scannerAddress.type.rawValue)
            scannerAddress.address.encode(into: &writer)
        }
    }
}
