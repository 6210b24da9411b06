// LL privacy commands: the resolving list and resolvable private addresses (Core 5.4 Vol 4
// Part E §7.8.38–§7.8.45, §7.8.77).

extension HCI {
    /// HCI_LE_Add_Device_To_Resolving_List (Core 5.4 Vol 4 Part E §7.8.38).
    public struct LEAddDeviceToResolvingList: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0027)
        public static let name = "LE Add Device To Resolving List"

        /// Peer_Identity_Address_Type: `.public` (public identity) or `.random` (static identity).
        public var peerIdentityAddressType: AddressType
        public var peerIdentityAddress: BluetoothAddress
        public var peerIRK: Key128
        public var localIRK: Key128

        public init(
            peerIdentityAddressType: AddressType, peerIdentityAddress: BluetoothAddress, peerIRK: Key128,
            localIRK: Key128
        ) {
            self.peerIdentityAddressType = peerIdentityAddressType
            self.peerIdentityAddress = peerIdentityAddress
            self.peerIRK = peerIRK
            self.localIRK = localIRK
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Add Device To Resolving List"
            peerIdentityAddressType = AddressType(rawValue: try reader.u8("Peer_Identity_Address_Type"))
            peerIdentityAddress = try BluetoothAddress(from: &reader, field: "Peer_Identity_Address")
            peerIRK = try Key128(from: &reader, "Peer_IRK")
            localIRK = try Key128(from: &reader, "Local_IRK")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(peerIdentityAddressType.rawValue)
            peerIdentityAddress.encode(into: &writer)
            peerIRK.encode(into: &writer)
            localIRK.encode(into: &writer)
        }
    }

    /// HCI_LE_Remove_Device_From_Resolving_List (Core 5.4 Vol 4 Part E §7.8.39).
    public struct LERemoveDeviceFromResolvingList: HCIPeerIdentityCommand {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0028)
        public static let name = "LE Remove Device From Resolving List"

        public var peerIdentityAddressType: AddressType
        public var peerIdentityAddress: BluetoothAddress

        public init(peerIdentityAddressType: AddressType, peerIdentityAddress: BluetoothAddress) {
            self.peerIdentityAddressType = peerIdentityAddressType
            self.peerIdentityAddress = peerIdentityAddress
        }

        public static let context: StaticString = "LE Remove Device From Resolving List"
    }

    /// HCI_LE_Clear_Resolving_List (Core 5.4 Vol 4 Part E §7.8.40).
    public struct LEClearResolvingList: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0029)
        public static let name = "LE Clear Resolving List"

        public init() {}
    }

    /// HCI_LE_Read_Resolving_List_Size (Core 5.4 Vol 4 Part E §7.8.41).
    public struct LEReadResolvingListSize: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x002A)
        public static let name = "LE Read Resolving List Size"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.41).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var resolvingListSize: UInt8 = 0

            public init(status: HCIStatus = .success, resolvingListSize: UInt8) {
                self.status = status
                self.resolvingListSize = resolvingListSize
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Resolving List Size return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                resolvingListSize = try reader.u8("Resolving_List_Size")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u8(resolvingListSize)
            }
        }
    }

    /// Return parameters of the two resolvable-address reads (§7.8.42, §7.8.43): a status and
    /// the address the controller currently uses.
    public struct ResolvableAddressReturnParameters: HCIReturnParameters, Hashable {
        public var status: HCIStatus
        /// Peer_Resolvable_Address or Local_Resolvable_Address.
        public var resolvableAddress: BluetoothAddress = .zero

        public init(status: HCIStatus = .success, resolvableAddress: BluetoothAddress) {
            self.status = status
            self.resolvableAddress = resolvableAddress
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Resolvable address return parameters"
            status = HCIStatus(try reader.u8("Status"))
            if HCI.endsAfterFailure(status, reader) { return }
            resolvableAddress = try BluetoothAddress(from: &reader, field: "Resolvable_Address")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            resolvableAddress.encode(into: &writer)
        }
    }

    /// HCI_LE_Read_Peer_Resolvable_Address (Core 5.4 Vol 4 Part E §7.8.42).
    public struct LEReadPeerResolvableAddress: HCIPeerIdentityCommand {
        public typealias ReturnParameters = ResolvableAddressReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x002B)
        public static let name = "LE Read Peer Resolvable Address"

        public var peerIdentityAddressType: AddressType
        public var peerIdentityAddress: BluetoothAddress

        public init(peerIdentityAddressType: AddressType, peerIdentityAddress: BluetoothAddress) {
            self.peerIdentityAddressType = peerIdentityAddressType
            self.peerIdentityAddress = peerIdentityAddress
        }

        public static let context: StaticString = "LE Read Peer Resolvable Address"
    }

    /// HCI_LE_Read_Local_Resolvable_Address (Core 5.4 Vol 4 Part E §7.8.43).
    public struct LEReadLocalResolvableAddress: HCIPeerIdentityCommand {
        public typealias ReturnParameters = ResolvableAddressReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x002C)
        public static let name = "LE Read Local Resolvable Address"

        public var peerIdentityAddressType: AddressType
        public var peerIdentityAddress: BluetoothAddress

        public init(peerIdentityAddressType: AddressType, peerIdentityAddress: BluetoothAddress) {
            self.peerIdentityAddressType = peerIdentityAddressType
            self.peerIdentityAddress = peerIdentityAddress
        }

        public static let context: StaticString = "LE Read Local Resolvable Address"
    }

    /// HCI_LE_Set_Address_Resolution_Enable (Core 5.4 Vol 4 Part E §7.8.44).
    public struct LESetAddressResolutionEnable: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x002D)
        public static let name = "LE Set Address Resolution Enable"

        public var addressResolutionEnable: Bool

        public init(addressResolutionEnable: Bool) { self.addressResolutionEnable = addressResolutionEnable }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Address Resolution Enable"
            addressResolutionEnable = try HCI.readFlag(&reader, "Address_Resolution_Enable")
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(addressResolutionEnable ? 1 : 0) }
    }

    /// HCI_LE_Set_Resolvable_Private_Address_Timeout (Core 5.4 Vol 4 Part E §7.8.45).
    public struct LESetResolvablePrivateAddressTimeout: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x002E)
        public static let name = "LE Set Resolvable Private Address Timeout"

        /// RPA_Timeout in seconds (0x0001–0x0E10; default 0x0384, 15 minutes).
        public var rpaTimeout: UInt16

        public init(rpaTimeout: UInt16 = 0x0384) { self.rpaTimeout = rpaTimeout }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Resolvable Private Address Timeout"
            rpaTimeout = try reader.u16("RPA_Timeout")
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(rpaTimeout) }
    }

    /// HCI_LE_Set_Privacy_Mode (Core 5.4 Vol 4 Part E §7.8.77): whether a resolving-list peer
    /// may also be accepted by its identity address.
    public struct LESetPrivacyMode: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x004E)
        public static let name = "LE Set Privacy Mode"

        /// Privacy_Mode.
        public enum PrivacyMode: Hashable, Sendable {
            /// Only the peer's resolvable private addresses are accepted (the default).
            case network
            /// The peer's identity address is accepted too.
            case device
            case other(UInt8)

            public init(rawValue: UInt8) {
                switch rawValue {
                case 0x00: self = .network
                case 0x01: self = .device
                default: self = .other(rawValue)
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .network: 0x00
                case .device: 0x01
                case .other(let value): value
                }
            }
        }

        public var peerIdentityAddressType: AddressType
        public var peerIdentityAddress: BluetoothAddress
        public var privacyMode: PrivacyMode

        public init(
            peerIdentityAddressType: AddressType, peerIdentityAddress: BluetoothAddress,
            privacyMode: PrivacyMode
        ) {
            self.peerIdentityAddressType = peerIdentityAddressType
            self.peerIdentityAddress = peerIdentityAddress
            self.privacyMode = privacyMode
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Privacy Mode"
            peerIdentityAddressType = AddressType(rawValue: try reader.u8("Peer_Identity_Address_Type"))
            peerIdentityAddress = try BluetoothAddress(from: &reader, field: "Peer_Identity_Address")
            privacyMode = PrivacyMode(rawValue: try reader.u8("Privacy_Mode"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(peerIdentityAddressType.rawValue)
            peerIdentityAddress.encode(into: &writer)
            writer.u8(privacyMode.rawValue)
        }
    }
}

/// Commands whose parameters are a peer's identity address alone (Core 5.4 Vol 4 Part E
/// §7.8.39, §7.8.42, §7.8.43): Peer_Identity_Address_Type, then Peer_Identity_Address. One
/// decoder and encoder for all three.
public protocol HCIPeerIdentityCommand: HCICommandWithCompleteEvent, Hashable {
    var peerIdentityAddressType: AddressType { get }
    var peerIdentityAddress: BluetoothAddress { get }
    init(peerIdentityAddressType: AddressType, peerIdentityAddress: BluetoothAddress)
    /// Decoding context: the command's name.
    static var context: StaticString { get }
}

extension HCIPeerIdentityCommand {
    @inlinable
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = Self.context
        let addressType = AddressType(rawValue: try reader.u8("Peer_Identity_Address_Type"))
        self.init(
            peerIdentityAddressType: addressType,
            peerIdentityAddress: try BluetoothAddress(from: &reader, field: "Peer_Identity_Address"))
    }

    @inlinable
    public func encode(into writer: inout ByteWriter) {
        writer.u8(peerIdentityAddressType.rawValue)
        peerIdentityAddress.encode(into: &writer)
    }
}
