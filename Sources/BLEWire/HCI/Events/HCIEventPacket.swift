/// A raw HCI Event packet (Core 5.4 Vol 4 Part E §5.4.4): event code, parameter total length and
/// parameters, without the H4 packet indicator.
///
/// Decoding checks Parameter_Total_Length against the octets present; `decodeEvent()` gives the
/// typed `HCIEvent`. The parameters are a slice of the input (no copy).
public struct HCIEventPacket: WireCodable, Hashable, WireRenderable, CustomRendering {
    public var eventCode: HCIEvent.Code
    public var parameters: ArraySlice<UInt8>

    public init(eventCode: HCIEvent.Code, parameters: ArraySlice<UInt8>) {
        self.eventCode = eventCode
        self.parameters = parameters
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "HCI Event packet"
        eventCode = HCIEvent.Code(rawValue: try reader.u8("Event_Code"))
        let length = Int(try reader.u8("Parameter_Total_Length"))
        if reader.remaining != length {
            throw reader.error(
                "Parameter_Total_Length", .lengthMismatch(declared: length, actual: reader.remaining))
        }
        parameters = try reader.take(length, "Event_Parameters")
    }

    /// Writes the header and parameters. Parameters longer than 255 octets cannot be sent in one
    /// event: the length octet then holds the count modulo 256, so keep events within the limit.
    public func encode(into writer: inout ByteWriter) {
        writer.u8(eventCode.rawValue)
        writer.u8(UInt8(truncatingIfNeeded: parameters.count))
        writer.append(parameters)
    }

    /// The typed event (unknown codes decode to `.unknown`, never to an error).
    public func decodeEvent() throws(DecodeError) -> HCIEvent {
        try HCIEvent(code: eventCode.rawValue, parameters: parameters)
    }

    public var rendered: RenderedValue {
        do {
            return Rendering.render(try decodeEvent())
        } catch {
            return .object(
                name: eventCode.name ?? "Unknown Event",
                fields: [("error", .string(error.description)), ("parameters", .bytes(Array(parameters)))])
        }
    }
}

extension HCIEvent {
    /// An HCI event code (Core 5.4 Vol 4 Part E §7.7). The names below are the table of events
    /// this version knows by name; `HCIEvent` decodes a subset of them into typed values.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CustomRendering {
        public let rawValue: UInt8

        @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
        @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

        public static let disconnectionComplete = Code(0x05)
        public static let encryptionChange = Code(0x08)
        public static let readRemoteVersionInformationComplete = Code(0x0C)
        public static let commandComplete = Code(0x0E)
        public static let commandStatus = Code(0x0F)
        public static let hardwareError = Code(0x10)
        public static let numberOfCompletedPackets = Code(0x13)
        public static let dataBufferOverflow = Code(0x1A)
        public static let encryptionKeyRefreshComplete = Code(0x30)
        public static let leMeta = Code(0x3E)
        public static let authenticatedPayloadTimeoutExpired = Code(0x57)
        public static let encryptionChangeV2 = Code(0x59)
        /// Reserved for Bluetooth logo testing (§5.4.4).
        public static let logoTesting = Code(0xFE)
        /// Vendor-specific events: the format belongs to the controller's manufacturer.
        public static let vendorSpecific = Code(0xFF)

        /// The specification's name, or nil for a code this version does not know.
        public var name: String? {
            switch rawValue {
            case 0x01: "Inquiry Complete"
            case 0x02: "Inquiry Result"
            case 0x03: "Connection Complete"
            case 0x04: "Connection Request"
            case 0x05: "Disconnection Complete"
            case 0x06: "Authentication Complete"
            case 0x07: "Remote Name Request Complete"
            case 0x08: "Encryption Change"
            case 0x09: "Change Connection Link Key Complete"
            case 0x0B: "Read Remote Supported Features Complete"
            case 0x0C: "Read Remote Version Information Complete"
            case 0x0D: "QoS Setup Complete"
            case 0x0E: "Command Complete"
            case 0x0F: "Command Status"
            case 0x10: "Hardware Error"
            case 0x11: "Flush Occurred"
            case 0x12: "Role Change"
            case 0x13: "Number Of Completed Packets"
            case 0x14: "Mode Change"
            case 0x15: "Return Link Keys"
            case 0x16: "PIN Code Request"
            case 0x17: "Link Key Request"
            case 0x18: "Link Key Notification"
            case 0x19: "Loopback Command"
            case 0x1A: "Data Buffer Overflow"
            case 0x1B: "Max Slots Change"
            case 0x1C: "Read Clock Offset Complete"
            case 0x1D: "Connection Packet Type Changed"
            case 0x1E: "QoS Violation"
            case 0x20: "Page Scan Repetition Mode Change"
            case 0x21: "Flow Specification Complete"
            case 0x22: "Inquiry Result with RSSI"
            case 0x23: "Read Remote Extended Features Complete"
            case 0x2C: "Synchronous Connection Complete"
            case 0x2D: "Synchronous Connection Changed"
            case 0x2E: "Sniff Subrating"
            case 0x2F: "Extended Inquiry Result"
            case 0x30: "Encryption Key Refresh Complete"
            case 0x31: "IO Capability Request"
            case 0x32: "IO Capability Response"
            case 0x33: "User Confirmation Request"
            case 0x34: "User Passkey Request"
            case 0x35: "Remote OOB Data Request"
            case 0x36: "Simple Pairing Complete"
            case 0x38: "Link Supervision Timeout Changed"
            case 0x39: "Enhanced Flush Complete"
            case 0x3B: "User Passkey Notification"
            case 0x3C: "Keypress Notification"
            case 0x3D: "Remote Host Supported Features Notification"
            case 0x3E: "LE Meta"
            case 0x57: "Authenticated Payload Timeout Expired"
            case 0x59: "Encryption Change [v2]"
            case 0xFE: "Bluetooth Logo Testing"
            case 0xFF: "Vendor Specific"
            default: nil
            }
        }

        public var description: String {
            "\(name ?? "Unknown Event") (\(Hex.prefixed(rawValue, width: 2)))"
        }

        public var rendered: RenderedValue { .symbol(description) }
    }
}
