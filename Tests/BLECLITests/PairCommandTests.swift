import Foundation
import Testing

/// The repository's docs/examples folder.
private var examples: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/examples")
}

/// `ble serve --io …` and `ble pair --io …` in separate processes over `ble controller`
/// (Core 5.4 Vol 3 Part H between two of our stacks over HCI/TCP).
@Suite("ble pair against ble serve --io over ble controller")
struct PairCommandTests {
    /// "controller 1 listening on tcp-server:127.0.0.1:PORT, address ADDRESS".
    private static func listener(_ line: String) throws -> (port: String, address: String) {
        let parts = line.components(separatedBy: ", address ")
        let port = try #require(parts.first?.components(separatedBy: ":").last)
        let address = try #require(parts.last)
        return (port, address)
    }

    /// Runs `ble serve` with `serveArguments` and `ble pair` with `pairArguments` against it;
    /// returns pair's result and serve's output once pair ended.
    private func pair(serve serveArguments: [String], pair pairArguments: [String]) throws -> (CLIResult, String) {
        let controller = try BackgroundProcess([
            "controller", "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
        ])
        defer { controller.stop() }
        let listeners = try controller.lines(2).map(Self.listener)
        let server = try BackgroundProcess(
            [
                "serve", "--gatt", examples.appendingPathComponent("thermometer.json").path, "--transport",
                "tcp-client:127.0.0.1:\(listeners[0].port)",
            ] + serveArguments)
        defer { server.stop() }
        _ = try server.lines(1)
        let address = String(listeners[0].address.prefix(17))
        let bonds = pairArguments.contains("--bonds") ? [] : ["--bonds", temporaryBondsFile()]
        defer { if let file = bonds.last { try? FileManager.default.removeItem(atPath: file) } }
        let result = try CLI.run(
            ["pair", address, "--transport", "tcp-client:127.0.0.1:\(listeners[1].port)"] + pairArguments + bonds)
        if result.status == 0 {
            // The server completes when the central's keys arrive (§3.6.1), just after.
            try server.waitUntil("paired") { output, _ in output.contains("paired: ") }
        }
        return (result, server.standardOutput)
    }

    private func temporaryBondsFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ble-pair-\(UUID().uuidString).sqlite").path
    }

    @Test(
        "Just Works (§2.3.5.6.1): method, security and the bond's keys printed, no key material without --show-keys; the bond in the --bonds file"
    )
    func justWorks() throws {
        let file = temporaryBondsFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (result, served) = try pair(serve: [], pair: ["--bonds", file])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("paired: Just Works"), "\(lines)")
        #expect(
            lines.contains(
                "security: encrypted, 16-octet key, unauthenticated (no MITM protection), LE Secure Connections"))
        #expect(lines.contains { $0.hasPrefix("bond: ") && $0.hasSuffix("keys: LTK, IRK, CSRK") }, "\(lines)")
        #expect(!result.standardOutput.contains("LTK:"))
        #expect(served.contains("paired: ") && served.contains(", bonded"), "\(served)")
        #expect(served.contains("security: "), "\(served)")
        let listed = try CLI.run("bonds", "list", "--bonds", file)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains("00:00:5E:00:53:"), "\(listed.standardOutput)")
    }

    @Test(
        "Numeric Comparison (§2.3.5.6.2): both sides print the same six digits; --confirm yes on both; --show-keys prints the LTK"
    )
    func numericComparison() throws {
        let (result, served) = try pair(
            serve: ["--io", "display-yes-no", "--confirm", "yes"],
            pair: ["--io", "display-yes-no", "--confirm", "yes", "--show-keys"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("paired: Numeric Comparison"), "\(lines)")
        #expect(
            lines.contains("security: encrypted, 16-octet key, authenticated (MITM protection), LE Secure Connections"))
        let number = try #require(lines.first { $0.hasPrefix("numeric comparison: ") })
        #expect(number.count == "numeric comparison: ".count + 6)
        #expect(served.contains(number), "\(served)")
        #expect(lines.contains { $0.hasPrefix("LTK: ") })
    }

    @Test("Passkey Entry with a wrong passkey (§2.3.5.6.3): Confirm Value Failed, exit status 1, the server reports it")
    func wrongPasskey() throws {
        let (result, served) = try pair(
            serve: ["--io", "display-only"], pair: ["--io", "keyboard-only", "--passkey", "1000000"])
        // A passkey has six digits: refused before anything runs.
        #expect(result.status != 0)
        #expect(result.standardError.contains("--passkey 1000000"), "\(result.standardError)")
        #expect(!served.contains("pairing"))

        let (wrong, shown) = try pair(
            serve: ["--io", "display-only"], pair: ["--io", "keyboard-only", "--passkey", "999999"])
        let displayed = shown.split(separator: "\n").first { $0.hasPrefix("passkey: ") }
        #expect(displayed != nil, "\(shown)")
        // (One chance in a million that the random passkey is 999999.)
        if displayed?.hasPrefix("passkey: 999999") == false {
            #expect(wrong.status == 1)
            #expect(wrong.standardError.contains("Confirm Value Failed"), "\(wrong.standardError)")
            #expect(wrong.standardOutput.contains("paired: Passkey Entry") == false)
        }
    }
}
