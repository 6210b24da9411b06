import BLECompanion
import Testing

/// MCUboot's image format (docs/design.md "Image format"): the 32-byte header, the image, the
/// protected TLV area (0x6908) and the TLV area (0x6907); the SHA-256 TLV (0x10) over header,
/// image and protected TLVs.
@Suite("Firmware files: MCUboot images")
struct MCUbootImageTests {
    typealias Sample = FirmwareSamples.MCUboot

    func recognize(_ bytes: [UInt8], name: String = "zephyr.signed.bin") throws(FirmwareFileError) -> FirmwareFile {
        try FirmwareFile.recognize(bytes: bytes, fileName: name)
    }

    func expectProblem(_ bytes: [UInt8], _ problem: MCUbootProblem, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: FirmwareFileError.mcuboot(problem), sourceLocation: sourceLocation) { try recognize(bytes) }
    }

    @Test("An imgtool-shaped image is recognised by its magic; the whole file is sent; the version is the header's")
    func recognised() throws {
        let sample = Sample()
        let file = try recognize(sample.bytes)
        #expect(file.format == .mcuboot)
        #expect(file.image.bytes == sample.bytes)
        #expect(file.image.version.description == "2.1.0")
        #expect(file.versionSource == .file)
        #expect(file.fileVersion == "2.1.0+7")
        guard case .mcuboot(let image) = file.contents else { Issue.record("not MCUboot"); return }
        #expect(image.headerSize == 0x200)
        #expect(image.imageSize == 3000)
        #expect(image.hashVerified)
        #expect(image.tlvs.map(\.type) == [0x10, 0x01])
        #expect(file.checks.contains("SHA-256 TLV matches header, image"))
    }

    @Test("Protected TLVs are part of the hashed bytes, as bootutil_img_hash computes it")
    func protectedTLVs() throws {
        var sample = Sample()
        sample.protectedTLVs = [(0x50, [1, 0, 0, 0])]
        let file = try recognize(sample.bytes)
        guard case .mcuboot(let image) = file.contents else { Issue.record("not MCUboot"); return }
        #expect(image.protectedTLVSize == 12)
        #expect(image.tlvs.map(\.isProtected) == [true, false, false])
        #expect(file.checks.contains("SHA-256 TLV matches header, image and protected TLVs"))
        // Changing a protected TLV after signing breaks the hash.
        var bytes = sample.bytes
        bytes[0x200 + 3000 + 8] = 2
        #expect(throws: FirmwareFileError.self) { try recognize(bytes) }
    }

    @Test("A --version that differs from the header's overrides it, with a note")
    func overrideVersion() throws {
        let file = try FirmwareFile.recognize(
            bytes: Sample().bytes, fileName: "x.bin", version: FirmwareVersion(major: 3, minor: 0, patch: 0))
        #expect(file.image.version.description == "3.0.0")
        #expect(file.versionSource == .given)
        #expect(file.overriddenFileVersion == "2.1.0+7")
        #expect(file.notes.contains("the given version 3.0.0 overrides the file's 2.1.0+7"))
        let same = try FirmwareFile.recognize(
            bytes: Sample().bytes, fileName: "x.bin", version: FirmwareVersion(major: 2, minor: 1, patch: 0))
        #expect(same.overriddenFileVersion == nil)
    }

    @Test("A revision above 255 does not fit the headset's version; --version resolves it")
    func revisionTooLarge() throws {
        var sample = Sample()
        sample.version.revision = 300
        #expect(throws: FirmwareFileError.versionDoesNotFit("2.1.300+7")) { try recognize(sample.bytes) }
        let given = try FirmwareFile.recognize(
            bytes: sample.bytes, fileName: "x.bin", version: FirmwareVersion(major: 2, minor: 1, patch: 30))
        #expect(given.image.version.description == "2.1.30")
    }

    @Test("An encrypted image's hash covers the plaintext: accepted unverified, with a note")
    func encrypted() throws {
        var sample = Sample()
        sample.flags = 0x4
        sample.hashOverride = [UInt8](repeating: 0x11, count: 32)
        let file = try recognize(sample.bytes)
        guard case .mcuboot(let image) = file.contents else { Issue.record("not MCUboot"); return }
        #expect(!image.hashVerified && image.isEncrypted)
        #expect(file.notes.contains("encrypted image: its SHA-256 covers the plaintext, left to the device"))
    }

    @Test("Padding after the TLV area is sent as it is, and noted")
    func trailing() throws {
        var sample = Sample()
        sample.trailing = [UInt8](repeating: 0xFF, count: 100)
        let file = try recognize(sample.bytes)
        #expect(file.image.size == sample.bytes.count)
        #expect(file.notes.contains("100 bytes after the TLV area are sent as they are"))
    }

    @Test("Every damaged image is a typed error")
    func damaged() {
        let good = Sample().bytes
        // The header cut short, the image cut short, the TLV area cut short.
        expectProblem(Array(good.prefix(20)), .truncated("the header"))
        expectProblem(Array(good.prefix(0x200 + 100)), .truncated("the image (ih_img_size 3000)"))
        expectProblem(Array(good.prefix(0x200 + 3000 + 2)), .truncated("the TLV area"))
        expectProblem(Array(good.prefix(good.count - 1)), .truncated("the TLV area"))
        // Sizes out of range.
        var small = Sample()
        small.headerSize = 16
        expectProblem(small.bytes, .sizeOutOfRange("ih_hdr_size", value: 16))
        var huge = good
        huge[12] = 0xFF
        huge[13] = 0xFF
        huge[14] = 0xFF
        huge[15] = 0x7F
        expectProblem(huge, .truncated("the image (ih_img_size 2147483647)"))
        var headerPastEnd = Array(good.prefix(40))
        headerPastEnd[8] = 0x00
        headerPastEnd[9] = 0x01
        expectProblem(headerPastEnd, .truncated("the header (ih_hdr_size 256)"))
        // The TLV info magic wrong.
        var magic = good
        magic[0x200 + 3000] = 0x08
        expectProblem(magic, .badMagic("the TLV area", expected: 0x6907, actual: 0x6908))
        // An entry running past the area.
        var entry = good
        entry[0x200 + 3000 + 4 + 2] = 0xFF
        expectProblem(entry, .badTLV("an entry of the TLV area runs past its end"))
        // No SHA-256, a short one, a wrong one.
        var noHash = Sample()
        noHash.includeHash = false
        expectProblem(noHash.bytes, .missingHash)
        var shortHash = Sample()
        shortHash.hashOverride = [1, 2, 3]
        expectProblem(shortHash.bytes, .badHashLength(3))
        var flipped = good
        flipped[0x200 + 10] ^= 0x01
        let actual = FirmwareDigest.sha256(Array(flipped.prefix(0x200 + 3000)))
        let expected = FirmwareDigest.sha256(Array(good.prefix(0x200 + 3000)))
        expectProblem(flipped, .hashMismatch(expected: expected, actual: actual))
    }

    @Test("The protected area's size must match ih_protect_tlv_size")
    func protectedSizeMismatch() {
        var sample = Sample()
        sample.protectedTLVs = [(0x50, [1, 0, 0, 0])]
        var bytes = sample.bytes
        // ih_protect_tlv_size 12 → 16: the area's own total (12) disagrees.
        bytes[10] = 16
        #expect(
            throws: FirmwareFileError.mcuboot(.badTLV("the protected area is 12 bytes, ih_protect_tlv_size says 16"))
        ) {
            try recognize(bytes)
        }
    }

    @Test("A hash mismatch reads as one line naming both digests' starts")
    func words() {
        let error = FirmwareFileError.mcuboot(
            .hashMismatch(expected: [UInt8](repeating: 0xAB, count: 32), actual: [UInt8](repeating: 0x01, count: 32)))
        #expect(
            error.description
                == "MCUboot image: SHA-256 mismatch: the TLV says abababababababab…, the image hashes to 0101010101010101…"
        )
    }
}
