// LE Controller commands (OGF 0x08, Core 5.4 Vol 4 Part E §7.8) for set-up and controller facts:
// event mask, buffers, features, states, random address, transmit power, host features.

extension HCI {
    /// HCI_LE_Set_Event_Mask (Core 5.4 Vol 4 Part E §7.8.1).
    public struct LESetEventMask: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0001)
        public static let name = "LE Set Event Mask"

        public var leEventMask: LEEventMask

        public init(leEventMask: LEEventMask = .defaultMask) { self.leEventMask = leEventMask }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Event Mask"
            leEventMask = LEEventMask(rawValue: try reader.u64("LE_Event_Mask"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u64(leEventMask.rawValue) }
    }

    /// HCI_LE_Read_Buffer_Size [v1] (Core 5.4 Vol 4 Part E §7.8.2): the LE ACL buffers; zero
    /// length means LE shares the buffers of HCI_Read_Buffer_Size.
    public struct LEReadBufferSize: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0002)
        public static let name = "LE Read Buffer Size"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.2).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var leACLDataPacketLength: UInt16 = 0
            public var totalNumLEACLDataPackets: UInt8 = 0

            public init(
                status: HCIStatus = .success, leACLDataPacketLength: UInt16, totalNumLEACLDataPackets: UInt8
            ) {
                self.status = status
                self.leACLDataPacketLength = leACLDataPacketLength
                self.totalNumLEACLDataPackets = totalNumLEACLDataPackets
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Buffer Size return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                leACLDataPacketLength = try reader.u16("LE_ACL_Data_Packet_Length")
                totalNumLEACLDataPackets = try reader.u8("Total_Num_LE_ACL_Data_Packets")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(leACLDataPacketLength)
                writer.u8(totalNumLEACLDataPackets)
            }
        }
    }

    /// HCI_LE_Read_Buffer_Size [v2] (Core 5.4 Vol 4 Part E §7.8.2): LE ACL and ISO buffers.
    public struct LEReadBufferSizeV2: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0060)
        public static let name = "LE Read Buffer Size [v2]"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.2).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var leACLDataPacketLength: UInt16 = 0
            public var totalNumLEACLDataPackets: UInt8 = 0
            public var isoDataPacketLength: UInt16 = 0
            public var totalNumISODataPackets: UInt8 = 0

            public init(
                status: HCIStatus = .success, leACLDataPacketLength: UInt16, totalNumLEACLDataPackets: UInt8,
                isoDataPacketLength: UInt16, totalNumISODataPackets: UInt8
            ) {
                self.status = status
                self.leACLDataPacketLength = leACLDataPacketLength
                self.totalNumLEACLDataPackets = totalNumLEACLDataPackets
                self.isoDataPacketLength = isoDataPacketLength
                self.totalNumISODataPackets = totalNumISODataPackets
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Buffer Size [v2] return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                leACLDataPacketLength = try reader.u16("LE_ACL_Data_Packet_Length")
                totalNumLEACLDataPackets = try reader.u8("Total_Num_LE_ACL_Data_Packets")
                isoDataPacketLength = try reader.u16("ISO_Data_Packet_Length")
                totalNumISODataPackets = try reader.u8("Total_Num_ISO_Data_Packets")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(leACLDataPacketLength)
                writer.u8(totalNumLEACLDataPackets)
                writer.u16(isoDataPacketLength)
                writer.u8(totalNumISODataPackets)
            }
        }
    }

    /// HCI_LE_Read_Local_Supported_Features (Core 5.4 Vol 4 Part E §7.8.3).
    public struct LEReadLocalSupportedFeatures: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0003)
        public static let name = "LE Read Local Supported Features"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.3).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var leFeatures: LEFeatures = []

            public init(status: HCIStatus = .success, leFeatures: LEFeatures) {
                self.status = status
                self.leFeatures = leFeatures
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Local Supported Features return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                leFeatures = LEFeatures(rawValue: try reader.u64("LE_Features"))
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u64(leFeatures.rawValue)
            }
        }
    }

    /// HCI_LE_Set_Random_Address (Core 5.4 Vol 4 Part E §7.8.4): the random address used by
    /// legacy advertising, scanning and initiating when Own_Address_Type is random.
    public struct LESetRandomAddress: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0005)
        public static let name = "LE Set Random Address"

        public var randomAddress: BluetoothAddress

        public init(randomAddress: BluetoothAddress) { self.randomAddress = randomAddress }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Random Address"
            randomAddress = try BluetoothAddress(from: &reader, field: "Random_Address")
        }

        public func encode(into writer: inout ByteWriter) { randomAddress.encode(into: &writer) }
    }

    /// HCI_LE_Read_Supported_States (Core 5.4 Vol 4 Part E §7.8.27): which combinations of link
    /// layer states the controller supports, one bit per row of the specification's table.
    public struct LEReadSupportedStates: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x001C)
        public static let name = "LE Read Supported States"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.27).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            /// LE_States, bit n for state combination n.
            public var leStates: UInt64 = 0

            public init(status: HCIStatus = .success, leStates: UInt64) {
                self.status = status
                self.leStates = leStates
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Supported States return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                leStates = try reader.u64("LE_States")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u64(leStates)
            }
        }
    }

    /// HCI_LE_Read_Transmit_Power (Core 5.4 Vol 4 Part E §7.8.74): the range of transmit power
    /// the controller supports.
    public struct LEReadTransmitPower: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x004B)
        public static let name = "LE Read Transmit Power"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.74).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            /// Min_TX_Power in dBm.
            public var minTXPower: Int8 = 0
            /// Max_TX_Power in dBm.
            public var maxTXPower: Int8 = 0

            public init(status: HCIStatus = .success, minTXPower: Int8, maxTXPower: Int8) {
                self.status = status
                self.minTXPower = minTXPower
                self.maxTXPower = maxTXPower
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Transmit Power return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                minTXPower = try reader.i8("Min_TX_Power")
                maxTXPower = try reader.i8("Max_TX_Power")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.i8(minTXPower)
                writer.i8(maxTXPower)
            }
        }
    }

    /// HCI_LE_Set_Host_Feature (Core 5.4 Vol 4 Part E §7.8.115): sets one host-controlled bit of
    /// the LE features (e.g. bit 32, Connected Isochronous Stream (Host Support)).
    public struct LESetHostFeature: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0074)
        public static let name = "LE Set Host Feature"

        public var bitNumber: UInt8
        public var bitValue: Bool

        public init(bitNumber: UInt8, bitValue: Bool) {
            self.bitNumber = bitNumber
            self.bitValue = bitValue
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Host Feature"
            bitNumber = try reader.u8("Bit_Number")
            bitValue = try HCI.readFlag(&reader, "Bit_Value")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(bitNumber)
            writer.u8(bitValue ? 1 : 0)
        }
    }
}
