// Legacy advertising commands (Core 5.4 Vol 4 Part E §7.8.5–§7.8.9).

extension HCI {
    /// HCI_LE_Set_Advertising_Parameters (Core 5.4 Vol 4 Part E §7.8.5).
    public struct LESetAdvertisingParameters: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0006)
        public static let name = "LE Set Advertising Parameters"

        /// Advertising_Interval_Min in 0.625 ms units (0x0020–0x4000; default 0x0800, 1.28 s).
        public var advertisingIntervalMin: UInt16
        /// Advertising_Interval_Max in 0.625 ms units.
        public var advertisingIntervalMax: UInt16
        public var advertisingType: AdvertisingType
        public var ownAddressType: OwnAddressType
        /// Peer_Address_Type (directed advertising and resolvable own addresses): public or random.
        public var peerAddressType: AddressType
        public var peerAddress: BluetoothAddress
        public var advertisingChannelMap: AdvertisingChannelMap
        public var advertisingFilterPolicy: AdvertisingFilterPolicy

        public init(
            advertisingIntervalMin: UInt16 = 0x0800, advertisingIntervalMax: UInt16 = 0x0800,
            advertisingType: AdvertisingType = .connectableUndirected,
            ownAddressType: OwnAddressType = .public,
            peerAddressType: AddressType = .public, peerAddress: BluetoothAddress = .zero,
            advertisingChannelMap: AdvertisingChannelMap = .all,
            advertisingFilterPolicy: AdvertisingFilterPolicy = .acceptAll
        ) {
            self.advertisingIntervalMin = advertisingIntervalMin
            self.advertisingIntervalMax = advertisingIntervalMax
            self.advertisingType = advertisingType
            self.ownAddressType = ownAddressType
            self.peerAddressType = peerAddressType
            self.peerAddress = peerAddress
            self.advertisingChannelMap = advertisingChannelMap
            self.advertisingFilterPolicy = advertisingFilterPolicy
        }

        public var advertisingIntervalMinMilliseconds: Double {
            HCI.slotsToMilliseconds(UInt32(advertisingIntervalMin))
        }
        public var advertisingIntervalMaxMilliseconds: Double {
            HCI.slotsToMilliseconds(UInt32(advertisingIntervalMax))
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Advertising Parameters"
            advertisingIntervalMin = try reader.u16("Advertising_Interval_Min")
            advertisingIntervalMax = try reader.u16("Advertising_Interval_Max")
            advertisingType = AdvertisingType(rawValue: try reader.u8("Advertising_Type"))
            ownAddressType = OwnAddressType(rawValue: try reader.u8("Own_Address_Type"))
            peerAddressType = AddressType(rawValue: try reader.u8("Peer_Address_Type"))
            peerAddress = try BluetoothAddress(from: &reader, field: "Peer_Address")
            advertisingChannelMap = AdvertisingChannelMap(rawValue: try reader.u8("Advertising_Channel_Map"))
            advertisingFilterPolicy = AdvertisingFilterPolicy(
                rawValue: try reader.u8("Advertising_Filter_Policy"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(advertisingIntervalMin)
            writer.u16(advertisingIntervalMax)
            writer.u8(advertisingType.rawValue)
            writer.u8(ownAddressType.rawValue)
            writer.u8(peerAddressType.rawValue)
            peerAddress.encode(into: &writer)
            writer.u8(advertisingChannelMap.rawValue)
            writer.u8(advertisingFilterPolicy.rawValue)
        }
    }

    /// HCI_LE_Read_Advertising_Physical_Channel_Tx_Power (Core 5.4 Vol 4 Part E §7.8.6).
    public struct LEReadAdvertisingPhysicalChannelTxPower: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0007)
        public static let name = "LE Read Advertising Physical Channel Tx Power"

        public init() {}
        public init(from reader: inout ByteReader) throws(DecodeError) {}
        public func encode(into writer: inout ByteWriter) {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.6).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            /// TX_Power_Level in dBm.
            public var txPowerLevel: Int8 = 0

            public init(status: HCIStatus = .success, txPowerLevel: Int8) {
                self.status = status
                self.txPowerLevel = txPowerLevel
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Advertising Physical Channel Tx Power return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                txPowerLevel = try reader.i8("TX_Power_Level")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.i8(txPowerLevel)
            }
        }
    }

    /// HCI_LE_Set_Advertising_Data (Core 5.4 Vol 4 Part E §7.8.7).
    ///
    /// The command always carries 32 octets: the length and a 31-octet field of which only the
    /// first `Advertising_Data_Length` are significant. `advertisingData` is that significant
    /// part (a slice of the input); encoding pads with zeros.
    public struct LESetAdvertisingData: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0008)
        public static let name = "LE Set Advertising Data"

        /// Octets of advertising data a legacy advertising PDU can carry.
        public static let maximumLength = 31

        /// At most 31 octets; encoding sends only the first 31.
        public var advertisingData: ArraySlice<UInt8>

        public init(advertisingData: ArraySlice<UInt8>) { self.advertisingData = advertisingData }
        public init(advertisingData: [UInt8]) { self.advertisingData = advertisingData[...] }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Advertising Data"
            advertisingData = try HCI.readLegacyData(&reader, "Advertising_Data_Length", "Advertising_Data")
        }

        public func encode(into writer: inout ByteWriter) {
            HCI.writeLegacyData(advertisingData, into: &writer)
        }
    }

    /// HCI_LE_Set_Scan_Response_Data (Core 5.4 Vol 4 Part E §7.8.8): same layout as
    /// `LESetAdvertisingData`.
    public struct LESetScanResponseData: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0009)
        public static let name = "LE Set Scan Response Data"

        /// At most 31 octets; encoding sends only the first 31.
        public var scanResponseData: ArraySlice<UInt8>

        public init(scanResponseData: ArraySlice<UInt8>) { self.scanResponseData = scanResponseData }
        public init(scanResponseData: [UInt8]) { self.scanResponseData = scanResponseData[...] }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Scan Response Data"
            scanResponseData = try HCI.readLegacyData(
                &reader, "Scan_Response_Data_Length", "Scan_Response_Data")
        }

        public func encode(into writer: inout ByteWriter) {
            HCI.writeLegacyData(scanResponseData, into: &writer)
        }
    }

    /// HCI_LE_Set_Advertising_Enable (Core 5.4 Vol 4 Part E §7.8.9).
    public struct LESetAdvertisingEnable: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x000A)
        public static let name = "LE Set Advertising Enable"

        public var advertisingEnable: Bool

        public init(advertisingEnable: Bool) { self.advertisingEnable = advertisingEnable }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Advertising Enable"
            advertisingEnable = try HCI.readFlag(&reader, "Advertising_Enable")
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(advertisingEnable ? 1 : 0) }
    }
}

extension HCI {
    /// Reads the length octet and the fixed 31-octet field of legacy advertising or scan response
    /// data, returning the significant part. A length above 31 cannot be honoured and is rejected.
    static func readLegacyData(
        _ reader: inout ByteReader, _ lengthField: StaticString, _ dataField: StaticString
    ) throws(DecodeError) -> ArraySlice<UInt8> {
        let offset = reader.offset
        let length = Int(try reader.u8(lengthField))
        let maximum = LESetAdvertisingData.maximumLength
        if length > maximum {
            throw reader.error(lengthField, .outOfRange(value: length, allowed: 0...maximum), at: offset)
        }
        let field = try reader.take(maximum, dataField)
        return field.prefix(length)
    }

    static func writeLegacyData(_ data: ArraySlice<UInt8>, into writer: inout ByteWriter) {
        let significant = data.prefix(LESetAdvertisingData.maximumLength)
        writer.u8(UInt8(significant.count))
        writer.append(significant)
        for _ in significant.count..<LESetAdvertisingData.maximumLength { writer.u8(0) }
    }
}
