/// The init packet of Nordic's Secure DFU (the .dat file of a package): a protocol-buffers
/// message (nRF5 SDK dfu-cc.proto) — Packet { command = 1 | signed_command = 2 { command = 1 } },
/// Command { op_code = 1, init = 2 }, InitCommand { fw_version = 1, hw_version = 2, sd_req = 3,
/// type = 4, sd_size = 5, bl_size = 6, app_size = 7, hash = 8 { hash_type = 1, hash = 2 } }.
/// Read for what the package says about its image; a .dat that does not decode is reported
/// (legacy DFU's init packets are not protocol buffers), not refused: the device checks it.
public struct NordicInitPacket: Sendable, Hashable {
    public var firmwareVersion: UInt32?
    public var hardwareVersion: UInt32?
    /// FwType: 0 application, 1 softdevice, 2 bootloader, 3 softdevice and bootloader.
    public var firmwareType: UInt32?
    public var softDeviceSize: UInt32?
    public var bootloaderSize: UInt32?
    public var applicationSize: UInt32?
    /// HashType: 3 is SHA-256.
    public var hashType: UInt32?
    public var hash: [UInt8]?
    public var isSigned: Bool

    /// HashType SHA256 in dfu-cc.proto.
    static let sha256HashType: UInt32 = 3

    /// Decodes the packet; nil when the bytes are not such a message.
    init?(decoding bytes: [UInt8]) {
        var reader = ProtobufReader(bytes: bytes[...])
        var command: ArraySlice<UInt8>?
        var signed = false
        while let field = reader.next() {
            switch field {
            case .bytes(1, let value): command = value
            case .bytes(2, let value):
                var inner = ProtobufReader(bytes: value)
                while let innerField = inner.next() {
                    if case .bytes(1, let value) = innerField { command = value }
                }
                guard !inner.failed else { return nil }
                signed = true
            default: break
            }
        }
        guard !reader.failed, let command else { return nil }
        var initCommand: ArraySlice<UInt8>?
        var commandReader = ProtobufReader(bytes: command)
        while let field = commandReader.next() {
            if case .bytes(2, let value) = field { initCommand = value }
        }
        guard !commandReader.failed, let initCommand else { return nil }
        isSigned = signed
        var fields = ProtobufReader(bytes: initCommand)
        while let field = fields.next() {
            switch field {
            case .varint(1, let value): firmwareVersion = UInt32(truncatingIfNeeded: value)
            case .varint(2, let value): hardwareVersion = UInt32(truncatingIfNeeded: value)
            case .varint(4, let value): firmwareType = UInt32(truncatingIfNeeded: value)
            case .varint(5, let value): softDeviceSize = UInt32(truncatingIfNeeded: value)
            case .varint(6, let value): bootloaderSize = UInt32(truncatingIfNeeded: value)
            case .varint(7, let value): applicationSize = UInt32(truncatingIfNeeded: value)
            case .bytes(8, let value):
                var hashFields = ProtobufReader(bytes: value)
                while let hashField = hashFields.next() {
                    switch hashField {
                    case .varint(1, let type): hashType = UInt32(truncatingIfNeeded: type)
                    case .bytes(2, let digest): hash = Array(digest)
                    default: break
                    }
                }
                guard !hashFields.failed else { return nil }
            default: break
            }
        }
        guard !fields.failed else { return nil }
    }
}

/// The protocol-buffers wire format, just enough for the init packet: varints (wire type 0),
/// length-delimited fields (2), fixed 32/64-bit fields skipped (5, 1).
struct ProtobufReader {
    enum Field {
        case varint(UInt64, UInt64)
        case bytes(UInt64, ArraySlice<UInt8>)
        case other(UInt64)
    }

    var bytes: ArraySlice<UInt8>
    /// Set when the input stops making sense; `next()` then returns nil.
    private(set) var failed = false

    init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func next() -> Field? {
        guard !failed, !bytes.isEmpty else { return nil }
        guard let key = varint() else { return fail() }
        let number = key >> 3
        switch key & 7 {
        case 0:
            guard let value = varint() else { return fail() }
            return .varint(number, value)
        case 2:
            guard let length = varint(), length <= UInt64(bytes.count) else { return fail() }
            let value = bytes.prefix(Int(length))
            bytes = bytes.dropFirst(Int(length))
            return .bytes(number, value)
        case 1, 5:
            let width = key & 7 == 1 ? 8 : 4
            guard bytes.count >= width else { return fail() }
            bytes = bytes.dropFirst(width)
            return .other(number)
        default: return fail()
        }
    }

    private mutating func fail() -> Field? {
        failed = true
        return nil
    }

    /// A base-128 varint of at most ten bytes.
    private mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.first, shift < 64 {
            bytes = bytes.dropFirst()
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
