extension HCIEvent {
    /// HCI_Disconnection_Complete (Core 5.4 Vol 4 Part E §7.7.5).
    ///
    /// `connectionHandle` is 12 bits: the reserved top bits are ignored on decode and written as
    /// zero (see `HCIEvent`).
    public struct DisconnectionComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle
        /// Why the link went down (an error code, Vol 1 Part F), e.g. 0x13 remote user terminated.
        public var reason: HCIStatus

        public init(status: HCIStatus = .success, connectionHandle: ConnectionHandle, reason: HCIStatus) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.reason = reason
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Disconnection Complete event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            reason = HCIStatus(try reader.u8("Reason"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(reason.rawValue)
        }
    }

    /// Encryption_Enabled of the Encryption Change events (Core 5.4 Vol 4 Part E §7.7.8).
    public enum EncryptionEnabled: Sendable, Hashable, CustomRendering {
        /// 0x00: link not encrypted.
        case off
        /// 0x01: encrypted, with E0 on BR/EDR or AES-CCM on LE.
        case on
        /// 0x02: encrypted with AES-CCM on BR/EDR.
        case onAESCCM
        /// A reserved value, kept as received.
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .off
            case 0x01: self = .on
            case 0x02: self = .onAESCCM
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .off: 0x00
            case .on: 0x01
            case .onAESCCM: 0x02
            case .other(let value): value
            }
        }

        public var isEncrypted: Bool { self != .off }

        public var rendered: RenderedValue {
            switch self {
            case .off: .symbol("off")
            case .on: .symbol("on")
            case .onAESCCM: .symbol("onAESCCM")
            case .other(let value): .symbol("reserved(\(Hex.prefixed(value, width: 2)))")
            }
        }
    }

    /// HCI_Encryption_Change [v1] (Core 5.4 Vol 4 Part E §7.7.8), event code 0x08.
    public struct EncryptionChange: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle
        public var encryptionEnabled: EncryptionEnabled

        public init(
            status: HCIStatus = .success, connectionHandle: ConnectionHandle, encryptionEnabled: EncryptionEnabled
        ) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.encryptionEnabled = encryptionEnabled
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Encryption Change event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            encryptionEnabled = EncryptionEnabled(rawValue: try reader.u8("Encryption_Enabled"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(encryptionEnabled.rawValue)
        }
    }

    /// HCI_Encryption_Change [v2] (Core 5.4 Vol 4 Part E §7.7.8), event code 0x59: v1 plus the
    /// negotiated key size in octets.
    public struct EncryptionChangeV2: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle
        public var encryptionEnabled: EncryptionEnabled
        public var encryptionKeySize: UInt8

        public init(
            status: HCIStatus = .success, connectionHandle: ConnectionHandle, encryptionEnabled: EncryptionEnabled,
            encryptionKeySize: UInt8
        ) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.encryptionEnabled = encryptionEnabled
            self.encryptionKeySize = encryptionKeySize
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Encryption Change [v2] event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            encryptionEnabled = EncryptionEnabled(rawValue: try reader.u8("Encryption_Enabled"))
            encryptionKeySize = try reader.u8("Encryption_Key_Size")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(encryptionEnabled.rawValue)
            writer.u8(encryptionKeySize)
        }

        /// The v1 fields alone.
        public var v1: EncryptionChange {
            EncryptionChange(
                status: status, connectionHandle: connectionHandle, encryptionEnabled: encryptionEnabled)
        }
    }

    /// HCI_Encryption_Key_Refresh_Complete (Core 5.4 Vol 4 Part E §7.7.39): an encrypted link
    /// was re-keyed (on LE, encryption restarted) without an Encryption Change event.
    public struct EncryptionKeyRefreshComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle

        public init(status: HCIStatus = .success, connectionHandle: ConnectionHandle) {
            self.status = status
            self.connectionHandle = connectionHandle
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Encryption Key Refresh Complete event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
        }
    }

    /// HCI_Read_Remote_Version_Information_Complete (Core 5.4 Vol 4 Part E §7.7.12): the peer's
    /// link layer (LL/LMP) version, company identifier and implementation subversion.
    public struct ReadRemoteVersionInformationComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var connectionHandle: ConnectionHandle
        /// LL/LMP version number (Assigned Numbers), e.g. 0x0D for Core 5.4.
        public var version: UInt8
        /// Company identifier of the peer's controller manufacturer (Assigned Numbers).
        public var manufacturerName: UInt16
        public var subversion: UInt16

        public init(
            status: HCIStatus = .success, connectionHandle: ConnectionHandle, version: UInt8, manufacturerName: UInt16,
            subversion: UInt16
        ) {
            self.status = status
            self.connectionHandle = connectionHandle
            self.version = version
            self.manufacturerName = manufacturerName
            self.subversion = subversion
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Read Remote Version Information Complete event"
            status = HCIStatus(try reader.u8("Status"))
            connectionHandle = try HCIEventHandle.read(&reader)
            version = try reader.u8("Version")
            manufacturerName = try reader.u16("Manufacturer_Name")
            subversion = try reader.u16("Subversion")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u8(version)
            writer.u16(manufacturerName)
            writer.u16(subversion)
        }
    }
}
