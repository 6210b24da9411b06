extension LEMetaEvent {
    /// HCI_LE_Read_Remote_Features_Complete (Core 5.4 Vol 4 Part E §7.7.65.4): the peer's LE
    /// feature set (Vol 6 Part B §4.6), bit n of the 64-bit little-endian field being feature n.
    public struct ReadRemoteFeaturesComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle
        public var leFeatures: UInt64

        public init(status: HCIStatus = .success, connectionHandle: ConnectionHandle, leFeatures: UInt64) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.leFeatures = leFeatures
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Read Remote Features Complete event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            leFeatures = try reader.u64("LE_Features")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u64(leFeatures)
        }

        /// Whether feature bit `bit` (0–63) is set.
        public func supports(bit: Int) -> Bool {
            (0..<64).contains(bit) && leFeatures & (1 << UInt64(bit)) != 0
        }
    }

    /// HCI_LE_Data_Length_Change (Core 5.4 Vol 4 Part E §7.7.65.7): the maximum link-layer
    /// payload sizes (octets) and air times (microseconds) now in use on a connection.
    public struct DataLengthChange: Sendable, Hashable, WireCodable, WireRenderable {
        public var connectionHandle: ConnectionHandle
        /// 0x001B–0x00FB octets.
        public var maxTxOctets: UInt16
        /// Microseconds (0x0148–0x4290).
        public var maxTxTime: UInt16
        public var maxRxOctets: UInt16
        /// Microseconds.
        public var maxRxTime: UInt16

        public init(
            connectionHandle: ConnectionHandle, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16,
            maxRxTime: UInt16
        ) {
            self.connectionHandle = connectionHandle
            self.maxTxOctets = maxTxOctets
            self.maxTxTime = maxTxTime
            self.maxRxOctets = maxRxOctets
            self.maxRxTime = maxRxTime
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Data Length Change event"
            connectionHandle = try HCIEventHandle.read(&reader)
            maxTxOctets = try reader.u16("Max_TX_Octets")
            maxTxTime = try reader.u16("Max_TX_Time")
            maxRxOctets = try reader.u16("Max_RX_Octets")
            maxRxTime = try reader.u16("Max_RX_Time")
        }

        public func encode(into writer: inout ByteWriter) {
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u16(maxTxOctets)
            writer.u16(maxTxTime)
            writer.u16(maxRxOctets)
            writer.u16(maxRxTime)
        }
    }

    /// HCI_LE_PHY_Update_Complete (Core 5.4 Vol 4 Part E §7.7.65.12): the PHYs now used in each
    /// direction (or the update failed, per `status`).
    public struct PHYUpdateComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle
        public var txPHY: PHY.HCIValue
        public var rxPHY: PHY.HCIValue

        public init(status: HCIStatus = .success, connectionHandle: ConnectionHandle, txPHY: PHY.HCIValue, rxPHY: PHY.HCIValue) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.txPHY = txPHY
            self.rxPHY = rxPHY
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE PHY Update Complete event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            txPHY = PHY.HCIValue(rawValue: try reader.u8("TX_PHY"))
            rxPHY = PHY.HCIValue(rawValue: try reader.u8("RX_PHY"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(txPHY.rawValue)
            writer.u8(rxPHY.rawValue)
        }
    }

    /// HCI_LE_Channel_Selection_Algorithm (Core 5.4 Vol 4 Part E §7.7.65.20): which channel
    /// selection algorithm (Vol 6 Part B §4.5.8) a new connection uses.
    public struct ChannelSelectionAlgorithm: Sendable, Hashable, WireCodable, WireRenderable {
        public enum Algorithm: Sendable, Hashable, CustomRendering {
            /// 0x00: LE Channel Selection Algorithm #1.
            case algorithm1
            /// 0x01: LE Channel Selection Algorithm #2.
            case algorithm2
            /// A reserved value, kept as received.
            case other(UInt8)

            public init(rawValue: UInt8) {
                switch rawValue {
                case 0x00: self = .algorithm1
                case 0x01: self = .algorithm2
                default: self = .other(rawValue)
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .algorithm1: 0x00
                case .algorithm2: 0x01
                case .other(let value): value
                }
            }

            public var rendered: RenderedValue {
                switch self {
                case .algorithm1: .symbol("#1")
                case .algorithm2: .symbol("#2")
                case .other(let value): .symbol("reserved(\(Hex.prefixed(value, width: 2)))")
                }
            }
        }

        public var connectionHandle: ConnectionHandle
        public var channelSelectionAlgorithm: Algorithm

        public init(connectionHandle: ConnectionHandle, channelSelectionAlgorithm: Algorithm) {
            self.connectionHandle = connectionHandle
            self.channelSelectionAlgorithm = channelSelectionAlgorithm
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Channel Selection Algorithm event"
            connectionHandle = try HCIEventHandle.read(&reader)
            channelSelectionAlgorithm = Algorithm(rawValue: try reader.u8("Channel_Selection_Algorithm"))
        }

        public func encode(into writer: inout ByteWriter) {
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(channelSelectionAlgorithm.rawValue)
        }
    }
}
