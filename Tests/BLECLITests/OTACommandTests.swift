import Foundation
import Testing

@Suite("ble ota and ble headset")
struct OTACommandTests {
    /// A 20,000-octet image file named with its version, in a fresh temporary folder.
    static func imageFile(version: String = "2.0.0") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ble-ota-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("headset-\(version).bin")
        let bytes = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try Data(bytes).write(to: file)
        return file
    }

    @Test("ble ota updates the neighbourhood's headset and prints the summary")
    func updatesNeighbourhoodHeadset() throws {
        let file = try Self.imageFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let result = try CLI.run("ota", "--image", file.path, "00:00:5E:00:53:40")
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "updated 00:00:5E:00:53:40 to 2.0.0")
        #expect(lines.contains { $0.contains("20000 bytes in 87 packets of 230") })
        #expect(lines.contains { $0.hasPrefix("  goodput") && $0.hasSuffix("kB/s") })
        #expect(lines.contains { $0.contains("87 packets (20000 bytes), 0 resent") })
        // Not a terminal: plain progress lines on standard error, ending with the swap.
        #expect(result.standardError.contains("100 %  20000/20000 bytes"))
        #expect(result.standardError.contains("verifying and swapping"))
        #expect(!result.standardError.contains("\r"))
    }

    @Test("--version overrides the file name's; a bad version is refused before connecting")
    func badVersion() throws {
        let file = try Self.imageFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let result = try CLI.run("ota", "--image", file.path, "--version", "2.0", "00:00:5E:00:53:40")
        #expect(result.status != 0)
        #expect(result.standardError.contains("version \"2.0\" is not MAJOR.MINOR.PATCH"))
    }

    @Test("A missing image file is a clear error and a non-zero exit")
    func missingImage() throws {
        let result = try CLI.run("ota", "--image", "/nonexistent/headset-2.0.0.bin", "00:00:5E:00:53:40")
        #expect(result.status != 0)
        #expect(result.standardError.contains("--image /nonexistent/headset-2.0.0.bin: no such file"))
    }

    @Test("A malformed address is a usage error; a device that does not speak the protocol fails clearly")
    func badAddress() throws {
        let file = try Self.imageFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let malformed = try CLI.run("ota", "--image", file.path, "00:00:5E:00:53")
        #expect(malformed.status != 0)
        #expect(malformed.standardError.contains("'00:00:5E:00:53' is not a device address"))
        let absent = try CLI.run("ota", "--image", file.path, "00:00:5E:00:53:99", "--timeout", "1")
        #expect(absent.status != 0)
        #expect(absent.standardError.contains("no device with address 00:00:5E:00:53:99 advertised within 1 s"))
        let wrongDevice = try CLI.run("ota", "--image", file.path, "00:00:5E:00:53:30")
        #expect(wrongDevice.status != 0)
        #expect(wrongDevice.standardError.contains("does not speak the headset protocol"))
    }

    @Test("ble headset advertises its MAC and runs for --duration")
    func headset() throws {
        let result = try CLI.run("headset", "--duration", "2", "--address", "00:00:5E:00:53:77")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("headset 00:00:5E:00:53:77 advertising \"HEADSET\", firmware 1.0.0"))
        #expect(result.standardError.contains("stopping: 2 s elapsed"))
        let bad = try CLI.run("headset", "--fault-rate", "1.5")
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("--fault-rate 1.5"))
    }
}
