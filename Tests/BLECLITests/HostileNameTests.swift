import BLEWire
import Foundation
import Testing

@Suite("A hostile advertiser's name on a terminal: ble serve advertises it, ble scan prints it")
struct HostileNameTests {
    /// A newline, an escape sequence that would clear the screen, a bidirectional override.
    static let name = "A\nB\u{1B}[2J\u{202E}C"

    /// "controller 1 listening on tcp-server:127.0.0.1:PORT, address ADDRESS".
    private static func port(_ line: String) throws -> String {
        let listener = try #require(line.components(separatedBy: ", address ").first)
        return try #require(listener.components(separatedBy: ":").last)
    }

    @Test("scan and serve print the name escaped on one line (\\n, \\u{1B}); scan --json keeps its exact characters")
    func scanPrintsNameEscaped() throws {
        let document = FileManager.default.temporaryDirectory
            .appendingPathComponent("ble-hostile-\(UUID().uuidString).json")
        let json = #"{"name": "A\nB\u001b[2J\u202eC", "services": []}"#
        try Data(json.utf8).write(to: document)
        defer { try? FileManager.default.removeItem(at: document) }

        let controller = try BackgroundProcess([
            "controller", "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
        ])
        defer { controller.stop() }
        let ports = try controller.lines(2).map(Self.port)
        let server = try BackgroundProcess([
            "serve", "--gatt", document.path, "--transport", "tcp-client:127.0.0.1:\(ports[0])",
        ])
        defer { server.stop() }
        let served = try server.lines(2)
        #expect(served[0].hasPrefix(#"serving "A\nB\u{1B}[2J\u{202E}C" at "#), "\(served)")
        #expect(served[1].hasPrefix(#"advertising "A\nB\u{1B}[2J\u{202E}C""#), "\(served)")
        #expect(!server.standardOutput.unicodeScalars.contains { TerminalText.isUnsafe($0) && $0 != "\n" })

        let client = "tcp-client:127.0.0.1:\(ports[1])"
        let text = try CLI.run("scan", "--duration", "1", "--transport", client, "--log-level", "trace")
        #expect(text.status == 0, "\(text.standardError)")
        // The trace log shows every HCI packet, the advertising reports carrying the name too.
        #expect(text.standardError.contains("advertisingReport"))
        #expect(!text.standardError.unicodeScalars.contains { TerminalText.isUnsafe($0) && $0 != "\n" })
        let lines = text.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.contains(#"name "A\nB\u{1B}[2J\u{202E}C""#), "\(line)")
            #expect(TerminalText.isSafe(line), "\(line.debugDescription)")
        }
        let structured = try CLI.run("scan", "--json", "--duration", "1", "--transport", client)
        #expect(structured.status == 0, "\(structured.standardError)")
        let objects = try structured.standardOutput.split(separator: "\n").map {
            #expect(TerminalText.isSafe($0), "\($0.debugDescription)")
            return try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(!objects.isEmpty)
        #expect(objects.allSatisfy { $0["name"] as? String == Self.name })
    }
}
