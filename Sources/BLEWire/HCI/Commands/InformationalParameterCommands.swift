// Informational Parameters commands (OGF 0x04, Core 5.4 Vol 4 Part E §7.4): fixed facts about
// the controller, read once at start-up.

extension HCI {
    /// The Bluetooth Core version an HCI_Version or LMP_Version number stands for (Assigned
    /// Numbers §2.1), or nil for a number this version does not know.
    public static func coreVersionName(_ version: UInt8) -> String? {
        switch version {
        case 0x00: "1.0b"
        case 0x01: "1.1"
        case 0x02: "1.2"
        case 0x03: "2.0+EDR"
        case 0x04: "2.1+EDR"
        case 0x05: "3.0+HS"
        case 0x06: "4.0"
        case 0x07: "4.1"
        case 0x08: "4.2"
        case 0x09: "5.0"
        case 0x0A: "5.1"
        case 0x0B: "5.2"
        case 0x0C: "5.3"
        case 0x0D: "5.4"
        case 0x0E: "6.0"
        default: nil
        }
    }

    /// HCI_Read_Local_Version_Information (Core 5.4 Vol 4 Part E §7.4.1).
    public struct ReadLocalVersionInformation: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.informationalParameters, ocf: 0x0001)
        public static let name = "Read Local Version Information"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.4.1).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            /// HCI_Version: the Core version number (0x0D is 5.4), see `HCI.coreVersionName`.
            public var hciVersion: UInt8 = 0
            /// HCI_Subversion (formerly HCI_Revision), chosen by the manufacturer.
            public var hciSubversion: UInt16 = 0
            /// LMP_Version (or PAL version): the Core version of the link layer.
            public var lmpVersion: UInt8 = 0
            /// Company_Identifier (formerly Manufacturer_Name), from Assigned Numbers.
            public var companyIdentifier: UInt16 = 0
            /// LMP_Subversion, chosen by the manufacturer.
            public var lmpSubversion: UInt16 = 0

            public init(
                status: HCIStatus = .success, hciVersion: UInt8, hciSubversion: UInt16, lmpVersion: UInt8,
                companyIdentifier: UInt16, lmpSubversion: UInt16
            ) {
                self.status = status
                self.hciVersion = hciVersion
                self.hciSubversion = hciSubversion
                self.lmpVersion = lmpVersion
                self.companyIdentifier = companyIdentifier
                self.lmpSubversion = lmpSubversion
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read Local Version Information return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                hciVersion = try reader.u8("HCI_Version")
                hciSubversion = try reader.u16("HCI_Subversion")
                lmpVersion = try reader.u8("LMP_Version")
                companyIdentifier = try reader.u16("Company_Identifier")
                lmpSubversion = try reader.u16("LMP_Subversion")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u8(hciVersion)
                writer.u16(hciSubversion)
                writer.u8(lmpVersion)
                writer.u16(companyIdentifier)
                writer.u16(lmpSubversion)
            }
        }
    }

    /// HCI_Read_Local_Supported_Commands (Core 5.4 Vol 4 Part E §7.4.2): the 64-octet bitmap of
    /// §6.27, as `HCISupportedCommands`.
    public struct ReadLocalSupportedCommands: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.informationalParameters, ocf: 0x0002)
        public static let name = "Read Local Supported Commands"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.4.2).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var supportedCommands: HCISupportedCommands = HCISupportedCommands()

            public init(status: HCIStatus = .success, supportedCommands: HCISupportedCommands) {
                self.status = status
                self.supportedCommands = supportedCommands
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read Local Supported Commands return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                supportedCommands = try HCISupportedCommands(from: &reader)
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                supportedCommands.encode(into: &writer)
            }
        }
    }

    /// HCI_Read_Local_Supported_Features (Core 5.4 Vol 4 Part E §7.4.3): LMP features page 0.
    public struct ReadLocalSupportedFeatures: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.informationalParameters, ocf: 0x0003)
        public static let name = "Read Local Supported Features"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.4.3).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var lmpFeatures: LMPFeatures = []

            public init(status: HCIStatus = .success, lmpFeatures: LMPFeatures) {
                self.status = status
                self.lmpFeatures = lmpFeatures
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read Local Supported Features return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                lmpFeatures = LMPFeatures(rawValue: try reader.u64("LMP_Features"))
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u64(lmpFeatures.rawValue)
            }
        }
    }

    /// HCI_Read_Local_Extended_Features (Core 5.4 Vol 4 Part E §7.4.4): one page of LMP
    /// features (page 1 holds the host's bits, such as LE Supported (Host)).
    public struct ReadLocalExtendedFeatures: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.informationalParameters, ocf: 0x0004)
        public static let name = "Read Local Extended Features"

        public var pageNumber: UInt8

        public init(pageNumber: UInt8) { self.pageNumber = pageNumber }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Read Local Extended Features"
            pageNumber = try reader.u8("Page_Number")
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(pageNumber) }

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.4.4).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var pageNumber: UInt8 = 0
            public var maxPageNumber: UInt8 = 0
            /// The page's 64 feature bits; their meaning depends on `pageNumber`.
            public var extendedLMPFeatures: UInt64 = 0

            public init(
                status: HCIStatus = .success, pageNumber: UInt8, maxPageNumber: UInt8,
                extendedLMPFeatures: UInt64
            ) {
                self.status = status
                self.pageNumber = pageNumber
                self.maxPageNumber = maxPageNumber
                self.extendedLMPFeatures = extendedLMPFeatures
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read Local Extended Features return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                pageNumber = try reader.u8("Page_Number")
                maxPageNumber = try reader.u8("Max_Page_Number")
                extendedLMPFeatures = try reader.u64("Extended_LMP_Features")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u8(pageNumber)
                writer.u8(maxPageNumber)
                writer.u64(extendedLMPFeatures)
            }
        }
    }

    /// HCI_Read_Buffer_Size (Core 5.4 Vol 4 Part E §7.4.5): the controller's shared BR/EDR and
    /// LE ACL buffers, used when LE Read Buffer Size reports zero.
    public struct ReadBufferSize: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.informationalParameters, ocf: 0x0005)
        public static let name = "Read Buffer Size"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.4.5).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var aclDataPacketLength: UInt16 = 0
            public var synchronousDataPacketLength: UInt8 = 0
            public var totalNumACLDataPackets: UInt16 = 0
            public var totalNumSynchronousDataPackets: UInt16 = 0

            public init(
                status: HCIStatus = .success, aclDataPacketLength: UInt16, synchronousDataPacketLength: UInt8,
                totalNumACLDataPackets: UInt16, totalNumSynchronousDataPackets: UInt16
            ) {
                self.status = status
                self.aclDataPacketLength = aclDataPacketLength
                self.synchronousDataPacketLength = synchronousDataPacketLength
                self.totalNumACLDataPackets = totalNumACLDataPackets
                self.totalNumSynchronousDataPackets = totalNumSynchronousDataPackets
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read Buffer Size return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                aclDataPacketLength = try reader.u16("ACL_Data_Packet_Length")
                synchronousDataPacketLength = try reader.u8("Synchronous_Data_Packet_Length")
                totalNumACLDataPackets = try reader.u16("Total_Num_ACL_Data_Packets")
                totalNumSynchronousDataPackets = try reader.u16("Total_Num_Synchronous_Data_Packets")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(aclDataPacketLength)
                writer.u8(synchronousDataPacketLength)
                writer.u16(totalNumACLDataPackets)
                writer.u16(totalNumSynchronousDataPackets)
            }
        }
    }

    /// HCI_Read_BD_ADDR (Core 5.4 Vol 4 Part E §7.4.6): the controller's public address.
    public struct ReadBDADDR: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.informationalParameters, ocf: 0x0009)
        public static let name = "Read BD_ADDR"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.4.6).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var bdAddr: BluetoothAddress = .zero

            public init(status: HCIStatus = .success, bdAddr: BluetoothAddress) {
                self.status = status
                self.bdAddr = bdAddr
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read BD_ADDR return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                bdAddr = try BluetoothAddress(from: &reader, field: "BD_ADDR")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                bdAddr.encode(into: &writer)
            }
        }
    }
}
