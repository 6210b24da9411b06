// Extended scanning and initiating (Core 5.4 Vol 4 Part E §7.8.64–§7.8.66). Their per-PHY
// parameter arrays have one entry for each bit set in the PHY bit mask, in bit order; the
// entries are modelled as one optional per PHY, so the mask and the arrays cannot disagree.

extension HCI {
    /// Scanning parameters for one PHY of LE Set Extended Scan Parameters (§7.8.64), 5 octets.
    public struct ScanningPHYParameters: Hashable, Sendable, WireCodable, WireRenderable {
        public var scanType: ScanType
        /// Scan_Interval in 0.625 ms units (0x0004–0xFFFF).
        public var scanInterval: UInt16
        /// Scan_Window in 0.625 ms units.
        public var scanWindow: UInt16

        public init(scanType: ScanType = .passive, scanInterval: UInt16 = 0x0010, scanWindow: UInt16 = 0x0010) {
            self.scanType = scanType
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
        }

        public var scanIntervalMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(scanInterval)) }
        public var scanWindowMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(scanWindow)) }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            scanType = ScanType(rawValue: try reader.u8("Scan_Type"))
            scanInterval = try reader.u16("Scan_Interval")
            scanWindow = try reader.u16("Scan_Window")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(scanType.rawValue)
            writer.u16(scanInterval)
            writer.u16(scanWindow)
        }
    }

    /// HCI_LE_Set_Extended_Scan_Parameters (Core 5.4 Vol 4 Part E §7.8.64).
    public struct LESetExtendedScanParameters: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0041)
        public static let name = "LE Set Extended Scan Parameters"

        /// The Scanning_PHYs bits that carry parameters (LE 1M and LE Coded; bit 1 is reserved
        /// because nothing advertises on the primary channels with LE 2M).
        public static let knownPHYs: LEPHYs = [.le1M, .leCoded]

        public var ownAddressType: OwnAddressType
        public var scanningFilterPolicy: ScanningFilterPolicy
        /// Parameters for scanning on LE 1M, or nil not to scan there.
        public var le1M: ScanningPHYParameters?
        /// Parameters for scanning on LE Coded, or nil not to scan there.
        public var leCoded: ScanningPHYParameters?

        public init(
            ownAddressType: OwnAddressType = .public,
            scanningFilterPolicy: ScanningFilterPolicy = .basicUnfiltered,
            le1M: ScanningPHYParameters?, leCoded: ScanningPHYParameters? = nil
        ) {
            self.ownAddressType = ownAddressType
            self.scanningFilterPolicy = scanningFilterPolicy
            self.le1M = le1M
            self.leCoded = leCoded
        }

        /// Scanning_PHYs as sent: one bit per PHY that has parameters.
        public var scanningPHYs: LEPHYs {
            var phys: LEPHYs = []
            if le1M != nil { phys.insert(.le1M) }
            if leCoded != nil { phys.insert(.leCoded) }
            return phys
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Extended Scan Parameters"
            ownAddressType = OwnAddressType(rawValue: try reader.u8("Own_Address_Type"))
            scanningFilterPolicy = ScanningFilterPolicy(rawValue: try reader.u8("Scanning_Filter_Policy"))
            let physOffset = reader.offset
            let phys = LEPHYs(rawValue: try reader.u8("Scanning_PHYs"))
            // A reserved bit would announce an entry of unknown layout: the rest cannot be parsed.
            if !Self.knownPHYs.isSuperset(of: phys) {
                throw reader.error("Scanning_PHYs", .invalidValue(UInt64(phys.rawValue)), at: physOffset)
            }
            le1M = phys.contains(.le1M) ? try ScanningPHYParameters(from: &reader) : nil
            leCoded = phys.contains(.leCoded) ? try ScanningPHYParameters(from: &reader) : nil
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(ownAddressType.rawValue)
            writer.u8(scanningFilterPolicy.rawValue)
            writer.u8(scanningPHYs.rawValue)
            le1M?.encode(into: &writer)
            leCoded?.encode(into: &writer)
        }
    }

    /// HCI_LE_Set_Extended_Scan_Enable (Core 5.4 Vol 4 Part E §7.8.65).
    public struct LESetExtendedScanEnable: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0042)
        public static let name = "LE Set Extended Scan Enable"

        /// Filter_Duplicates.
        public enum DuplicateFilter: Hashable, Sendable {
            case disabled
            case enabled
            /// Enabled, and forgotten at the start of each scan period.
            case enabledResetEachPeriod
            case other(UInt8)

            public init(rawValue: UInt8) {
                switch rawValue {
                case 0x00: self = .disabled
                case 0x01: self = .enabled
                case 0x02: self = .enabledResetEachPeriod
                default: self = .other(rawValue)
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .disabled: 0x00
                case .enabled: 0x01
                case .enabledResetEachPeriod: 0x02
                case .other(let value): value
                }
            }
        }

        public var enable: Bool
        public var filterDuplicates: DuplicateFilter
        /// Duration in 10 ms units; 0 scans until disabled.
        public var duration: UInt16
        /// Period in 1.28 s units; 0 scans continuously.
        public var period: UInt16

        public init(
            enable: Bool, filterDuplicates: DuplicateFilter = .disabled, duration: UInt16 = 0,
            period: UInt16 = 0
        ) {
            self.enable = enable
            self.filterDuplicates = filterDuplicates
            self.duration = duration
            self.period = period
        }

        public var durationMilliseconds: Double { HCI.tenMillisecondsToMilliseconds(duration) }
        public var periodMilliseconds: Double { Double(period) * 1280 }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Extended Scan Enable"
            enable = try HCI.readFlag(&reader, "Enable")
            filterDuplicates = DuplicateFilter(rawValue: try reader.u8("Filter_Duplicates"))
            duration = try reader.u16("Duration")
            period = try reader.u16("Period")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(enable ? 1 : 0)
            writer.u8(filterDuplicates.rawValue)
            writer.u16(duration)
            writer.u16(period)
        }
    }

    /// Initiating parameters for one PHY of LE Extended Create Connection (§7.8.66), 16 octets.
    public struct InitiatingPHYParameters: Hashable, Sendable, WireCodable, WireRenderable {
        /// Scan_Interval in 0.625 ms units (ignored for LE 2M, where nothing is scanned).
        public var scanInterval: UInt16
        /// Scan_Window in 0.625 ms units.
        public var scanWindow: UInt16
        public var connectionParameters: ConnectionParameters

        public init(
            scanInterval: UInt16 = 0x0060, scanWindow: UInt16 = 0x0060,
            connectionParameters: ConnectionParameters
        ) {
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
            self.connectionParameters = connectionParameters
        }

        public var scanIntervalMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(scanInterval)) }
        public var scanWindowMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(scanWindow)) }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            scanInterval = try reader.u16("Scan_Interval")
            scanWindow = try reader.u16("Scan_Window")
            connectionParameters = try ConnectionParameters(from: &reader)
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(scanInterval)
            writer.u16(scanWindow)
            connectionParameters.encode(into: &writer)
        }
    }

    /// HCI_LE_Extended_Create_Connection [v1] (Core 5.4 Vol 4 Part E §7.8.66). Command Status,
    /// then HCI_LE_Enhanced_Connection_Complete (and HCI_LE_Channel_Selection_Algorithm).
    public struct LEExtendedCreateConnection: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0043)
        public static let name = "LE Extended Create Connection"

        public static let knownPHYs: LEPHYs = [.le1M, .le2M, .leCoded]

        public var initiatorFilterPolicy: InitiatorFilterPolicy
        public var ownAddressType: OwnAddressType
        public var peerAddressType: AddressType
        public var peerAddress: BluetoothAddress
        /// Parameters for connecting on LE 1M, or nil.
        public var le1M: InitiatingPHYParameters?
        /// Parameters for a connection on LE 2M (after a 1M/Coded AUX_CONNECT_REQ), or nil.
        public var le2M: InitiatingPHYParameters?
        /// Parameters for connecting on LE Coded, or nil.
        public var leCoded: InitiatingPHYParameters?

        public init(
            initiatorFilterPolicy: InitiatorFilterPolicy = .peerAddress,
            ownAddressType: OwnAddressType = .public,
            peerAddressType: AddressType, peerAddress: BluetoothAddress, le1M: InitiatingPHYParameters?,
            le2M: InitiatingPHYParameters? = nil, leCoded: InitiatingPHYParameters? = nil
        ) {
            self.initiatorFilterPolicy = initiatorFilterPolicy
            self.ownAddressType = ownAddressType
            self.peerAddressType = peerAddressType
            self.peerAddress = peerAddress
            self.le1M = le1M
            self.le2M = le2M
            self.leCoded = leCoded
        }

        /// Initiating_PHYs as sent: one bit per PHY that has parameters.
        public var initiatingPHYs: LEPHYs {
            var phys: LEPHYs = []
            if le1M != nil { phys.insert(.le1M) }
            if le2M != nil { phys.insert(.le2M) }
            if leCoded != nil { phys.insert(.leCoded) }
            return phys
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Extended Create Connection"
            initiatorFilterPolicy = InitiatorFilterPolicy(rawValue: try reader.u8("Initiator_Filter_Policy"))
            ownAddressType = OwnAddressType(rawValue: try reader.u8("Own_Address_Type"))
            peerAddressType = AddressType(rawValue: try reader.u8("Peer_Address_Type"))
            peerAddress = try BluetoothAddress(from: &reader, field: "Peer_Address")
            let physOffset = reader.offset
            let phys = LEPHYs(rawValue: try reader.u8("Initiating_PHYs"))
            if !Self.knownPHYs.isSuperset(of: phys) {
                throw reader.error("Initiating_PHYs", .invalidValue(UInt64(phys.rawValue)), at: physOffset)
            }
            le1M = phys.contains(.le1M) ? try InitiatingPHYParameters(from: &reader) : nil
            le2M = phys.contains(.le2M) ? try InitiatingPHYParameters(from: &reader) : nil
            leCoded = phys.contains(.leCoded) ? try InitiatingPHYParameters(from: &reader) : nil
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(initiatorFilterPolicy.rawValue)
            writer.u8(ownAddressType.rawValue)
            writer.u8(peerAddressType.rawValue)
            peerAddress.encode(into: &writer)
            writer.u8(initiatingPHYs.rawValue)
            le1M?.encode(into: &writer)
            le2M?.encode(into: &writer)
            leCoded?.encode(into: &writer)
        }
    }
}
