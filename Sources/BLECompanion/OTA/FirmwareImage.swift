import Crypto

/// A firmware image as the app sends it: the bytes, the version they claim, and their SHA-256
/// (which the device checks over the whole staged image before it swaps slots).
public struct FirmwareImage: Sendable, Hashable {
    public let bytes: [UInt8]
    public let version: FirmwareVersion
    /// SHA-256 of `bytes` (32 bytes).
    public let sha256: [UInt8]

    /// An image from its bytes; the digest is computed here.
    public init(bytes: [UInt8], version: FirmwareVersion) throws(FirmwareImageError) {
        guard !bytes.isEmpty else { throw .empty }
        self.bytes = bytes
        self.version = version
        self.sha256 = FirmwareDigest.sha256(bytes)
    }

    /// An image whose version comes as text and whose digest was published alongside it (a
    /// release manifest): both are checked.
    public init(bytes: [UInt8], version: String, expectedSHA256: [UInt8]? = nil) throws(FirmwareImageError) {
        try self.init(bytes: bytes, version: FirmwareVersion(parsing: version))
        if let expectedSHA256, expectedSHA256 != sha256 {
            throw .digestMismatch(expected: expectedSHA256, actual: sha256)
        }
    }

    public var size: Int { bytes.count }
}

/// Why an image cannot be sent.
public enum FirmwareImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The version is not "MAJOR.MINOR.PATCH" with each part 0–255.
    case versionFormat(String)
    /// No bytes.
    case empty
    /// The bytes do not hash to the published digest.
    case digestMismatch(expected: [UInt8], actual: [UInt8])

    public var description: String {
        switch self {
        case .versionFormat(let text): "version \"\(text)\" is not MAJOR.MINOR.PATCH with parts 0–255"
        case .empty: "the image is empty"
        case .digestMismatch: "the image's SHA-256 does not match the published digest"
        }
    }
}

/// SHA-256, shared by the app side (image) and the device side (staged image check).
public enum FirmwareDigest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize())
    }

    /// Lowercase hex, for logs and summaries.
    public static func hex(_ digest: [UInt8]) -> String {
        digest.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
