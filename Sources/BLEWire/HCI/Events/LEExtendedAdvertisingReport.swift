extension LEMetaEvent {
    /// HCI_LE_Extended_Advertising_Report (Core 5.4 Vol 4 Part E §7.7.65.13): legacy or
    /// extended advertising received while extended scanning, one or more reports per event.
    ///
    /// Each report is 24 fixed octets and Data_Length octets of data, one after another.
    /// Decoding checks Num_Reports against the octets present before allocating the one array of
    /// reports; each report's data is a slice of the input. Long advertising data arrives in
    /// several reports: `eventType.dataStatus` says whether more follows.
    public struct ExtendedAdvertisingReport: Sendable, Hashable, WireCodable, WireRenderable {
        /// Event_Type bit field (§7.7.65.13): PDU properties in bits 0–4, data status in bits
        /// 5–6. Reserved bits are kept as received.
        public struct EventType: OptionSet, Sendable, Hashable, CustomRendering {
            public let rawValue: UInt16

            public init(rawValue: UInt16) { self.rawValue = rawValue }

            public static let connectable = EventType(rawValue: 1 << 0)
            public static let scannable = EventType(rawValue: 1 << 1)
            public static let directed = EventType(rawValue: 1 << 2)
            public static let scanResponse = EventType(rawValue: 1 << 3)
            /// The report is of a legacy advertising PDU.
            public static let legacy = EventType(rawValue: 1 << 4)

            /// Bits 5–6.
            public var dataStatus: DataStatus {
                get { DataStatus(bits: UInt8(truncatingIfNeeded: rawValue >> 5)) }
                set {
                    self = EventType(
                        rawValue: rawValue & ~(0b11 << 5) | UInt16(newValue.rawValue & 0b11) << 5)
                }
            }

            /// The legacy PDU this event type denotes, when the legacy bit is set and the bits
            /// form one of the combinations the specification allows for legacy PDUs.
            public var legacyEventType: AdvertisingReport.EventType? {
                switch rawValue & 0b111_1111 {
                case 0b001_0011: .advInd
                case 0b001_0101: .advDirectInd
                case 0b001_0010: .advScanInd
                case 0b001_0000: .advNonconnInd
                case 0b001_1011, 0b001_1010: .scanRsp
                default: nil
                }
            }

            public var rendered: RenderedValue {
                var names: [String] = []
                if contains(.connectable) { names.append("connectable") }
                if contains(.scannable) { names.append("scannable") }
                if contains(.directed) { names.append("directed") }
                if contains(.scanResponse) { names.append("scanResponse") }
                if contains(.legacy) { names.append("legacy") }
                let status: String
                switch dataStatus {
                case .complete: status = "complete"
                case .incompleteMoreToCome: status = "incomplete, more to come"
                case .incompleteTruncated: status = "incomplete, truncated"
                case .reserved: status = "reserved data status"
                }
                let flags = names.isEmpty ? "none" : names.joined(separator: "|")
                return .symbol("\(flags), \(status) (\(Hex.prefixed(rawValue, width: 4)))")
            }
        }

        /// Data status of Event_Type bits 5–6.
        public enum DataStatus: Sendable, Hashable {
            /// 0b00: the data is complete.
            case complete
            /// 0b01: incomplete; more reports with the rest follow.
            case incompleteMoreToCome
            /// 0b10: incomplete; the data was truncated and no more follows.
            case incompleteTruncated
            /// 0b11: reserved.
            case reserved

            /// From the low two bits of `bits`.
            public init(bits: UInt8) {
                switch bits & 0b11 {
                case 0b00: self = .complete
                case 0b01: self = .incompleteMoreToCome
                case 0b10: self = .incompleteTruncated
                default: self = .reserved
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .complete: 0b00
                case .incompleteMoreToCome: 0b01
                case .incompleteTruncated: 0b10
                case .reserved: 0b11
                }
            }
        }

        /// One received advertising report.
        public struct Report: Sendable, Hashable, WireRenderable {
            public var eventType: EventType
            /// The advertiser; type 0xFF (`.other(0xFF)`) means anonymous (no address sent).
            public var address: LEAddress
            /// 0x01 LE 1M or 0x03 LE Coded.
            public var primaryPHY: PHY.HCIValue
            /// nil (0x00) when no packets were received on the secondary advertising channel.
            public var secondaryPHY: PHY.HCIValue?
            /// 0x00–0x0F; 0xFF when the PDU had no ADI field.
            public var advertisingSID: UInt8
            /// dBm (−127…+20); 127 means not available.
            public var txPower: Int8
            /// dBm (−127…+20); 127 means not available.
            public var rssi: Int8
            /// Units of 1.25 ms; 0 when there is no periodic advertising.
            public var periodicAdvertisingInterval: UInt16
            /// For directed advertising, the address it was directed to (type 0xFE: a random
            /// address the controller could not resolve).
            public var directAddress: LEAddress
            public var data: ArraySlice<UInt8>

            public init(
                eventType: EventType, address: LEAddress, primaryPHY: PHY.HCIValue = PHY.le1M.hci,
                secondaryPHY: PHY.HCIValue? = nil,
                advertisingSID: UInt8 = 0xFF, txPower: Int8 = 127, rssi: Int8,
                periodicAdvertisingInterval: UInt16 = 0,
                directAddress: LEAddress = LEAddress(.zero, type: .public), data: ArraySlice<UInt8>
            ) {
                self.eventType = eventType
                self.address = address
                self.primaryPHY = primaryPHY
                self.secondaryPHY = secondaryPHY
                self.advertisingSID = advertisingSID
                self.txPower = txPower
                self.rssi = rssi
                self.periodicAdvertisingInterval = periodicAdvertisingInterval
                self.directAddress = directAddress
                self.data = data
            }

            /// True when the advertiser sent no address (Address_Type 0xFF).
            public var isAnonymous: Bool { address.type == .other(0xFF) }
            public var rssiIfAvailable: Int8? { rssi == 127 ? nil : rssi }
            public var txPowerIfAvailable: Int8? { txPower == 127 ? nil : txPower }
            public var periodicAdvertisingIntervalMilliseconds: Double {
                HCIEventUnits.interval(periodicAdvertisingInterval)
            }
        }

        /// The most data one report can carry in one event (255 − 2 − 24 octets).
        public static let maximumDataLength = 229

        public var reports: [Report]

        public init(reports: [Report]) { self.reports = reports }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Extended Advertising Report event"
            let count = Int(try reader.u8("Num_Reports"))
            // Each report holds at least 24 octets: check the count before allocating.
            let needed = count &* 24
            if needed > reader.remaining {
                throw reader.error(
                    "Num_Reports", .truncated(needed: needed, available: reader.remaining),
                    at: reader.offset &- 1)
            }
            var reports: [Report] = []
            reports.reserveCapacity(count)
            for _ in 0..<count {
                reports.append(try Self.report(from: &reader))
            }
            self.reports = reports
        }

        private static func report(from reader: inout ByteReader) throws(DecodeError) -> Report {
            let eventType = EventType(rawValue: try reader.u16("Event_Type"))
            let type = AddressType(rawValue: try reader.u8("Address_Type"))
            let address = try BluetoothAddress(from: &reader, field: "Address")
            let primaryPHY = PHY.HCIValue(rawValue: try reader.u8("Primary_PHY"))
            let secondaryRaw = try reader.u8("Secondary_PHY")
            let advertisingSID = try reader.u8("Advertising_SID")
            let txPower = try reader.i8("TX_Power")
            let rssi = try reader.i8("RSSI")
            let interval = try reader.u16("Periodic_Advertising_Interval")
            let directType = AddressType(rawValue: try reader.u8("Direct_Address_Type"))
            let directAddress = try BluetoothAddress(from: &reader, field: "Direct_Address")
            let length = Int(try reader.u8("Data_Length"))
            if length > 229 {
                throw reader.error(
                    "Data_Length", .outOfRange(value: length, allowed: 0...229), at: reader.offset &- 1)
            }
            let data = try reader.take(length, "Data")
            return Report(
                eventType: eventType, address: LEAddress(address, type: type), primaryPHY: primaryPHY,
                secondaryPHY: secondaryRaw == 0 ? nil : PHY.HCIValue(rawValue: secondaryRaw),
                advertisingSID: advertisingSID, txPower: txPower, rssi: rssi,
                periodicAdvertisingInterval: interval,
                directAddress: LEAddress(directAddress, type: directType),
                data: data)
        }

        /// Writes Num_Reports and the reports. Keep each report's data within 229 octets and the
        /// whole event within 255; longer data is split over reports by the data status.
        public func encode(into writer: inout ByteWriter) {
            writer.u8(UInt8(truncatingIfNeeded: reports.count))
            for report in reports {
                writer.u16(report.eventType.rawValue)
                writer.u8(report.address.type.rawValue)
                report.address.address.encode(into: &writer)
                writer.u8(report.primaryPHY.rawValue)
                writer.u8(report.secondaryPHY?.rawValue ?? 0)
                writer.u8(report.advertisingSID)
                writer.i8(report.txPower)
                writer.i8(report.rssi)
                writer.u16(report.periodicAdvertisingInterval)
                writer.u8(report.directAddress.type.rawValue)
                report.directAddress.address.encode(into: &writer)
                writer.u8(UInt8(truncatingIfNeeded: report.data.count))
                writer.append(report.data)
            }
        }
    }
}
