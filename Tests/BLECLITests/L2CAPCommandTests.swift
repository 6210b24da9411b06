import Foundation
import Testing

@Suite("ble l2cap and ble bench l2cap")
struct L2CAPCommandTests {
    static let logger = "00:00:5E:00:53:20"

    /// A file holding `bytes`, removed by the caller.
    static func file(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("l2cap-\(UUID().uuidString).bin")
        try Data(bytes).write(to: url)
        return url
    }

    @Test("connect opens an LE credit based channel (Core 5.4 Vol 3 Part A §4.22) and prints what LOG-2 echoes")
    func connectEcho() throws {
        let url = try Self.file(Array("hello".utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try CLI.run("l2cap", "connect", Self.logger, "0x80", "--file", url.path)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("opened a channel to PSM 0x0080 (128), MTU 2048"))
        #expect(result.standardOutput.contains("sent 5 octets in 1 SDU"))
        #expect(result.standardOutput.contains("received: 5 octets 68656c6c6f \"hello\""))
    }

    @Test("connect sends a file longer than the MTU as several SDUs; the peer's control characters are escaped")
    func connectSegmentsAndEscapes() throws {
        let bytes = Array("\u{1B}[2J".utf8) + (0..<4_000).map { UInt8(0x41 + $0 % 26) }
        let url = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try CLI.run("l2cap", "connect", Self.logger, "128", "--file", url.path)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("sent 4004 octets in 2 SDUs"))
        #expect(result.standardOutput.contains("received: 2048 octets 1b5b324a"))
        #expect(result.standardOutput.contains("received: 1956 octets"))
        #expect(!result.standardOutput.utf8.contains(0x1B), "a raw escape reached the terminal")
        #expect(result.standardOutput.contains("\\u{1B}[2J"))
    }

    @Test("connect to a PSM nobody serves fails with the refusal (§4.23 SPSM not supported), exit status 1")
    func refused() throws {
        let url = try Self.file([])
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try CLI.run("l2cap", "connect", Self.logger, "0x90", "--file", url.path)
        #expect(result.status == 1)
        #expect(result.standardError.contains("refused: SPSM not supported"))
    }

    @Test("A PSM outside 1…255 is a usage error")
    func badPSM() throws {
        let result = try CLI.run("l2cap", "connect", Self.logger, "0x100")
        #expect(result.status == 64)
        #expect(result.standardError.contains("is not an LE PSM"))
    }

    @Test("listen publishes the first free dynamic PSM and says so")
    func listen() throws {
        let result = try CLI.run("l2cap", "listen", "--duration", "1", "--echo")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("listening on PSM 0x0080 (128) at 00:00:5E:00:53:C0"))
        #expect(result.standardError.contains("stopping: 1 s elapsed"))
    }

    @Test("bench l2cap: every SDU arrives checked; virtual goodput is the air-time model's for K-frames of the MPS")
    func bench() throws {
        let result = try CLI.run("bench", "l2cap", "--count", "300")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("SDUs of 1974 octets in 8 K-frames of MPS 247"))
        #expect(result.standardOutput.contains("SDUs 300, 592200 octets"))
        #expect(result.standardOutput.contains("channel violations 0"))
        let line = try #require(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("virtual goodput") })
        let numbers = line.split(separator: " ").compactMap { Double($0) }
        try #require(numbers.count >= 2, "\(line)")
        #expect(abs(numbers[0] / numbers[1] - 1) < 0.005, "\(line)")
    }

    @Test("bench l2cap --json: the same figures as one JSON object")
    func benchJSON() throws {
        let result = try CLI.run("bench", "l2cap", "--count", "100", "--frames", "2", "--json")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["sdus"] as? Int == 100)
        #expect(object["sduLength"] as? Int == 2 * 247 - 2)
        #expect(object["violations"] as? Int == 0)
        let measured = try #require(object["virtualKbps"] as? Double)
        let predicted = try #require(object["predictedKbps"] as? Double)
        #expect(abs(measured / predicted - 1) < 0.01, "\(measured) vs \(predicted)")
    }
}
