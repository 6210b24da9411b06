import Foundation
import Testing

@Suite("ble read")
struct ReadCommandTests {
    static let logger = "00:00:5E:00:53:20"
    static func loggerUUID(_ first: String) -> String { "\(first)-7A3E-4B8F-9D6C-2F1E0B5A4C3D" }

    @Test("Read Characteristic Value (Core 5.4 Vol 3 Part G §4.8.1) prints the value in hex")
    func shortValue() throws {
        let result = try CLI.run("read", "00:00:5E:00:53:10", "2A19")
        #expect(result.status == 0)
        #expect(result.standardOutput == "57\n")
    }

    @Test("Read Long Characteristic Values (§4.8.3): a 300-octet value comes whole, past one ATT_MTU")
    func longValue() throws {
        let result = try CLI.run("read", Self.logger, Self.loggerUUID("9C5A0002"))
        #expect(result.status == 0)
        let text = (0..<10).map { "entry \($0): temperature 21.\($0) C, ok;\n" }.joined()
        let expected = text.utf8.prefix(300).map { String(format: "%02x", $0) }.joined()
        #expect(result.standardOutput == expected + "\n")
    }

    @Test(
        "Insufficient Authentication (Vol 3 Part C §10.3.1) makes the central pair (Just Works) and retry the read once"
    )
    func pairsOnDemand() throws {
        // The secret needs an encrypted link; the first Read Request meets 0x05, the central
        // pairs as Core Bluetooth does, and the retried read succeeds.
        let result = try CLI.run("read", Self.logger, Self.loggerUUID("9C5A0006"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardOutput.isEmpty)
    }

    @Test("A characteristic without the read property is refused before anything is sent")
    func missingProperty() throws {
        let result = try CLI.run("read", "00:00:5E:00:53:10", "2A37")
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                "reading 2A37 Heart Rate Measurement: the characteristic lacks the read property"))
    }

    @Test("A characteristic UUID the device does not have is named in the error")
    func unknownCharacteristic() throws {
        let result = try CLI.run("read", "00:00:5E:00:53:10", "2A99")
        #expect(result.status == 1)
        #expect(result.standardError.contains("no characteristic 2A99 on 00:00:5E:00:53:10"))
    }

    @Test("A malformed UUID is a usage error")
    func malformedUUID() throws {
        let result = try CLI.run("read", "00:00:5E:00:53:10", "2A1")
        #expect(result.status == 64)
        #expect(result.standardError.contains("'2A1' is not a characteristic UUID"))
    }
}

@Suite("--capture on the GATT commands")
struct CaptureOptionTests {
    @Test("--capture writes a btsnoop file (datalink 1002) holding the read's ATT Read Request and Response")
    func readCaptured() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ble-read-\(UUID()).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let read = try CLI.run("read", "00:00:5E:00:53:10", "2A19", "--capture", file)
        #expect(read.status == 0)
        #expect(read.standardOutput == "57\n")
        let bytes = try #require(FileManager.default.contents(atPath: file))
        #expect(Array(bytes.prefix(16)) == Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA])
        let decoded = try CLI.run("decode", "--btsnoop", file)
        #expect(decoded.status == 0)
        #expect(decoded.standardOutput.contains("LE Create Connection"))
        #expect(decoded.standardOutput.contains("att.readRequest"))
        #expect(decoded.standardOutput.contains("att.readResponse"))
    }

    @Test("--capture into a folder that does not exist fails with the path and exit status 1")
    func captureUnwritable() throws {
        let result = try CLI.run("read", "00:00:5E:00:53:10", "2A19", "--capture", "/nonexistent-folder/x.btsnoop")
        #expect(result.status == 1)
        #expect(result.standardError.contains("--capture /nonexistent-folder/x.btsnoop"))
    }
}
