// Filter Accept List commands (Core 5.4 Vol 4 Part E §7.8.14–§7.8.17).

extension HCI {
    /// HCI_LE_Read_Filter_Accept_List_Size (Core 5.4 Vol 4 Part E §7.8.14).
    public struct LEReadFilterAcceptListSize: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x000F)
        public static let name = "LE Read Filter Accept List Size"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.14).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var filterAcceptListSize: UInt8 = 0

            public init(status: HCIStatus = .success, filterAcceptListSize: UInt8) {
                self.status = status
                self.filterAcceptListSize = filterAcceptListSize
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Filter Accept List Size return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                filterAcceptListSize = try reader.u8("Filter_Accept_List_Size")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u8(filterAcceptListSize)
            }
        }
    }

    /// HCI_LE_Clear_Filter_Accept_List (Core 5.4 Vol 4 Part E §7.8.15).
    public struct LEClearFilterAcceptList: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0010)
        public static let name = "LE Clear Filter Accept List"

        public init() {}
    }

    /// HCI_LE_Add_Device_To_Filter_Accept_List (Core 5.4 Vol 4 Part E §7.8.16).
    public struct LEAddDeviceToFilterAcceptList: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0011)
        public static let name = "LE Add Device To Filter Accept List"

        /// Address_Type: public, random, or `.other(0xFF)` for anonymous advertisements (the
        /// address is then ignored).
        public var addressType: AddressType
        public var address: BluetoothAddress

        public init(addressType: AddressType, address: BluetoothAddress) {
            self.addressType = addressType
            self.address = address
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Add Device To Filter Accept List"
            addressType = AddressType(rawValue: try reader.u8("Address_Type"))
            address = try BluetoothAddress(from: &reader, field: "Address")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(addressType.rawValue)
            address.encode(into: &writer)
        }
    }

    /// HCI_LE_Remove_Device_From_Filter_Accept_List (Core 5.4 Vol 4 Part E §7.8.17).
    public struct LERemoveDeviceFromFilterAcceptList: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0012)
        public static let name = "LE Remove Device From Filter Accept List"

        /// Address_Type: public, random, or `.other(0xFF)` for anonymous advertisements.
        public var addressType: AddressType
        public var address: BluetoothAddress

        public init(addressType: AddressType, address: BluetoothAddress) {
            self.addressType = addressType
            self.address = address
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Remove Device From Filter Accept List"
            addressType = AddressType(rawValue: try reader.u8("Address_Type"))
            address = try BluetoothAddress(from: &reader, field: "Address")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(addressType.rawValue)
            address.encode(into: &writer)
        }
    }
}
