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
    public typealias LEAddDeviceToFilterAcceptList = LEFilterAcceptListEdit<LEFilterAcceptListAdd>
    /// HCI_LE_Remove_Device_From_Filter_Accept_List (Core 5.4 Vol 4 Part E §7.8.17).
    public typealias LERemoveDeviceFromFilterAcceptList = LEFilterAcceptListEdit<LEFilterAcceptListRemove>

    /// The parameters of both edits of the Filter Accept List, which are the same (§7.8.16,
    /// §7.8.17): one device. `Operation` says which command it is.
    public struct LEFilterAcceptListEdit<Operation: LEFilterAcceptListOperation>: HCICommandWithCompleteEvent,
        Hashable, Sendable
    {
        public typealias ReturnParameters = StatusReturnParameters
        public static var opcode: HCIOpcode { Operation.opcode }
        public static var name: String { Operation.name }

        /// Address_Type: public, random, or `.other(0xFF)` for anonymous advertisements (the
        /// address is then ignored).
        public var addressType: AddressType
        public var address: BluetoothAddress

        public init(addressType: AddressType, address: BluetoothAddress) {
            self.addressType = addressType
            self.address = address
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = Operation.context
            addressType = AddressType(rawValue: try reader.u8("Address_Type"))
            address = try BluetoothAddress(from: &reader, field: "Address")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(addressType.rawValue)
            address.encode(into: &writer)
        }
    }

    public enum LEFilterAcceptListAdd: LEFilterAcceptListOperation {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0011)
        public static let name = "LE Add Device To Filter Accept List"
        public static let context: StaticString = "LE Add Device To Filter Accept List"
    }

    public enum LEFilterAcceptListRemove: LEFilterAcceptListOperation {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0012)
        public static let name = "LE Remove Device From Filter Accept List"
        public static let context: StaticString = "LE Remove Device From Filter Accept List"
    }
}

/// Which edit of the Filter Accept List an `HCI.LEFilterAcceptListEdit` is.
public protocol LEFilterAcceptListOperation: Sendable {
    static var opcode: HCIOpcode { get }
    static var name: String { get }
    static var context: StaticString { get }
}
