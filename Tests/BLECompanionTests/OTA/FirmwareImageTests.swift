import BLECompanion
import Testing

@Suite("Firmware image and version checks")
struct FirmwareImageTests {
    @Test("A version is MAJOR.MINOR.PATCH with each part 0–255")
    func validVersions() throws {
        #expect(try FirmwareVersion(parsing: "1.2.3") == FirmwareVersion(major: 1, minor: 2, patch: 3))
        #expect(try FirmwareVersion(parsing: "0.0.0") == FirmwareVersion(major: 0, minor: 0, patch: 0))
        #expect(try FirmwareVersion(parsing: "255.255.255") == FirmwareVersion(major: 255, minor: 255, patch: 255))
        #expect(try FirmwareVersion(parsing: "10.020.3").description == "10.20.3")
    }

    @Test(
        "Anything else is a versionFormat error",
        arguments: [
            "", "1", "1.2", "1.2.3.4", "256.0.0", "1.256.0", "1.2.999", "1.2.-3", "+1.2.3", "a.b.c", "1..3",
            " 1.2.3", "1.2.3 ", "1.2.3.", "0001.2.3", "1.2.3x", "١.٢.٣",
        ])
    func invalidVersions(text: String) {
        #expect(throws: FirmwareImageError.versionFormat(text)) { try FirmwareVersion(parsing: text) }
    }

    @Test("Versions order by major, then minor, then patch")
    func ordering() throws {
        #expect(try FirmwareVersion(parsing: "1.2.3") < FirmwareVersion(parsing: "1.2.4"))
        #expect(try FirmwareVersion(parsing: "1.9.9") < FirmwareVersion(parsing: "2.0.0"))
        #expect(try !(FirmwareVersion(parsing: "1.3.0") < FirmwareVersion(parsing: "1.2.9")))
    }

    @Test("An image's SHA-256 is computed over its bytes (FIPS 180-2 \"abc\" vector)")
    func digest() throws {
        let image = try FirmwareImage(bytes: Array("abc".utf8), version: "1.0.0")
        #expect(
            FirmwareDigest.hex(image.sha256)
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(image.size == 3)
    }

    @Test("An image refuses no bytes, a bad version, and a digest other than the published one")
    func imageRefusals() throws {
        #expect(throws: FirmwareImageError.empty) { try FirmwareImage(bytes: [], version: "1.0.0") }
        #expect(throws: FirmwareImageError.versionFormat("1.0")) { try FirmwareImage(bytes: [1], version: "1.0") }
        let good = FirmwareDigest.sha256([1, 2, 3])
        _ = try FirmwareImage(bytes: [1, 2, 3], version: "1.0.0", expectedSHA256: good)
        let wrong = FirmwareDigest.sha256([1, 2, 4])
        #expect(throws: FirmwareImageError.digestMismatch(expected: wrong, actual: good)) {
            try FirmwareImage(bytes: [1, 2, 3], version: "1.0.0", expectedSHA256: wrong)
        }
    }
}
