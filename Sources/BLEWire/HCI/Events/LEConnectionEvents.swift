extension LEMetaEvent {
    /// HCI_LE_Connection_Complete (Core 5.4 Vol 4 Part E §7.7.65.1): a connection was created
    /// (or creation failed, per `status`).
    ///
    /// Intervals are kept in their raw units; the `…Milliseconds` properties convert them.
    public struct ConnectionComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        /// 12 bits; reserved top bits ignored on decode, written as zero.
        public var connectionHandle: ConnectionHandle
        public var role: Role
        public var peerAddress: LEAddress
        /// Units of 1.25 ms (0x0006–0x0C80).
        public var connectionInterval: UInt16
        /// Connection events the peripheral may skip (0x0000–0x01F3).
        public var peripheralLatency: UInt16
        /// Units of 10 ms (0x000A–0x0C80).
        public var supervisionTimeout: UInt16
        /// Code 0x00–0x07; see `LEMetaEvent.clockAccuracyPPM(_:)`.
        public var centralClockAccuracy: UInt8

        public init(
            status: HCIStatus = .success, connectionHandle: ConnectionHandle, role: Role, peerAddress: LEAddress,
            connectionInterval: UInt16, peripheralLatency: UInt16, supervisionTimeout: UInt16,
            centralClockAccuracy: UInt8
        ) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.role = role
            self.peerAddress = peerAddress
            self.connectionInterval = connectionInterval
            self.peripheralLatency = peripheralLatency
            self.supervisionTimeout = supervisionTimeout
            self.centralClockAccuracy = centralClockAccuracy
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Connection Complete event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            role = Role(rawValue: try reader.u8("Role"))
            let type = AddressType(rawValue: try reader.u8("Peer_Address_Type"))
            peerAddress = LEAddress(try BluetoothAddress(from: &reader, field: "Peer_Address"), type: type)
            connectionInterval = try reader.u16("Connection_Interval")
            peripheralLatency = try reader.u16("Peripheral_Latency")
            supervisionTimeout = try reader.u16("Supervision_Timeout")
            centralClockAccuracy = try reader.u8("Central_Clock_Accuracy")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(role.rawValue)
            writer.u8(peerAddress.type.rawValue)
            peerAddress.address.encode(into: &writer)
            writer.u16(connectionInterval)
            writer.u16(peripheralLatency)
            writer.u16(supervisionTimeout)
            writer.u8(centralClockAccuracy)
        }

        public var connectionIntervalMilliseconds: Double { HCIEventUnits.interval(connectionInterval) }
        public var supervisionTimeoutMilliseconds: Double { HCIEventUnits.timeout(supervisionTimeout) }
    }

    /// HCI_LE_Enhanced_Connection_Complete [v1] (Core 5.4 Vol 4 Part E §7.7.65.10), subevent
    /// 0x0A: Connection Complete plus the resolvable private addresses in use when the
    /// controller does address resolution (all zero when not used).
    public struct EnhancedConnectionComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        /// 12 bits; reserved top bits ignored on decode, written as zero.
        public var connectionHandle: ConnectionHandle
        public var role: Role
        /// The peer's identity address when resolved (type public/random identity), else its
        /// address on air.
        public var peerAddress: LEAddress
        public var localResolvablePrivateAddress: BluetoothAddress
        public var peerResolvablePrivateAddress: BluetoothAddress
        /// Units of 1.25 ms.
        public var connectionInterval: UInt16
        public var peripheralLatency: UInt16
        /// Units of 10 ms.
        public var supervisionTimeout: UInt16
        /// Code 0x00–0x07; see `LEMetaEvent.clockAccuracyPPM(_:)`.
        public var centralClockAccuracy: UInt8

        public init(
            status: HCIStatus = .success, connectionHandle: ConnectionHandle, role: Role, peerAddress: LEAddress,
            localResolvablePrivateAddress: BluetoothAddress = .zero,
            peerResolvablePrivateAddress: BluetoothAddress = .zero,
            connectionInterval: UInt16, peripheralLatency: UInt16, supervisionTimeout: UInt16,
            centralClockAccuracy: UInt8
        ) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.role = role
            self.peerAddress = peerAddress
            self.localResolvablePrivateAddress = localResolvablePrivateAddress
            self.peerResolvablePrivateAddress = peerResolvablePrivateAddress
            self.connectionInterval = connectionInterval
            self.peripheralLatency = peripheralLatency
            self.supervisionTimeout = supervisionTimeout
            self.centralClockAccuracy = centralClockAccuracy
        }

        /// The legacy event's fields, with no resolvable private addresses.
        public init(_ legacy: ConnectionComplete) {
            self.init(
                status: legacy.status, connectionHandle: legacy.connectionHandle, role: legacy.role,
                peerAddress: legacy.peerAddress, connectionInterval: legacy.connectionInterval,
                peripheralLatency: legacy.peripheralLatency, supervisionTimeout: legacy.supervisionTimeout,
                centralClockAccuracy: legacy.centralClockAccuracy)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            try self.init(from: &reader, context: "HCI LE Enhanced Connection Complete [v1] event")
        }

        /// Shared with [v2], whose first parameters are the same.
        init(from reader: inout ByteReader, context: StaticString) throws(DecodeError) {
            reader.context = context
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            role = Role(rawValue: try reader.u8("Role"))
            let type = AddressType(rawValue: try reader.u8("Peer_Address_Type"))
            peerAddress = LEAddress(try BluetoothAddress(from: &reader, field: "Peer_Address"), type: type)
            localResolvablePrivateAddress = try BluetoothAddress(
                from: &reader, field: "Local_Resolvable_Private_Address")
            peerResolvablePrivateAddress = try BluetoothAddress(
                from: &reader, field: "Peer_Resolvable_Private_Address")
            connectionInterval = try reader.u16("Connection_Interval")
            peripheralLatency = try reader.u16("Peripheral_Latency")
            supervisionTimeout = try reader.u16("Supervision_Timeout")
            centralClockAccuracy = try reader.u8("Central_Clock_Accuracy")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(role.rawValue)
            writer.u8(peerAddress.type.rawValue)
            peerAddress.address.encode(into: &writer)
            localResolvablePrivateAddress.encode(into: &writer)
            peerResolvablePrivateAddress.encode(into: &writer)
            writer.u16(connectionInterval)
            writer.u16(peripheralLatency)
            writer.u16(supervisionTimeout)
            writer.u8(centralClockAccuracy)
        }

        public var connectionIntervalMilliseconds: Double { HCIEventUnits.interval(connectionInterval) }
        public var supervisionTimeoutMilliseconds: Double { HCIEventUnits.timeout(supervisionTimeout) }
    }

    /// HCI_LE_Enhanced_Connection_Complete [v2] (Core 5.4 Vol 4 Part E §7.7.65.10), subevent
    /// 0x29: the [v1] parameters followed by Advertising_Handle and Sync_Handle, which name the
    /// advertising set or periodic advertising train (PAwR) the connection was created from.
    /// Values meaning "none" (0xFF, 0xFFFF) are kept as received.
    public struct EnhancedConnectionCompleteV2: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        /// 12 bits; reserved top bits ignored on decode, written as zero.
        public var connectionHandle: ConnectionHandle
        public var role: Role
        public var peerAddress: LEAddress
        public var localResolvablePrivateAddress: BluetoothAddress
        public var peerResolvablePrivateAddress: BluetoothAddress
        /// Units of 1.25 ms.
        public var connectionInterval: UInt16
        public var peripheralLatency: UInt16
        /// Units of 10 ms.
        public var supervisionTimeout: UInt16
        public var centralClockAccuracy: UInt8
        public var advertisingHandle: UInt8
        /// Kept whole (not masked): 0xFFFF means no periodic advertising train.
        public var syncHandle: UInt16

        public init(
            _ v1: EnhancedConnectionComplete, advertisingHandle: UInt8 = 0xFF, syncHandle: UInt16 = 0xFFFF
        ) {
            status = v1.status
            connectionHandle = v1.connectionHandle
            role = v1.role
            peerAddress = v1.peerAddress
            localResolvablePrivateAddress = v1.localResolvablePrivateAddress
            peerResolvablePrivateAddress = v1.peerResolvablePrivateAddress
            connectionInterval = v1.connectionInterval
            peripheralLatency = v1.peripheralLatency
            supervisionTimeout = v1.supervisionTimeout
            centralClockAccuracy = v1.centralClockAccuracy
            self.advertisingHandle = advertisingHandle
            self.syncHandle = syncHandle
        }

        /// The [v1] parameters alone.
        public var v1: EnhancedConnectionComplete {
            EnhancedConnectionComplete(
                status: status, connectionHandle: connectionHandle, role: role, peerAddress: peerAddress,
                localResolvablePrivateAddress: localResolvablePrivateAddress,
                peerResolvablePrivateAddress: peerResolvablePrivateAddress,
                connectionInterval: connectionInterval, peripheralLatency: peripheralLatency,
                supervisionTimeout: supervisionTimeout, centralClockAccuracy: centralClockAccuracy)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            let v1 = try EnhancedConnectionComplete(
                from: &reader, context: "HCI LE Enhanced Connection Complete [v2] event")
            let advertisingHandle = try reader.u8("Advertising_Handle")
            let syncHandle = try reader.u16("Sync_Handle")
            self.init(v1, advertisingHandle: advertisingHandle, syncHandle: syncHandle)
        }

        public func encode(into writer: inout ByteWriter) {
            v1.encode(into: &writer)
            writer.u8(advertisingHandle)
            writer.u16(syncHandle)
        }

        public var connectionIntervalMilliseconds: Double { HCIEventUnits.interval(connectionInterval) }
        public var supervisionTimeoutMilliseconds: Double { HCIEventUnits.timeout(supervisionTimeout) }
    }

    /// HCI_LE_Connection_Update_Complete (Core 5.4 Vol 4 Part E §7.7.65.3): new connection
    /// parameters are in effect (or the update failed, per `status`).
    public struct ConnectionUpdateComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle
        /// Units of 1.25 ms.
        public var connectionInterval: UInt16
        public var peripheralLatency: UInt16
        /// Units of 10 ms.
        public var supervisionTimeout: UInt16

        public init(
            status: HCIStatus = .success, connectionHandle: ConnectionHandle, connectionInterval: UInt16,
            peripheralLatency: UInt16, supervisionTimeout: UInt16
        ) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.connectionInterval = connectionInterval
            self.peripheralLatency = peripheralLatency
            self.supervisionTimeout = supervisionTimeout
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Connection Update Complete event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            connectionInterval = try reader.u16("Connection_Interval")
            peripheralLatency = try reader.u16("Peripheral_Latency")
            supervisionTimeout = try reader.u16("Supervision_Timeout")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u16(connectionInterval)
            writer.u16(peripheralLatency)
            writer.u16(supervisionTimeout)
        }

        public var connectionIntervalMilliseconds: Double { HCIEventUnits.interval(connectionInterval) }
        public var supervisionTimeoutMilliseconds: Double { HCIEventUnits.timeout(supervisionTimeout) }
    }

    /// HCI_LE_Remote_Connection_Parameter_Request (Core 5.4 Vol 4 Part E §7.7.65.6): the peer
    /// asks for new connection parameters; the host replies with a (negative) reply command.
    public struct RemoteConnectionParameterRequest: Sendable, Hashable, WireCodable, WireRenderable {
        public var connectionHandle: ConnectionHandle
        /// Units of 1.25 ms.
        public var intervalMin: UInt16
        /// Units of 1.25 ms.
        public var intervalMax: UInt16
        public var maxLatency: UInt16
        /// Supervision timeout, units of 10 ms.
        public var timeout: UInt16

        public init(
            connectionHandle: ConnectionHandle, intervalMin: UInt16, intervalMax: UInt16, maxLatency: UInt16,
            timeout: UInt16
        ) {
            self.connectionHandle = connectionHandle
            self.intervalMin = intervalMin
            self.intervalMax = intervalMax
            self.maxLatency = maxLatency
            self.timeout = timeout
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Remote Connection Parameter Request event"
            connectionHandle = try HCIEventHandle.read(&reader)
            intervalMin = try reader.u16("Interval_Min")
            intervalMax = try reader.u16("Interval_Max")
            maxLatency = try reader.u16("Max_Latency")
            timeout = try reader.u16("Timeout")
        }

        public func encode(into writer: inout ByteWriter) {
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u16(intervalMin)
            writer.u16(intervalMax)
            writer.u16(maxLatency)
            writer.u16(timeout)
        }

        public var intervalMinMilliseconds: Double { HCIEventUnits.interval(intervalMin) }
        public var intervalMaxMilliseconds: Double { HCIEventUnits.interval(intervalMax) }
        public var timeoutMilliseconds: Double { HCIEventUnits.timeout(timeout) }
    }
}
