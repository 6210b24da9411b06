// Extended advertising data, enabling and set management (Core 5.4 Vol 4 Part E §7.8.54–
// §7.8.60).

extension HCI {
    /// Operation of LE Set Extended Advertising/Scan Response Data (Core 5.4 Vol 4 Part E
    /// §7.8.54): how this fragment relates to the set's data.
    public enum AdvertisingDataOperation: Hashable, Sendable {
        case intermediateFragment
        case firstFragment
        case lastFragment
        case completeData
        /// Keep the data, only change the Advertising DID (no data octets).
        case unchangedData
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .intermediateFragment
            case 0x01: self = .firstFragment
            case 0x02: self = .lastFragment
            case 0x03: self = .completeData
            case 0x04: self = .unchangedData
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .intermediateFragment: 0x00
            case .firstFragment: 0x01
            case .lastFragment: 0x02
            case .completeData: 0x03
            case .unchangedData: 0x04
            case .other(let value): value
            }
        }
    }

    /// Fragment_Preference (Core 5.4 Vol 4 Part E §7.8.54): whether the controller may split the
    /// data over several PDUs.
    public enum FragmentPreference: Hashable, Sendable {
        case mayFragment
        case shouldNotFragment
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .mayFragment
            case 0x01: self = .shouldNotFragment
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .mayFragment: 0x00
            case .shouldNotFragment: 0x01
            case .other(let value): value
            }
        }
    }

    /// HCI_LE_Set_Extended_Advertising_Data (Core 5.4 Vol 4 Part E §7.8.54): one fragment of up
    /// to 251 octets of a set's advertising data.
    public struct LESetExtendedAdvertisingData: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0037)
        public static let name = "LE Set Extended Advertising Data"

        /// Octets one command can carry (255 parameter octets less the 4-octet header).
        public static let maximumFragmentLength = 251

        public var advertisingHandle: UInt8
        public var operation: AdvertisingDataOperation
        public var fragmentPreference: FragmentPreference
        /// At most 251 octets (a slice of the input); encoding sends only the first 251.
        public var advertisingData: ArraySlice<UInt8>

        public init(
            advertisingHandle: UInt8, operation: AdvertisingDataOperation = .completeData,
            fragmentPreference: FragmentPreference = .mayFragment, advertisingData: ArraySlice<UInt8>
        ) {
            self.advertisingHandle = advertisingHandle
            self.operation = operation
            self.fragmentPreference = fragmentPreference
            self.advertisingData = advertisingData
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Extended Advertising Data"
            advertisingHandle = try reader.u8("Advertising_Handle")
            operation = AdvertisingDataOperation(rawValue: try reader.u8("Operation"))
            fragmentPreference = FragmentPreference(rawValue: try reader.u8("Fragment_Preference"))
            advertisingData = try HCI.readExtendedData(&reader, "Advertising_Data_Length", "Advertising_Data")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(advertisingHandle)
            writer.u8(operation.rawValue)
            writer.u8(fragmentPreference.rawValue)
            HCI.writeExtendedData(advertisingData, into: &writer)
        }
    }

    /// HCI_LE_Set_Extended_Scan_Response_Data (Core 5.4 Vol 4 Part E §7.8.55): same layout as
    /// `LESetExtendedAdvertisingData`.
    public struct LESetExtendedScanResponseData: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0038)
        public static let name = "LE Set Extended Scan Response Data"

        public var advertisingHandle: UInt8
        public var operation: AdvertisingDataOperation
        public var fragmentPreference: FragmentPreference
        /// At most 251 octets (a slice of the input); encoding sends only the first 251.
        public var scanResponseData: ArraySlice<UInt8>

        public init(
            advertisingHandle: UInt8, operation: AdvertisingDataOperation = .completeData,
            fragmentPreference: FragmentPreference = .mayFragment, scanResponseData: ArraySlice<UInt8>
        ) {
            self.advertisingHandle = advertisingHandle
            self.operation = operation
            self.fragmentPreference = fragmentPreference
            self.scanResponseData = scanResponseData
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Extended Scan Response Data"
            advertisingHandle = try reader.u8("Advertising_Handle")
            operation = AdvertisingDataOperation(rawValue: try reader.u8("Operation"))
            fragmentPreference = FragmentPreference(rawValue: try reader.u8("Fragment_Preference"))
            scanResponseData = try HCI.readExtendedData(
                &reader, "Scan_Response_Data_Length", "Scan_Response_Data")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(advertisingHandle)
            writer.u8(operation.rawValue)
            writer.u8(fragmentPreference.rawValue)
            HCI.writeExtendedData(scanResponseData, into: &writer)
        }
    }

    /// HCI_LE_Set_Extended_Advertising_Enable (Core 5.4 Vol 4 Part E §7.8.56): enables or
    /// disables a list of sets. The per-set arrays are interleaved on the wire (§5.2): handle,
    /// duration and maximum events of set 0, then of set 1, …
    public struct LESetExtendedAdvertisingEnable: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0039)
        public static let name = "LE Set Extended Advertising Enable"

        /// The most sets one command can name (Num_Sets 0x01–0x3F).
        public static let maximumSets = 0x3F

        /// One entry of the set list.
        public struct AdvertisingSet: Hashable, Sendable {
            public var advertisingHandle: UInt8
            /// Duration in 10 ms units; 0 advertises until disabled.
            public var duration: UInt16
            /// Max_Extended_Advertising_Events; 0 means no maximum.
            public var maxExtendedAdvertisingEvents: UInt8

            public init(
                advertisingHandle: UInt8, duration: UInt16 = 0, maxExtendedAdvertisingEvents: UInt8 = 0
            ) {
                self.advertisingHandle = advertisingHandle
                self.duration = duration
                self.maxExtendedAdvertisingEvents = maxExtendedAdvertisingEvents
            }

            public var durationMilliseconds: Double { HCI.tenMillisecondsToMilliseconds(duration) }
        }

        public var enable: Bool
        /// The sets; an empty list with `enable == false` disables all sets. Encoding sends at most
        /// `maximumSets`.
        public var sets: [AdvertisingSet]

        public init(enable: Bool, sets: [AdvertisingSet]) {
            self.enable = enable
            self.sets = sets
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Extended Advertising Enable"
            enable = try HCI.readFlag(&reader, "Enable")
            let countOffset = reader.offset
            let count = Int(try reader.u8("Num_Sets"))
            // Each set takes 4 octets; the count must match what is present before allocating.
            if reader.remaining != count &* 4 {
                throw reader.error(
                    "Num_Sets", .lengthMismatch(declared: count &* 4, actual: reader.remaining),
                    at: countOffset)
            }
            var sets: [AdvertisingSet] = []
            sets.reserveCapacity(count)
            for _ in 0..<count {
                let handle = try reader.u8("Advertising_Handle")
                let duration = try reader.u16("Duration")
                let maxEvents = try reader.u8("Max_Extended_Advertising_Events")
                sets.append(
                    AdvertisingSet(
                        advertisingHandle: handle, duration: duration, maxExtendedAdvertisingEvents: maxEvents
                    ))
            }
            self.sets = sets
        }

        public func encode(into writer: inout ByteWriter) {
            let sent = sets.prefix(Self.maximumSets)
            writer.u8(enable ? 1 : 0)
            writer.u8(UInt8(sent.count))
            for set in sent {
                writer.u8(set.advertisingHandle)
                writer.u16(set.duration)
                writer.u8(set.maxExtendedAdvertisingEvents)
            }
        }
    }

    /// HCI_LE_Read_Maximum_Advertising_Data_Length (Core 5.4 Vol 4 Part E §7.8.57).
    public struct LEReadMaximumAdvertisingDataLength: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x003A)
        public static let name = "LE Read Maximum Advertising Data Length"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.57).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            /// Octets of advertising or scan response data a set can hold (0x001F–0x0672).
            public var maxAdvertisingDataLength: UInt16 = 0

            public init(status: HCIStatus = .success, maxAdvertisingDataLength: UInt16) {
                self.status = status
                self.maxAdvertisingDataLength = maxAdvertisingDataLength
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Maximum Advertising Data Length return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                maxAdvertisingDataLength = try reader.u16("Max_Advertising_Data_Length")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(maxAdvertisingDataLength)
            }
        }
    }

    /// HCI_LE_Read_Number_of_Supported_Advertising_Sets (Core 5.4 Vol 4 Part E §7.8.58).
    public struct LEReadNumberOfSupportedAdvertisingSets: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x003B)
        public static let name = "LE Read Number of Supported Advertising Sets"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.58).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var numSupportedAdvertisingSets: UInt8 = 0

            public init(status: HCIStatus = .success, numSupportedAdvertisingSets: UInt8) {
                self.status = status
                self.numSupportedAdvertisingSets = numSupportedAdvertisingSets
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Number of Supported Advertising Sets return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                numSupportedAdvertisingSets = try reader.u8("Num_Supported_Advertising_Sets")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u8(numSupportedAdvertisingSets)
            }
        }
    }

    /// HCI_LE_Remove_Advertising_Set (Core 5.4 Vol 4 Part E §7.8.59).
    public struct LERemoveAdvertisingSet: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x003C)
        public static let name = "LE Remove Advertising Set"

        public var advertisingHandle: UInt8

        public init(advertisingHandle: UInt8) { self.advertisingHandle = advertisingHandle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Remove Advertising Set"
            advertisingHandle = try reader.u8("Advertising_Handle")
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(advertisingHandle) }
    }

    /// HCI_LE_Clear_Advertising_Sets (Core 5.4 Vol 4 Part E §7.8.60).
    public struct LEClearAdvertisingSets: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x003D)
        public static let name = "LE Clear Advertising Sets"

        public init() {}
    }
}

extension HCI {
    /// Reads a data length octet and exactly that many octets, which must end the command; more
    /// than 251 cannot fit in one command and is rejected.
    static func readExtendedData(
        _ reader: inout ByteReader, _ lengthField: StaticString, _ dataField: StaticString
    ) throws(DecodeError) -> ArraySlice<UInt8> {
        let offset = reader.offset
        let length = Int(try reader.u8(lengthField))
        let maximum = LESetExtendedAdvertisingData.maximumFragmentLength
        if length > maximum {
            throw reader.error(lengthField, .outOfRange(value: length, allowed: 0...maximum), at: offset)
        }
        if length != reader.remaining {
            throw reader.error(
                lengthField, .lengthMismatch(declared: length, actual: reader.remaining), at: offset)
        }
        return try reader.take(length, dataField)
    }

    static func writeExtendedData(_ data: ArraySlice<UInt8>, into writer: inout ByteWriter) {
        let sent = data.prefix(LESetExtendedAdvertisingData.maximumFragmentLength)
        writer.u8(UInt8(sent.count))
        writer.append(sent)
    }
}
