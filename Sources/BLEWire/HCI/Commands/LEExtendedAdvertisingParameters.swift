// Extended advertising set parameters (Core 5.4 Vol 4 Part E §7.8.52, §7.8.53).

extension HCI {
    /// Advertising_Event_Properties (Core 5.4 Vol 4 Part E §7.8.53): the kind of advertising an
    /// extended advertising set does. Unknown bits are kept.
    public struct AdvertisingEventProperties: OptionSet, Hashable, Sendable, CustomRendering {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let connectable = AdvertisingEventProperties(rawValue: 1 << 0)
        public static let scannable = AdvertisingEventProperties(rawValue: 1 << 1)
        public static let directed = AdvertisingEventProperties(rawValue: 1 << 2)
        public static let highDutyCycleDirectedConnectable = AdvertisingEventProperties(rawValue: 1 << 3)
        /// Use legacy advertising PDUs (then only the legacy combinations are allowed).
        public static let legacy = AdvertisingEventProperties(rawValue: 1 << 4)
        /// Omit the advertiser's address from all PDUs.
        public static let anonymous = AdvertisingEventProperties(rawValue: 1 << 5)
        /// Include TxPower in the extended header of at least one PDU.
        public static let includeTxPower = AdvertisingEventProperties(rawValue: 1 << 6)

        static let bitNames: [(Int, String)] = [
            (0, "connectable"), (1, "scannable"), (2, "directed"), (3, "highDutyCycleDirectedConnectable"),
            (4, "legacy"), (5, "anonymous"), (6, "includeTxPower"),
        ]

        public var rendered: RenderedValue {
            HCI.renderBits(UInt64(rawValue), width: 16, names: Self.bitNames)
        }
    }

    /// HCI_LE_Set_Advertising_Set_Random_Address (Core 5.4 Vol 4 Part E §7.8.52).
    public struct LESetAdvertisingSetRandomAddress: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0035)
        public static let name = "LE Set Advertising Set Random Address"

        public var advertisingHandle: UInt8
        public var randomAddress: BluetoothAddress

        public init(advertisingHandle: UInt8, randomAddress: BluetoothAddress) {
            self.advertisingHandle = advertisingHandle
            self.randomAddress = randomAddress
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Advertising Set Random Address"
            advertisingHandle = try reader.u8("Advertising_Handle")
            randomAddress = try BluetoothAddress(from: &reader, field: "Random_Address")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(advertisingHandle)
            randomAddress.encode(into: &writer)
        }
    }

    /// HCI_LE_Set_Extended_Advertising_Parameters [v1] (Core 5.4 Vol 4 Part E §7.8.53): creates
    /// or changes an advertising set (25 octets).
    public struct LESetExtendedAdvertisingParameters: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0036)
        public static let name = "LE Set Extended Advertising Parameters"

        /// Advertising_TX_Power value meaning "host has no preference".
        public static let noTXPowerPreference: Int8 = 0x7F

        public var advertisingHandle: UInt8
        public var advertisingEventProperties: AdvertisingEventProperties
        /// Primary_Advertising_Interval_Min in 0.625 ms units (24 bits on the wire).
        public var primaryAdvertisingIntervalMin: UInt32
        /// Primary_Advertising_Interval_Max in 0.625 ms units (24 bits on the wire).
        public var primaryAdvertisingIntervalMax: UInt32
        public var primaryAdvertisingChannelMap: AdvertisingChannelMap
        public var ownAddressType: OwnAddressType
        public var peerAddressType: AddressType
        public var peerAddress: BluetoothAddress
        public var advertisingFilterPolicy: AdvertisingFilterPolicy
        /// Advertising_TX_Power in dBm, or `noTXPowerPreference`.
        public var advertisingTXPower: Int8
        /// Primary_Advertising_PHY: LE 1M or LE Coded.
        public var primaryAdvertisingPHY: PHY.HCIValue
        public var secondaryAdvertisingMaxSkip: UInt8
        public var secondaryAdvertisingPHY: PHY.HCIValue
        /// Advertising_SID (0x00–0x0F), the set's identifier in the ADI field.
        public var advertisingSID: UInt8
        public var scanRequestNotificationEnable: Bool

        public init(
            advertisingHandle: UInt8 = 0, advertisingEventProperties: AdvertisingEventProperties,
            primaryAdvertisingIntervalMin: UInt32 = 0x0800, primaryAdvertisingIntervalMax: UInt32 = 0x0800,
            primaryAdvertisingChannelMap: AdvertisingChannelMap = .all,
            ownAddressType: OwnAddressType = .public,
            peerAddressType: AddressType = .public, peerAddress: BluetoothAddress = .zero,
            advertisingFilterPolicy: AdvertisingFilterPolicy = .acceptAll,
            advertisingTXPower: Int8 = 0x7F, primaryAdvertisingPHY: PHY.HCIValue = PHY.le1M.hci,
            secondaryAdvertisingMaxSkip: UInt8 = 0, secondaryAdvertisingPHY: PHY.HCIValue = PHY.le1M.hci,
            advertisingSID: UInt8 = 0, scanRequestNotificationEnable: Bool = false
        ) {
            self.advertisingHandle = advertisingHandle
            self.advertisingEventProperties = advertisingEventProperties
            self.primaryAdvertisingIntervalMin = primaryAdvertisingIntervalMin
            self.primaryAdvertisingIntervalMax = primaryAdvertisingIntervalMax
            self.primaryAdvertisingChannelMap = primaryAdvertisingChannelMap
            self.ownAddressType = ownAddressType
            self.peerAddressType = peerAddressType
            self.peerAddress = peerAddress
            self.advertisingFilterPolicy = advertisingFilterPolicy
            self.advertisingTXPower = advertisingTXPower
            self.primaryAdvertisingPHY = primaryAdvertisingPHY
            self.secondaryAdvertisingMaxSkip = secondaryAdvertisingMaxSkip
            self.secondaryAdvertisingPHY = secondaryAdvertisingPHY
            self.advertisingSID = advertisingSID
            self.scanRequestNotificationEnable = scanRequestNotificationEnable
        }

        public var primaryAdvertisingIntervalMinMilliseconds: Double {
            HCI.slotsToMilliseconds(primaryAdvertisingIntervalMin)
        }
        public var primaryAdvertisingIntervalMaxMilliseconds: Double {
            HCI.slotsToMilliseconds(primaryAdvertisingIntervalMax)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Extended Advertising Parameters"
            try self.init(fieldsFrom: &reader)
        }

        /// The 25 octets shared by both versions, without setting the reader's context.
        init(fieldsFrom reader: inout ByteReader) throws(DecodeError) {
            advertisingHandle = try reader.u8("Advertising_Handle")
            advertisingEventProperties = AdvertisingEventProperties(
                rawValue: try reader.u16("Advertising_Event_Properties"))
            primaryAdvertisingIntervalMin = try reader.u24("Primary_Advertising_Interval_Min")
            primaryAdvertisingIntervalMax = try reader.u24("Primary_Advertising_Interval_Max")
            primaryAdvertisingChannelMap = AdvertisingChannelMap(
                rawValue: try reader.u8("Primary_Advertising_Channel_Map"))
            ownAddressType = OwnAddressType(rawValue: try reader.u8("Own_Address_Type"))
            peerAddressType = AddressType(rawValue: try reader.u8("Peer_Address_Type"))
            peerAddress = try BluetoothAddress(from: &reader, field: "Peer_Address")
            advertisingFilterPolicy = AdvertisingFilterPolicy(
                rawValue: try reader.u8("Advertising_Filter_Policy"))
            advertisingTXPower = try reader.i8("Advertising_TX_Power")
            primaryAdvertisingPHY = PHY.HCIValue(rawValue: try reader.u8("Primary_Advertising_PHY"))
            secondaryAdvertisingMaxSkip = try reader.u8("Secondary_Advertising_Max_Skip")
            secondaryAdvertisingPHY = PHY.HCIValue(rawValue: try reader.u8("Secondary_Advertising_PHY"))
            advertisingSID = try reader.u8("Advertising_SID")
            scanRequestNotificationEnable = try HCI.readFlag(&reader, "Scan_Request_Notification_Enable")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(advertisingHandle)
            writer.u16(advertisingEventProperties.rawValue)
            writer.u24(primaryAdvertisingIntervalMin)
            writer.u24(primaryAdvertisingIntervalMax)
            writer.u8(primaryAdvertisingChannelMap.rawValue)
            writer.u8(ownAddressType.rawValue)
            writer.u8(peerAddressType.rawValue)
            peerAddress.encode(into: &writer)
            writer.u8(advertisingFilterPolicy.rawValue)
            writer.i8(advertisingTXPower)
            writer.u8(primaryAdvertisingPHY.rawValue)
            writer.u8(secondaryAdvertisingMaxSkip)
            writer.u8(secondaryAdvertisingPHY.rawValue)
            writer.u8(advertisingSID)
            writer.u8(scanRequestNotificationEnable ? 1 : 0)
        }

        /// Both versions return the transmit power the controller chose.
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            /// Selected_TX_Power in dBm.
            public var selectedTXPower: Int8 = 0

            public init(status: HCIStatus = .success, selectedTXPower: Int8) {
                self.status = status
                self.selectedTXPower = selectedTXPower
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Set Extended Advertising Parameters return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                selectedTXPower = try reader.i8("Selected_TX_Power")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.i8(selectedTXPower)
            }
        }
    }

    /// HCI_LE_Set_Extended_Advertising_Parameters [v2] (Core 5.4 Vol 4 Part E §7.8.53): the v1
    /// parameters followed by the coding preferences for the LE Coded PHY (27 octets).
    public struct LESetExtendedAdvertisingParametersV2: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = LESetExtendedAdvertisingParameters.ReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x007F)
        public static let name = "LE Set Extended Advertising Parameters [v2]"

        /// The 25 octets the two versions share.
        public var parameters: LESetExtendedAdvertisingParameters
        public var primaryAdvertisingPHYOptions: AdvertisingPHYOptions
        public var secondaryAdvertisingPHYOptions: AdvertisingPHYOptions

        public init(
            parameters: LESetExtendedAdvertisingParameters,
            primaryAdvertisingPHYOptions: AdvertisingPHYOptions = .noPreference,
            secondaryAdvertisingPHYOptions: AdvertisingPHYOptions = .noPreference
        ) {
            self.parameters = parameters
            self.primaryAdvertisingPHYOptions = primaryAdvertisingPHYOptions
            self.secondaryAdvertisingPHYOptions = secondaryAdvertisingPHYOptions
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Extended Advertising Parameters [v2]"
            parameters = try LESetExtendedAdvertisingParameters(fieldsFrom: &reader)
            primaryAdvertisingPHYOptions = AdvertisingPHYOptions(
                rawValue: try reader.u8("Primary_Advertising_PHY_Options"))
            secondaryAdvertisingPHYOptions = AdvertisingPHYOptions(
                rawValue: try reader.u8("Secondary_Advertising_PHY_Options"))
        }

        public func encode(into writer: inout ByteWriter) {
            parameters.encode(into: &writer)
            writer.u8(primaryAdvertisingPHYOptions.rawValue)
            writer.u8(secondaryAdvertisingPHYOptions.rawValue)
        }
    }
}
