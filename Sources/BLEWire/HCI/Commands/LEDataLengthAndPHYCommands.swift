// Data length and PHY commands (Core 5.4 Vol 4 Part E §7.8.33–§7.8.35, §7.8.46–§7.8.49).

extension HCI {
    /// HCI_LE_Set_Data_Length (Core 5.4 Vol 4 Part E §7.8.33): the largest LL payload and air
    /// time the host wants on one connection.
    public struct LESetDataLength: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = ConnectionHandleReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0022)
        public static let name = "LE Set Data Length"

        public var connectionHandle: ConnectionHandle
        /// TX_Octets (0x001B–0x00FB).
        public var txOctets: UInt16
        /// TX_Time in microseconds (0x0148–0x4290).
        public var txTime: UInt16

        public init(connectionHandle: ConnectionHandle, txOctets: UInt16, txTime: UInt16) {
            self.connectionHandle = connectionHandle
            self.txOctets = txOctets
            self.txTime = txTime
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Data Length"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            txOctets = try reader.u16("TX_Octets")
            txTime = try reader.u16("TX_Time")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            writer.u16(txOctets)
            writer.u16(txTime)
        }
    }

    /// HCI_LE_Read_Suggested_Default_Data_Length (Core 5.4 Vol 4 Part E §7.8.34).
    public struct LEReadSuggestedDefaultDataLength: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0023)
        public static let name = "LE Read Suggested Default Data Length"

        public init() {}
        public init(from reader: inout ByteReader) throws(DecodeError) {}
        public func encode(into writer: inout ByteWriter) {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.34).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var suggestedMaxTXOctets: UInt16 = 0
            /// Microseconds.
            public var suggestedMaxTXTime: UInt16 = 0

            public init(
                status: HCIStatus = .success, suggestedMaxTXOctets: UInt16, suggestedMaxTXTime: UInt16
            ) {
                self.status = status
                self.suggestedMaxTXOctets = suggestedMaxTXOctets
                self.suggestedMaxTXTime = suggestedMaxTXTime
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Suggested Default Data Length return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                suggestedMaxTXOctets = try reader.u16("Suggested_Max_TX_Octets")
                suggestedMaxTXTime = try reader.u16("Suggested_Max_TX_Time")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(suggestedMaxTXOctets)
                writer.u16(suggestedMaxTXTime)
            }
        }
    }

    /// HCI_LE_Write_Suggested_Default_Data_Length (Core 5.4 Vol 4 Part E §7.8.35): the values new
    /// connections start with.
    public struct LEWriteSuggestedDefaultDataLength: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0024)
        public static let name = "LE Write Suggested Default Data Length"

        public var suggestedMaxTXOctets: UInt16
        /// Microseconds.
        public var suggestedMaxTXTime: UInt16

        public init(suggestedMaxTXOctets: UInt16, suggestedMaxTXTime: UInt16) {
            self.suggestedMaxTXOctets = suggestedMaxTXOctets
            self.suggestedMaxTXTime = suggestedMaxTXTime
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Write Suggested Default Data Length"
            suggestedMaxTXOctets = try reader.u16("Suggested_Max_TX_Octets")
            suggestedMaxTXTime = try reader.u16("Suggested_Max_TX_Time")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(suggestedMaxTXOctets)
            writer.u16(suggestedMaxTXTime)
        }
    }

    /// HCI_LE_Read_Maximum_Data_Length (Core 5.4 Vol 4 Part E §7.8.46).
    public struct LEReadMaximumDataLength: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x002F)
        public static let name = "LE Read Maximum Data Length"

        public init() {}
        public init(from reader: inout ByteReader) throws(DecodeError) {}
        public func encode(into writer: inout ByteWriter) {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.46).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var supportedMaxTXOctets: UInt16 = 0
            /// Microseconds.
            public var supportedMaxTXTime: UInt16 = 0
            public var supportedMaxRXOctets: UInt16 = 0
            /// Microseconds.
            public var supportedMaxRXTime: UInt16 = 0

            public init(
                status: HCIStatus = .success, supportedMaxTXOctets: UInt16, supportedMaxTXTime: UInt16,
                supportedMaxRXOctets: UInt16, supportedMaxRXTime: UInt16
            ) {
                self.status = status
                self.supportedMaxTXOctets = supportedMaxTXOctets
                self.supportedMaxTXTime = supportedMaxTXTime
                self.supportedMaxRXOctets = supportedMaxRXOctets
                self.supportedMaxRXTime = supportedMaxRXTime
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Maximum Data Length return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                supportedMaxTXOctets = try reader.u16("Supported_Max_TX_Octets")
                supportedMaxTXTime = try reader.u16("Supported_Max_TX_Time")
                supportedMaxRXOctets = try reader.u16("Supported_Max_RX_Octets")
                supportedMaxRXTime = try reader.u16("Supported_Max_RX_Time")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(supportedMaxTXOctets)
                writer.u16(supportedMaxTXTime)
                writer.u16(supportedMaxRXOctets)
                writer.u16(supportedMaxRXTime)
            }
        }
    }

    /// HCI_LE_Read_PHY (Core 5.4 Vol 4 Part E §7.8.47): the PHYs a connection currently uses.
    public struct LEReadPHY: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0030)
        public static let name = "LE Read PHY"

        public var connectionHandle: ConnectionHandle

        public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Read PHY"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(connectionHandle.rawValue) }

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.47).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var connectionHandle: ConnectionHandle = 0
            public var txPHY = PHY.HCIValue(rawValue: 0)
            public var rxPHY = PHY.HCIValue(rawValue: 0)

            public init(
                status: HCIStatus = .success, connectionHandle: ConnectionHandle, txPHY: PHY.HCIValue, rxPHY: PHY.HCIValue
            ) {
                self.status = status
                self.connectionHandle = connectionHandle
                self.txPHY = txPHY
                self.rxPHY = rxPHY
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read PHY return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
                txPHY = PHY.HCIValue(rawValue: try reader.u8("TX_PHY"))
                rxPHY = PHY.HCIValue(rawValue: try reader.u8("RX_PHY"))
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(connectionHandle.rawValue)
                writer.u8(txPHY.rawValue)
                writer.u8(rxPHY.rawValue)
            }
        }
    }

    /// HCI_LE_Set_Default_PHY (Core 5.4 Vol 4 Part E §7.8.48): preferred PHYs for new connections.
    public struct LESetDefaultPHY: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0031)
        public static let name = "LE Set Default PHY"

        public var allPHYs: AllPHYsPreference
        public var txPHYs: LEPHYs
        public var rxPHYs: LEPHYs

        public init(allPHYs: AllPHYsPreference = [], txPHYs: LEPHYs, rxPHYs: LEPHYs) {
            self.allPHYs = allPHYs
            self.txPHYs = txPHYs
            self.rxPHYs = rxPHYs
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Default PHY"
            allPHYs = AllPHYsPreference(rawValue: try reader.u8("All_PHYs"))
            txPHYs = LEPHYs(rawValue: try reader.u8("TX_PHYs"))
            rxPHYs = LEPHYs(rawValue: try reader.u8("RX_PHYs"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(allPHYs.rawValue)
            writer.u8(txPHYs.rawValue)
            writer.u8(rxPHYs.rawValue)
        }
    }

    /// HCI_LE_Set_PHY (Core 5.4 Vol 4 Part E §7.8.49): asks to change a connection's PHYs.
    /// Command Status, then HCI_LE_PHY_Update_Complete.
    public struct LESetPHY: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0032)
        public static let name = "LE Set PHY"

        public var connectionHandle: ConnectionHandle
        public var allPHYs: AllPHYsPreference
        public var txPHYs: LEPHYs
        public var rxPHYs: LEPHYs
        public var phyOptions: CodedPHYOptions

        public init(
            connectionHandle: ConnectionHandle, allPHYs: AllPHYsPreference = [], txPHYs: LEPHYs, rxPHYs: LEPHYs,
            phyOptions: CodedPHYOptions = .noPreference
        ) {
            self.connectionHandle = connectionHandle
            self.allPHYs = allPHYs
            self.txPHYs = txPHYs
            self.rxPHYs = rxPHYs
            self.phyOptions = phyOptions
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set PHY"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            allPHYs = AllPHYsPreference(rawValue: try reader.u8("All_PHYs"))
            txPHYs = LEPHYs(rawValue: try reader.u8("TX_PHYs"))
            rxPHYs = LEPHYs(rawValue: try reader.u8("RX_PHYs"))
            phyOptions = CodedPHYOptions(rawValue: try reader.u16("PHY_Options"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            writer.u8(allPHYs.rawValue)
            writer.u8(txPHYs.rawValue)
            writer.u8(rxPHYs.rawValue)
            writer.u16(phyOptions.rawValue)
        }
    }
}
