import BLECompanion
import Testing

/// Recognition by content: the file's name never picks the format, only its version when the
/// format has none.
@Suite("Firmware files: recognition by content, raw binaries, versions")
struct FirmwareFileTests {
    typealias S = FirmwareSamples

    @Test("A raw binary is sent as it is, with the version in its file name")
    func raw() throws {
        let bytes = S.payload(1000)
        let file = try FirmwareFile.recognize(bytes: bytes, fileName: "/tmp/downloads/headset-2.1.0.bin")
        #expect(file.format == .raw)
        #expect(file.image.bytes == bytes)
        #expect(file.image.version == FirmwareVersion(major: 2, minor: 1, patch: 0))
        #expect(file.versionSource == .fileName)
        #expect(file.fileVersion == nil)
        #expect(file.checks.isEmpty)
    }

    @Test("A raw binary with no X.Y.Z in its name needs a given version; an empty file is an error")
    func rawErrors() throws {
        #expect(throws: FirmwareFileError.noVersion(fileName: "firmware.bin")) {
            try FirmwareFile.recognize(bytes: [1, 2, 3], fileName: "firmware.bin")
        }
        let given = try FirmwareFile.recognize(
            bytes: [1, 2, 3], fileName: "firmware.bin", version: FirmwareVersion(major: 1, minor: 0, patch: 1))
        #expect(given.image.version.description == "1.0.1")
        #expect(given.versionSource == .given)
        #expect(given.overriddenFileVersion == nil)
        #expect(throws: FirmwareFileError.empty) {
            try FirmwareFile.recognize(bytes: [], fileName: "headset-1.0.0.bin")
        }
    }

    @Test("The content picks the format whatever the name says")
    func byContent() throws {
        let hex = Array(S.intelHex(S.payload(32), at: 0).utf8)
        #expect(try FirmwareFile.recognize(bytes: hex, fileName: "update-1.0.0.bin").format == .intelHex)
        #expect(try FirmwareFile.recognize(bytes: S.MCUboot().bytes, fileName: "update-1.0.0.hex").format == .mcuboot)
        #expect(
            try FirmwareFile.recognize(bytes: S.dfuPackage(), fileName: "update-1.0.0.bin").format == .nordicDFUPackage)
        // Text that is not HEX records is a raw binary.
        #expect(try FirmwareFile.recognize(bytes: Array(": hello".utf8), fileName: "a-1.0.0.txt").format == .raw)
    }

    @Test("The file name's version is the last X.Y.Z of its last path component")
    func fileNameVersion() {
        #expect(FirmwareVersion(inFileName: "headset-2.1.0.bin")?.description == "2.1.0")
        #expect(FirmwareVersion(inFileName: "v1.2.3/headset-4.5.6-rc.bin")?.description == "4.5.6")
        #expect(FirmwareVersion(inFileName: "fw-1.2.3.4.bin")?.description == "2.3.4")
        #expect(FirmwareVersion(inFileName: "/builds/1.2.3/firmware.bin") == nil)
        #expect(FirmwareVersion(inFileName: "fw-300.1.1.bin") == nil)
    }

    @Test("The summary says format, version and its source, size, and each check")
    func summary() throws {
        let file = try FirmwareFile.recognize(bytes: S.MCUboot().bytes, fileName: "zephyr.signed.bin")
        let lines = file.summary
        #expect(lines.first == "format     MCUboot image")
        #expect(lines.contains("version    2.1.0 (from the file: 2.1.0+7)"))
        #expect(lines.contains { $0.hasPrefix("size       \(file.image.size) bytes to send, SHA-256 ") })
        #expect(lines.contains("verified   SHA-256 TLV matches header, image"))
    }

    @Test("A name with terminal controls is escaped in the error's words")
    func escapedName() {
        let error = FirmwareFileError.noVersion(fileName: "fw\u{1B}]0;owned\u{07}.bin")
        #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 })
    }
}
