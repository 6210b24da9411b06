import BLECompanion
import Foundation
import Testing

/// `ble ota --image` with the firmware formats device makers ship (docs/firmware-files.md):
/// recognised by content, described before sending, refused with the typed error's words.
@Suite("ble ota --image with MCUboot images, DFU packages and damaged files")
struct OTAFirmwareFileTests {
    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }

    /// An MCUboot image (docs/design.md "Image format"): header with version 2.3.0+9, the image,
    /// the TLV area with the SHA-256 over header and image.
    static func mcuboot(_ image: [UInt8]) -> [UInt8] {
        var header: [UInt8] = le32(0x96f3_b83d) + le32(0) + le16(32) + le16(0) + le32(image.count)
        header += le32(0)
        header += [UInt8]([2, 3]) + le16(0) + le32(9) + le32(0)
        let digest = FirmwareDigest.sha256(header + image)
        var tlvs: [UInt8] = le16(0x6907) + le16(4 + 4 + 32)
        tlvs += [UInt8]([0x10, 0]) + le16(32) + digest
        return header + image + tlvs
    }

    /// A Nordic DFU package with stored entries: manifest.json and the application.
    static func dfuPackage(_ application: [UInt8]) -> [UInt8] {
        let manifest = Array(#"{"manifest": {"application": {"bin_file": "app.bin"}}}"#.utf8)
        var out: [UInt8] = []
        var central: [UInt8] = []
        for (name, contents) in [("manifest.json", manifest), ("app.bin", application)] {
            let nameBytes = Array(name.utf8)
            var common: [UInt8] = le16(20) + le16(0) + le16(0) + le32(0) + le32(Int(CRC32.checksum(contents)))
            common += le32(contents.count) + le32(contents.count) + le16(nameBytes.count) + le16(0)
            central += le32(0x0201_4B50) + le16(20) + common
            central += le16(0) + le16(0) + le16(0) + le32(0) + le32(out.count) + nameBytes
            out += le32(0x0403_4B50) + common + nameBytes + contents
        }
        let offset = out.count
        var end: [UInt8] = le32(0x0605_4B50) + le16(0) + le16(0) + le16(2) + le16(2)
        end += le32(central.count) + le32(offset) + le16(0)
        return out + central + end
    }

    static func write(_ bytes: [UInt8], named name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ble-ota-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    static let image = (0..<9000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }

    @Test("An MCUboot image updates the headset to the header's version, after saying what was verified")
    func mcubootEndToEnd() throws {
        let file = try Self.write(Self.mcuboot(Self.image), named: "zephyr.signed.bin")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let result = try CLI.run("ota", "--image", file.path, "00:00:5E:00:53:40")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("updated 00:00:5E:00:53:40 to 2.3.0\n"))
        #expect(result.standardOutput.contains("image      9072 bytes"))
        #expect(result.standardError.contains("format     MCUboot image"))
        #expect(result.standardError.contains("version    2.3.0 (from the file: 2.3.0+9)"))
        #expect(result.standardError.contains("verified   SHA-256 TLV matches header, image"))
    }

    @Test("A DFU package sends its application, versioned by the file name")
    func dfuEndToEnd() throws {
        let file = try Self.write(Self.dfuPackage(Self.image), named: "headset_dfu-2.4.0.zip")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let result = try CLI.run("ota", "--image", file.path, "00:00:5E:00:53:40")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("updated 00:00:5E:00:53:40 to 2.4.0\n"))
        #expect(result.standardOutput.contains("image      9000 bytes"))
        #expect(result.standardError.contains("format     Nordic DFU package"))
        #expect(result.standardError.contains("verified   zip structure and CRC-32 of 2 entries"))
    }

    @Test("A damaged file exits non-zero before connecting, with the error's words")
    func damaged() throws {
        var bytes = Self.mcuboot(Self.image)
        bytes[100] ^= 0xFF
        let file = try Self.write(bytes, named: "zephyr.signed.bin")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let result = try CLI.run("ota", "--image", file.path, "00:00:5E:00:53:40")
        #expect(result.status != 0)
        #expect(result.standardError.contains("MCUboot image: SHA-256 mismatch: the TLV says"))
        #expect(!result.standardError.contains("format     "))
    }

    @Test("--version overrides an MCUboot header's version with a warning")
    func overrideWarning() throws {
        let file = try Self.write(Self.mcuboot(Self.image), named: "zephyr.signed.bin")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let result = try CLI.run("ota", "--image", file.path, "--version", "9.9.9", "00:00:5E:00:53:40")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("updated 00:00:5E:00:53:40 to 9.9.9\n"))
        #expect(result.standardError.contains("warning: --version 9.9.9 overrides the file's own version 2.3.0+9"))
    }

    @Test("ble firmware inspect says what a file holds without a radio; a damaged one exits non-zero")
    func inspect() throws {
        let file = try Self.write(Self.mcuboot(Self.image), named: "zephyr.signed.bin")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let result = try CLI.run("firmware", "inspect", file.path)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.dropFirst().first == "format     MCUboot image")
        #expect(lines.contains("version    2.3.0 (from the file: 2.3.0+9)"))
        var zip = Self.dfuPackage(Self.image)
        zip[200] ^= 0x01
        let damaged = try Self.write(zip, named: "headset_dfu-2.4.0.zip")
        defer { try? FileManager.default.removeItem(at: damaged.deletingLastPathComponent()) }
        let refused = try CLI.run("firmware", "inspect", damaged.path)
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("zip: app.bin CRC-32 is "))
    }
}
