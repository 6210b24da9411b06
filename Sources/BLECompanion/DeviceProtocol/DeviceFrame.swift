/// One device protocol frame: a typed message with its correlation number, length-delimited
/// and protected by a CRC-16 (docs/headset-protocol.md, "Frame").
///
/// ```
/// offset  size  field
/// 0       1     sync 0xA5
/// 1       1     version (bits 7–4, = 1) | kind (bits 3–0: 0 event, 1 request, 2 response)
/// 2       1     message type
/// 3       1     sequence number: 0 for an event; 1…255 for a request, echoed by its response
/// 4       2     payload length N, little-endian
/// 6       N     payload
/// 6+N     2     CRC-16/CCITT-FALSE of octets 0…5+N, little-endian
/// ```
///
/// The sync octet lets a stream parser find the next frame after garbage; the checks on the
/// version, kind, sequence and length reject most false starts before the CRC does.
public struct DeviceFrame: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        /// Needs no answer.
        case event = 0
        /// Answered by a response with the same sequence number.
        case request = 1
        /// Answers the request with its sequence number.
        case response = 2
    }

    public static let sync: UInt8 = 0xA5
    public static let version: UInt8 = 1
    /// Sync, version and kind, message type, sequence number, payload length.
    public static let headerLength = 6
    public static let checksumLength = 2
    /// Octets a frame adds to its payload.
    public static let overhead = headerLength + checksumLength
    /// The longest payload a receiver accepts unless told otherwise.
    public static let defaultMaximumPayloadLength = 1024

    public var kind: Kind
    public var messageType: UInt8
    public var sequence: UInt8
    public var payload: [UInt8]

    public init(kind: Kind, messageType: UInt8, sequence: UInt8 = 0, payload: [UInt8] = []) {
        self.kind = kind
        self.messageType = messageType
        self.sequence = sequence
        self.payload = payload
    }

    /// The frame's octets. A payload longer than 65,535 octets cannot be framed; callers keep
    /// payloads within `maximumPayloadLength`.
    public var encoded: [UInt8] {
        let length = UInt16(clamping: payload.count)
        // One allocation, of the frame's final size.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.overhead + Int(length))
        bytes.append(contentsOf: [
            Self.sync, Self.version << 4 | kind.rawValue, messageType, sequence,
            UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
        ])
        bytes += payload.prefix(Int(length))
        let crc = DeviceChecksum.crc16CCITT(bytes)
        bytes.append(UInt8(truncatingIfNeeded: crc))
        bytes.append(UInt8(truncatingIfNeeded: crc >> 8))
        return bytes
    }

    /// Decodes exactly one frame: `bytes` must hold it and nothing else.
    public init(
        decoding bytes: some Collection<UInt8>, maximumPayloadLength: Int = Self.defaultMaximumPayloadLength
    ) throws(DeviceProtocolError) {
        let octets = Array(bytes)
        let header = try Self.header(of: octets[...], maximumPayloadLength: maximumPayloadLength)
        let total = Self.overhead + header.length
        guard octets.count >= total else { throw .frameTruncated(needed: total, available: octets.count) }
        guard octets.count == total else { throw .lengthMismatch(declared: total, actual: octets.count) }
        try self.init(checking: octets[...], header: header)
    }

    /// The frame at the start of `octets`, whose header is `header` and which `octets` holds
    /// whole; the CRC is checked.
    init(checking octets: ArraySlice<UInt8>, header: Header) throws(DeviceProtocolError) {
        let start = octets.startIndex
        let crcIndex = start + Self.headerLength + header.length
        let received = UInt16(octets[crcIndex]) | UInt16(octets[crcIndex + 1]) << 8
        let computed = DeviceChecksum.crc16CCITT(octets[start..<crcIndex])
        guard received == computed else { throw .checksumMismatch(received: received, computed: computed) }
        self.init(
            kind: header.kind, messageType: header.messageType, sequence: header.sequence,
            payload: Array(octets[(start + Self.headerLength)..<crcIndex]))
    }

    /// What the first six octets say.
    struct Header {
        var kind: Kind
        var messageType: UInt8
        var sequence: UInt8
        var length: Int
    }

    /// Checks as much of a header as `octets` holds, in order: sync, version, kind, sequence,
    /// length. Throws `.frameTruncated` only when every octet present passed.
    static func header(of octets: ArraySlice<UInt8>, maximumPayloadLength: Int) throws(DeviceProtocolError) -> Header {
        let start = octets.startIndex
        guard let sync = octets.first else { throw .frameTruncated(needed: headerLength, available: 0) }
        guard sync == Self.sync else { throw .badSync(sync) }
        guard octets.count >= 2 else { throw .frameTruncated(needed: headerLength, available: octets.count) }
        let versionAndKind = octets[start + 1]
        guard versionAndKind >> 4 == version else { throw .unsupportedVersion(versionAndKind >> 4) }
        guard let kind = Kind(rawValue: versionAndKind & 0x0F) else { throw .invalidFrameKind(versionAndKind & 0x0F) }
        guard octets.count >= 4 else { throw .frameTruncated(needed: headerLength, available: octets.count) }
        let sequence = octets[start + 3]
        guard (kind == .event) == (sequence == 0) else { throw .invalidSequence(kind: kind, sequence: sequence) }
        guard octets.count >= headerLength else { throw .frameTruncated(needed: headerLength, available: octets.count) }
        let length = Int(octets[start + 4]) | Int(octets[start + 5]) << 8
        guard length <= maximumPayloadLength else {
            throw .payloadTooLong(length: length, maximum: maximumPayloadLength)
        }
        return Header(kind: kind, messageType: octets[start + 2], sequence: sequence, length: length)
    }

    public var description: String {
        "\(kind) 0x\(hex(messageType)) seq \(sequence) [\(payload.map { hex($0) }.joined(separator: " "))]"
    }
}
