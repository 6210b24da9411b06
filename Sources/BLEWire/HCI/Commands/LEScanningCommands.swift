// Legacy scanning commands (Core 5.4 Vol 4 Part E §7.8.10, §7.8.11).

extension HCI {
    /// HCI_LE_Set_Scan_Parameters (Core 5.4 Vol 4 Part E §7.8.10).
    public struct LESetScanParameters: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x000B)
        public static let name = "LE Set Scan Parameters"

        public var leScanType: ScanType
        /// LE_Scan_Interval in 0.625 ms units (0x0004–0x4000; default 0x0010, 10 ms).
        public var leScanInterval: UInt16
        /// LE_Scan_Window in 0.625 ms units, at most the interval.
        public var leScanWindow: UInt16
        public var ownAddressType: OwnAddressType
        public var scanningFilterPolicy: ScanningFilterPolicy

        public init(
            leScanType: ScanType = .passive, leScanInterval: UInt16 = 0x0010, leScanWindow: UInt16 = 0x0010,
            ownAddressType: OwnAddressType = .public,
            scanningFilterPolicy: ScanningFilterPolicy = .basicUnfiltered
        ) {
            self.leScanType = leScanType
            self.leScanInterval = leScanInterval
            self.leScanWindow = leScanWindow
            self.ownAddressType = ownAddressType
            self.scanningFilterPolicy = scanningFilterPolicy
        }

        public var scanIntervalMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(leScanInterval)) }
        public var scanWindowMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(leScanWindow)) }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Scan Parameters"
            leScanType = ScanType(rawValue: try reader.u8("LE_Scan_Type"))
            leScanInterval = try reader.u16("LE_Scan_Interval")
            leScanWindow = try reader.u16("LE_Scan_Window")
            ownAddressType = OwnAddressType(rawValue: try reader.u8("Own_Address_Type"))
            scanningFilterPolicy = ScanningFilterPolicy(rawValue: try reader.u8("Scanning_Filter_Policy"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(leScanType.rawValue)
            writer.u16(leScanInterval)
            writer.u16(leScanWindow)
            writer.u8(ownAddressType.rawValue)
            writer.u8(scanningFilterPolicy.rawValue)
        }
    }

    /// HCI_LE_Set_Scan_Enable (Core 5.4 Vol 4 Part E §7.8.11).
    public struct LESetScanEnable: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x000C)
        public static let name = "LE Set Scan Enable"

        public var leScanEnable: Bool
        /// Whether the controller drops duplicate advertising reports.
        public var filterDuplicates: Bool

        public init(leScanEnable: Bool, filterDuplicates: Bool = false) {
            self.leScanEnable = leScanEnable
            self.filterDuplicates = filterDuplicates
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Scan Enable"
            leScanEnable = try HCI.readFlag(&reader, "LE_Scan_Enable")
            filterDuplicates = try HCI.readFlag(&reader, "Filter_Duplicates")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(leScanEnable ? 1 : 0)
            writer.u8(filterDuplicates ? 1 : 0)
        }
    }
}
