// LE connection commands (Core 5.4 Vol 4 Part E §7.8.12, §7.8.13, §7.8.18–§7.8.21, §7.8.31,
// §7.8.32): creating, updating and inspecting connections.

extension HCI {
    /// The six connection parameters that LE Create Connection (§7.8.12), LE Connection Update
    /// (§7.8.18), LE Remote Connection Parameter Request Reply (§7.8.31) and LE Extended Create
    /// Connection (§7.8.66) all carry, in this order (12 octets).
    public struct ConnectionParameters: Hashable, Sendable, WireCodable, WireRenderable {
        /// Connection_Interval_Min in 1.25 ms units (0x0006–0x0C80).
        public var connectionIntervalMin: UInt16
        /// Connection_Interval_Max in 1.25 ms units.
        public var connectionIntervalMax: UInt16
        /// Max_Latency: connection events the peripheral may skip (0x0000–0x01F3).
        public var maxLatency: UInt16
        /// Supervision_Timeout in 10 ms units (0x000A–0x0C80).
        public var supervisionTimeout: UInt16
        /// Min_CE_Length in 0.625 ms units (a hint to the controller).
        public var minCELength: UInt16
        /// Max_CE_Length in 0.625 ms units.
        public var maxCELength: UInt16

        public init(
            connectionIntervalMin: UInt16, connectionIntervalMax: UInt16, maxLatency: UInt16 = 0,
            supervisionTimeout: UInt16, minCELength: UInt16 = 0, maxCELength: UInt16 = 0
        ) {
            self.connectionIntervalMin = connectionIntervalMin
            self.connectionIntervalMax = connectionIntervalMax
            self.maxLatency = maxLatency
            self.supervisionTimeout = supervisionTimeout
            self.minCELength = minCELength
            self.maxCELength = maxCELength
        }

        public var connectionIntervalMinMilliseconds: Double {
            HCI.connectionUnitsToMilliseconds(connectionIntervalMin)
        }
        public var connectionIntervalMaxMilliseconds: Double {
            HCI.connectionUnitsToMilliseconds(connectionIntervalMax)
        }
        public var supervisionTimeoutMilliseconds: Double {
            HCI.tenMillisecondsToMilliseconds(supervisionTimeout)
        }
        public var minCELengthMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(minCELength)) }
        public var maxCELengthMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(maxCELength)) }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            connectionIntervalMin = try reader.u16("Connection_Interval_Min")
            connectionIntervalMax = try reader.u16("Connection_Interval_Max")
            maxLatency = try reader.u16("Max_Latency")
            supervisionTimeout = try reader.u16("Supervision_Timeout")
            minCELength = try reader.u16("Min_CE_Length")
            maxCELength = try reader.u16("Max_CE_Length")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionIntervalMin)
            writer.u16(connectionIntervalMax)
            writer.u16(maxLatency)
            writer.u16(supervisionTimeout)
            writer.u16(minCELength)
            writer.u16(maxCELength)
        }
    }

    /// HCI_LE_Create_Connection (Core 5.4 Vol 4 Part E §7.8.12). Command Status, then
    /// HCI_LE_Connection_Complete or HCI_LE_Enhanced_Connection_Complete.
    public struct LECreateConnection: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x000D)
        public static let name = "LE Create Connection"

        /// LE_Scan_Interval in 0.625 ms units.
        public var leScanInterval: UInt16
        /// LE_Scan_Window in 0.625 ms units.
        public var leScanWindow: UInt16
        public var initiatorFilterPolicy: InitiatorFilterPolicy
        /// Peer_Address_Type: public, random, or (with the resolving list) an identity type.
        public var peerAddressType: AddressType
        public var peerAddress: BluetoothAddress
        public var ownAddressType: OwnAddressType
        public var connectionParameters: ConnectionParameters

        public init(
            leScanInterval: UInt16, leScanWindow: UInt16,
            initiatorFilterPolicy: InitiatorFilterPolicy = .peerAddress,
            peerAddressType: AddressType, peerAddress: BluetoothAddress,
            ownAddressType: OwnAddressType = .public,
            connectionParameters: ConnectionParameters
        ) {
            self.leScanInterval = leScanInterval
            self.leScanWindow = leScanWindow
            self.initiatorFilterPolicy = initiatorFilterPolicy
            self.peerAddressType = peerAddressType
            self.peerAddress = peerAddress
            self.ownAddressType = ownAddressType
            self.connectionParameters = connectionParameters
        }

        public var scanIntervalMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(leScanInterval)) }
        public var scanWindowMilliseconds: Double { HCI.slotsToMilliseconds(UInt32(leScanWindow)) }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Create Connection"
            leScanInterval = try reader.u16("LE_Scan_Interval")
            leScanWindow = try reader.u16("LE_Scan_Window")
            initiatorFilterPolicy = InitiatorFilterPolicy(rawValue: try reader.u8("Initiator_Filter_Policy"))
            peerAddressType = AddressType(rawValue: try reader.u8("Peer_Address_Type"))
            peerAddress = try BluetoothAddress(from: &reader, field: "Peer_Address")
            ownAddressType = OwnAddressType(rawValue: try reader.u8("Own_Address_Type"))
            connectionParameters = try ConnectionParameters(from: &reader)
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(leScanInterval)
            writer.u16(leScanWindow)
            writer.u8(initiatorFilterPolicy.rawValue)
            writer.u8(peerAddressType.rawValue)
            peerAddress.encode(into: &writer)
            writer.u8(ownAddressType.rawValue)
            connectionParameters.encode(into: &writer)
        }
    }

    /// HCI_LE_Create_Connection_Cancel (Core 5.4 Vol 4 Part E §7.8.13). Command Complete; the
    /// pending creation then ends with a connection complete event carrying 0x02 Unknown
    /// Connection Identifier.
    public struct LECreateConnectionCancel: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x000E)
        public static let name = "LE Create Connection Cancel"

        public init() {}
        public init(from reader: inout ByteReader) throws(DecodeError) {}
        public func encode(into writer: inout ByteWriter) {}
    }

    /// HCI_LE_Connection_Update (Core 5.4 Vol 4 Part E §7.8.18). Command Status, then
    /// HCI_LE_Connection_Update_Complete.
    public struct LEConnectionUpdate: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0013)
        public static let name = "LE Connection Update"

        public var connectionHandle: ConnectionHandle
        public var connectionParameters: ConnectionParameters

        public init(connectionHandle: ConnectionHandle, connectionParameters: ConnectionParameters) {
            self.connectionHandle = connectionHandle
            self.connectionParameters = connectionParameters
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Connection Update"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            connectionParameters = try ConnectionParameters(from: &reader)
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            connectionParameters.encode(into: &writer)
        }
    }

    /// HCI_LE_Remote_Connection_Parameter_Request_Reply (Core 5.4 Vol 4 Part E §7.8.31): accepts
    /// a peer's connection parameter request, possibly with other values.
    public struct LERemoteConnectionParameterRequestReply: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = ConnectionHandleReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0020)
        public static let name = "LE Remote Connection Parameter Request Reply"

        public var connectionHandle: ConnectionHandle
        /// Interval_Min, Interval_Max, Max_Latency, Timeout, Min_CE_Length, Max_CE_Length.
        public var connectionParameters: ConnectionParameters

        public init(connectionHandle: ConnectionHandle, connectionParameters: ConnectionParameters) {
            self.connectionHandle = connectionHandle
            self.connectionParameters = connectionParameters
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Remote Connection Parameter Request Reply"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            connectionParameters = try ConnectionParameters(from: &reader)
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            connectionParameters.encode(into: &writer)
        }
    }

    /// HCI_LE_Remote_Connection_Parameter_Request_Negative_Reply (Core 5.4 Vol 4 Part E §7.8.32).
    public struct LERemoteConnectionParameterRequestNegativeReply: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = ConnectionHandleReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0021)
        public static let name = "LE Remote Connection Parameter Request Negative Reply"

        public var connectionHandle: ConnectionHandle
        /// Usually 0x3B Unacceptable Connection Parameters.
        public var reason: HCIStatus

        public init(connectionHandle: ConnectionHandle, reason: HCIStatus = .unacceptableConnectionParameters) {
            self.connectionHandle = connectionHandle
            self.reason = reason
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Remote Connection Parameter Request Negative Reply"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            reason = HCIStatus(try reader.u8("Reason"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            writer.u8(reason.rawValue)
        }
    }

    /// HCI_LE_Read_Remote_Features (Core 5.4 Vol 4 Part E §7.8.21). Command Status, then
    /// HCI_LE_Read_Remote_Features_Complete.
    public struct LEReadRemoteFeatures: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0016)
        public static let name = "LE Read Remote Features"

        public var connectionHandle: ConnectionHandle

        public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Read Remote Features"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(connectionHandle.rawValue) }
    }

    /// The 37 data channels as a 5-octet bit mask, channel n in bit n (Core 5.4 Vol 4 Part E
    /// §7.8.19, §7.8.20). Bits 37–39 are reserved and kept as received.
    public struct LEChannelMap: Hashable, Sendable, CustomRendering {
        /// The low 40 bits are used.
        public let rawValue: UInt64

        public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFF_FFFF_FFFF }

        /// All 37 data channels.
        public static let allDataChannels = LEChannelMap(rawValue: 0x1F_FFFF_FFFF)

        public func contains(channel: Int) -> Bool {
            (0..<40).contains(channel) && rawValue >> UInt64(channel) & 1 == 1
        }

        public var rendered: RenderedValue { .symbol(Hex.prefixed(rawValue, width: 10)) }
    }

    /// HCI_LE_Set_Host_Channel_Classification (Core 5.4 Vol 4 Part E §7.8.19): channels the
    /// host knows to be bad (bit 0).
    public struct LESetHostChannelClassification: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0014)
        public static let name = "LE Set Host Channel Classification"

        public var channelMap: LEChannelMap

        public init(channelMap: LEChannelMap) { self.channelMap = channelMap }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Set Host Channel Classification"
            channelMap = LEChannelMap(rawValue: try reader.uint(5, "Channel_Map"))
        }

        public func encode(into writer: inout ByteWriter) { writer.uint(channelMap.rawValue, width: 5) }
    }

    /// HCI_LE_Read_Channel_Map (Core 5.4 Vol 4 Part E §7.8.20).
    public struct LEReadChannelMap: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0015)
        public static let name = "LE Read Channel Map"

        public var connectionHandle: ConnectionHandle

        public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Read Channel Map"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(connectionHandle.rawValue) }

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.20).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var connectionHandle: ConnectionHandle = 0
            public var channelMap = LEChannelMap(rawValue: 0)

            public init(status: HCIStatus = .success, connectionHandle: ConnectionHandle, channelMap: LEChannelMap) {
                self.status = status
                self.connectionHandle = connectionHandle
                self.channelMap = channelMap
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Read Channel Map return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
                channelMap = LEChannelMap(rawValue: try reader.uint(5, "Channel_Map"))
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(connectionHandle.rawValue)
                writer.uint(channelMap.rawValue, width: 5)
            }
        }
    }
}
