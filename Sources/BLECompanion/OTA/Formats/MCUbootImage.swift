import BLEWire

/// An MCUboot image (MCUboot's docs/design.md, "Image format"): a 32-byte little-endian header,
/// the image, then the TLV area — an optional protected area (magic 0x6908, its size in the
/// header's ih_protect_tlv_size) followed by the unprotected one (magic 0x6907). Each area starts
/// with a 4-byte info (magic, total size including the info) and holds entries of type (1 byte),
/// padding (1 byte), length (2 bytes) and value. The SHA-256 TLV (0x10) covers the header, the
/// image and the protected area, as MCUboot's bootutil_img_hash computes it.
public struct MCUbootImage: Sendable, Hashable {
    /// IMAGE_MAGIC.
    public static let magic: UInt32 = 0x96f3_b83d
    /// IMAGE_TLV_INFO_MAGIC and IMAGE_TLV_PROT_INFO_MAGIC.
    public static let tlvInfoMagic: UInt16 = 0x6907
    public static let protectedTLVInfoMagic: UInt16 = 0x6908
    /// IMAGE_TLV_SHA256.
    public static let sha256TLVType: UInt8 = 0x10
    /// IMAGE_HEADER_SIZE: ih_hdr_size is at least this.
    public static let headerSize = 32
    /// IMAGE_F_ENCRYPTED_AES128 | IMAGE_F_ENCRYPTED_AES256: the hash is over the plaintext, which
    /// only the device can recover.
    public static let encryptedFlags: UInt32 = 0x0000_0004 | 0x0000_0008

    /// image_version: major, minor, revision, build number.
    public struct Version: Sendable, Hashable, CustomStringConvertible {
        public var major: UInt8
        public var minor: UInt8
        public var revision: UInt16
        public var build: UInt32

        public init(major: UInt8, minor: UInt8, revision: UInt16, build: UInt32) {
            self.major = major
            self.minor = minor
            self.revision = revision
            self.build = build
        }

        /// "major.minor.revision+build", as imgtool writes it.
        public var description: String { "\(major).\(minor).\(revision)+\(build)" }

        /// The headset protocol's MAJOR.MINOR.PATCH, when the revision fits a byte (the build
        /// number has no place there).
        public var firmwareVersion: FirmwareVersion? {
            guard revision <= 255 else { return nil }
            return FirmwareVersion(major: major, minor: minor, patch: UInt8(revision))
        }
    }

    /// One TLV entry.
    public struct TLV: Sendable, Hashable {
        public var type: UInt8
        public var value: [UInt8]
        public var isProtected: Bool
    }

    public var loadAddress: UInt32
    public var headerSize: Int
    public var protectedTLVSize: Int
    public var imageSize: Int
    public var flags: UInt32
    public var version: Version
    /// Both areas' entries, protected first.
    public var tlvs: [TLV]
    /// Whether the SHA-256 TLV was checked (false for an encrypted image, whose hash covers the
    /// plaintext).
    public var hashVerified: Bool
    /// Bytes after the TLV area (padding to the slot, the trailer of `imgtool --pad`).
    public var trailingBytes: Int

    public var isEncrypted: Bool { flags & Self.encryptedFlags != 0 }

    /// Whether `bytes` starts with IMAGE_MAGIC.
    static func looksLikeMCUboot(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x3D && bytes[1] == 0xB8 && bytes[2] == 0xF3 && bytes[3] == 0x96
    }

    /// Decodes and checks the image: header, both TLV areas, the SHA-256.
    public init(decoding bytes: [UInt8]) throws(MCUbootProblem) {
        var reader = ByteReader(bytes)
        let magic: UInt32
        let hdrSize: Int
        let protectSize: Int
        do {
            magic = try reader.u32("ih_magic")
            loadAddress = try reader.u32("ih_load_addr")
            hdrSize = Int(try reader.u16("ih_hdr_size"))
            protectSize = Int(try reader.u16("ih_protect_tlv_size"))
            imageSize = Int(try reader.u32("ih_img_size"))
            flags = try reader.u32("ih_flags")
            version = Version(
                major: try reader.u8("iv_major"), minor: try reader.u8("iv_minor"),
                revision: try reader.u16("iv_revision"), build: try reader.u32("iv_build_num"))
            try reader.skip(4, "_pad1")
        } catch {
            throw .truncated("the header")
        }
        guard magic == Self.magic else { throw .badMagic("ih_magic", expected: Self.magic, actual: magic) }
        guard hdrSize >= Self.headerSize else { throw .sizeOutOfRange("ih_hdr_size", value: hdrSize) }
        guard protectSize == 0 || protectSize >= 4 else {
            throw .sizeOutOfRange("ih_protect_tlv_size", value: protectSize)
        }
        headerSize = hdrSize
        protectedTLVSize = protectSize
        guard hdrSize <= bytes.count else { throw .truncated("the header (ih_hdr_size \(hdrSize))") }
        guard imageSize <= bytes.count - hdrSize else { throw .truncated("the image (ih_img_size \(imageSize))") }
        let protectedStart = hdrSize + imageSize
        var tlvs: [TLV] = []
        if protectSize > 0 {
            let end = try Self.area(
                in: bytes, at: protectedStart, magic: Self.protectedTLVInfoMagic, name: "the protected TLV area",
                into: &tlvs)
            guard end - protectedStart == protectSize else {
                throw .badTLV(
                    "the protected area is \(end - protectedStart) bytes, ih_protect_tlv_size says \(protectSize)")
            }
        }
        let areaEnd = try Self.area(
            in: bytes, at: protectedStart + protectSize, magic: Self.tlvInfoMagic, name: "the TLV area", into: &tlvs)
        self.tlvs = tlvs
        trailingBytes = bytes.count - areaEnd
        guard let hash = tlvs.first(where: { $0.type == Self.sha256TLVType && !$0.isProtected }) else {
            throw .missingHash
        }
        guard hash.value.count == 32 else { throw .badHashLength(hash.value.count) }
        if flags & Self.encryptedFlags != 0 {
            hashVerified = false
        } else {
            let actual = FirmwareDigest.sha256(Array(bytes[0..<(protectedStart + protectSize)]))
            guard actual == hash.value else { throw .hashMismatch(expected: hash.value, actual: actual) }
            hashVerified = true
        }
    }

    /// Reads one TLV area at `start` (info, then entries filling its total); returns its end.
    private static func area(
        in bytes: [UInt8], at start: Int, magic expected: UInt16, name: String, into tlvs: inout [TLV]
    ) throws(MCUbootProblem) -> Int {
        guard bytes.count - start >= 4 else { throw .truncated(name) }
        var reader = ByteReader(bytes[start...])
        let magic: UInt16
        let total: Int
        do {
            magic = try reader.u16("it_magic")
            total = Int(try reader.u16("it_tlv_tot"))
        } catch {
            throw .truncated(name)
        }
        guard magic == expected else { throw .badMagic(name, expected: UInt32(expected), actual: UInt32(magic)) }
        guard total >= 4 else { throw .badTLV("\(name) says it is \(total) bytes, less than its info") }
        guard total <= bytes.count - start else { throw .truncated(name) }
        var entries = ByteReader(bytes[(start + 4)..<(start + total)])
        while !entries.isAtEnd {
            do {
                let type = try entries.u8("it_type")
                try entries.skip(1, "_pad")
                let length = Int(try entries.u16("it_len"))
                let value = try entries.take(length, "value")
                tlvs.append(TLV(type: type, value: Array(value), isProtected: expected == protectedTLVInfoMagic))
            } catch {
                throw .badTLV("an entry of \(name) runs past its end")
            }
        }
        return start + total
    }
}
