// Controller & Baseband commands (OGF 0x03, Core 5.4 Vol 4 Part E §7.3) that an LE host uses.

extension HCI {
    /// HCI_Reset (Core 5.4 Vol 4 Part E §7.3.2).
    public struct Reset: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x0003)
        public static let name = "Reset"

        public init() {}
    }

    /// HCI_Set_Event_Mask (Core 5.4 Vol 4 Part E §7.3.1).
    public struct SetEventMask: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x0001)
        public static let name = "Set Event Mask"

        public var eventMask: EventMask

        public init(eventMask: EventMask = .defaultMask) { self.eventMask = eventMask }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Set Event Mask"
            eventMask = EventMask(rawValue: try reader.u64("Event_Mask"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u64(eventMask.rawValue) }
    }

    /// HCI_Set_Event_Mask_Page_2 (Core 5.4 Vol 4 Part E §7.3.69).
    public struct SetEventMaskPage2: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x0063)
        public static let name = "Set Event Mask Page 2"

        public var eventMaskPage2: EventMaskPage2

        public init(eventMaskPage2: EventMaskPage2) { self.eventMaskPage2 = eventMaskPage2 }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Set Event Mask Page 2"
            eventMaskPage2 = EventMaskPage2(rawValue: try reader.u64("Event_Mask_Page_2"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u64(eventMaskPage2.rawValue) }
    }

    /// HCI_Read_Transmit_Power_Level (Core 5.4 Vol 4 Part E §7.3.35).
    public struct ReadTransmitPowerLevel: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x002D)
        public static let name = "Read Transmit Power Level"

        /// Type: which level to read.
        public enum LevelType: Hashable, Sendable {
            case current
            case maximum
            case other(UInt8)

            public init(rawValue: UInt8) {
                switch rawValue {
                case 0x00: self = .current
                case 0x01: self = .maximum
                default: self = .other(rawValue)
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .current: 0x00
                case .maximum: 0x01
                case .other(let value): value
                }
            }
        }

        public var connectionHandle: ConnectionHandle
        public var type: LevelType

        public init(connectionHandle: ConnectionHandle, type: LevelType = .current) {
            self.connectionHandle = connectionHandle
            self.type = type
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Read Transmit Power Level"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            type = LevelType(rawValue: try reader.u8("Type"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            writer.u8(type.rawValue)
        }

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.3.35).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var connectionHandle: ConnectionHandle = 0
            /// TX_Power_Level in dBm.
            public var txPowerLevel: Int8 = 0

            public init(status: HCIStatus = .success, connectionHandle: ConnectionHandle, txPowerLevel: Int8) {
                self.status = status
                self.connectionHandle = connectionHandle
                self.txPowerLevel = txPowerLevel
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read Transmit Power Level return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
                txPowerLevel = try reader.i8("TX_Power_Level")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(connectionHandle.rawValue)
                writer.i8(txPowerLevel)
            }
        }
    }

    /// HCI_Set_Controller_To_Host_Flow_Control (Core 5.4 Vol 4 Part E §7.3.38).
    public struct SetControllerToHostFlowControl: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x0031)
        public static let name = "Set Controller To Host Flow Control"

        /// Flow_Control_Enable: which data the controller paces by the host's buffers.
        public enum FlowControl: Hashable, Sendable {
            case off
            case aclOnly
            case synchronousOnly
            case aclAndSynchronous
            case other(UInt8)

            public init(rawValue: UInt8) {
                switch rawValue {
                case 0x00: self = .off
                case 0x01: self = .aclOnly
                case 0x02: self = .synchronousOnly
                case 0x03: self = .aclAndSynchronous
                default: self = .other(rawValue)
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .off: 0x00
                case .aclOnly: 0x01
                case .synchronousOnly: 0x02
                case .aclAndSynchronous: 0x03
                case .other(let value): value
                }
            }
        }

        public var flowControlEnable: FlowControl

        public init(flowControlEnable: FlowControl) { self.flowControlEnable = flowControlEnable }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Set Controller To Host Flow Control"
            flowControlEnable = FlowControl(rawValue: try reader.u8("Flow_Control_Enable"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u8(flowControlEnable.rawValue) }
    }

    /// HCI_Host_Buffer_Size (Core 5.4 Vol 4 Part E §7.3.39): the host's receive buffers, for
    /// controller-to-host flow control.
    public struct HostBufferSize: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x0033)
        public static let name = "Host Buffer Size"

        public var hostACLDataPacketLength: UInt16
        public var hostSynchronousDataPacketLength: UInt8
        public var hostTotalNumACLDataPackets: UInt16
        public var hostTotalNumSynchronousDataPackets: UInt16

        public init(
            hostACLDataPacketLength: UInt16, hostSynchronousDataPacketLength: UInt8 = 0,
            hostTotalNumACLDataPackets: UInt16, hostTotalNumSynchronousDataPackets: UInt16 = 0
        ) {
            self.hostACLDataPacketLength = hostACLDataPacketLength
            self.hostSynchronousDataPacketLength = hostSynchronousDataPacketLength
            self.hostTotalNumACLDataPackets = hostTotalNumACLDataPackets
            self.hostTotalNumSynchronousDataPackets = hostTotalNumSynchronousDataPackets
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Host Buffer Size"
            hostACLDataPacketLength = try reader.u16("Host_ACL_Data_Packet_Length")
            hostSynchronousDataPacketLength = try reader.u8("Host_Synchronous_Data_Packet_Length")
            hostTotalNumACLDataPackets = try reader.u16("Host_Total_Num_ACL_Data_Packets")
            hostTotalNumSynchronousDataPackets = try reader.u16("Host_Total_Num_Synchronous_Data_Packets")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(hostACLDataPacketLength)
            writer.u8(hostSynchronousDataPacketLength)
            writer.u16(hostTotalNumACLDataPackets)
            writer.u16(hostTotalNumSynchronousDataPackets)
        }
    }

    /// HCI_Read_LE_Host_Support (Core 5.4 Vol 4 Part E §7.3.78).
    public struct ReadLEHostSupport: HCICommandWithCompleteEvent, Hashable, WireEmpty {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x006C)
        public static let name = "Read LE Host Support"

        public init() {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.3.78).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            /// LE_Supported_Host, kept raw (0x00 disabled, 0x01 enabled).
            public var leSupportedHost: UInt8 = 0
            /// The former Simultaneous_LE_Host octet, now unused.
            public var unused: UInt8 = 0

            public init(status: HCIStatus = .success, leSupportedHost: UInt8, unused: UInt8 = 0) {
                self.status = status
                self.leSupportedHost = leSupportedHost
                self.unused = unused
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read LE Host Support return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                leSupportedHost = try reader.u8("LE_Supported_Host")
                unused = try reader.u8("Unused")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u8(leSupportedHost)
                writer.u8(unused)
            }
        }
    }

    /// HCI_Write_LE_Host_Support (Core 5.4 Vol 4 Part E §7.3.79): sets the LE Supported (Host)
    /// feature bit on dual-mode controllers.
    public struct WriteLEHostSupport: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = StatusReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x006D)
        public static let name = "Write LE Host Support"

        public var leSupportedHost: Bool
        /// The former Simultaneous_LE_Host octet; the specification requires 0x00. Kept raw.
        public var unused: UInt8

        public init(leSupportedHost: Bool = true, unused: UInt8 = 0) {
            self.leSupportedHost = leSupportedHost
            self.unused = unused
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Write LE Host Support"
            leSupportedHost = try HCI.readFlag(&reader, "LE_Supported_Host")
            unused = try reader.u8("Unused")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(leSupportedHost ? 1 : 0)
            writer.u8(unused)
        }
    }

    /// HCI_Read_Authenticated_Payload_Timeout (Core 5.4 Vol 4 Part E §7.3.93).
    public struct ReadAuthenticatedPayloadTimeout: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x007B)
        public static let name = "Read Authenticated Payload Timeout"

        public var connectionHandle: ConnectionHandle

        public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Read Authenticated Payload Timeout"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(connectionHandle.rawValue) }

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.3.93).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var connectionHandle: ConnectionHandle = 0
            /// In 10 ms units.
            public var authenticatedPayloadTimeout: UInt16 = 0

            public init(
                status: HCIStatus = .success, connectionHandle: ConnectionHandle, authenticatedPayloadTimeout: UInt16
            ) {
                self.status = status
                self.connectionHandle = connectionHandle
                self.authenticatedPayloadTimeout = authenticatedPayloadTimeout
            }

            public var timeoutMilliseconds: Double {
                HCI.tenMillisecondsToMilliseconds(authenticatedPayloadTimeout)
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "Read Authenticated Payload Timeout return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
                authenticatedPayloadTimeout = try reader.u16("Authenticated_Payload_Timeout")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u16(connectionHandle.rawValue)
                writer.u16(authenticatedPayloadTimeout)
            }
        }
    }

    /// HCI_Write_Authenticated_Payload_Timeout (Core 5.4 Vol 4 Part E §7.3.94): the LE Ping
    /// deadline for a packet with a valid MIC.
    public struct WriteAuthenticatedPayloadTimeout: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = ConnectionHandleReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.controllerAndBaseband, ocf: 0x007C)
        public static let name = "Write Authenticated Payload Timeout"

        public var connectionHandle: ConnectionHandle
        /// In 10 ms units (0x0001–0xFFFF; default 0x0BB8, 30 s).
        public var authenticatedPayloadTimeout: UInt16

        public init(connectionHandle: ConnectionHandle, authenticatedPayloadTimeout: UInt16) {
            self.connectionHandle = connectionHandle
            self.authenticatedPayloadTimeout = authenticatedPayloadTimeout
        }

        public var timeoutMilliseconds: Double {
            HCI.tenMillisecondsToMilliseconds(authenticatedPayloadTimeout)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "Write Authenticated Payload Timeout"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            authenticatedPayloadTimeout = try reader.u16("Authenticated_Payload_Timeout")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            writer.u16(authenticatedPayloadTimeout)
        }
    }
}
