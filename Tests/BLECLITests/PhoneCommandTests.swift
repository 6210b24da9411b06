import Foundation
import Testing

/// The repository's docs/examples/phone folder.
private var phoneExamples: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/examples/phone")
}

/// Writes a scenario to a temporary file and runs `ble phone run` on it.
private func runScenario(_ json: String, _ extra: String...) throws -> CLIResult {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ble-phone-\(UUID().uuidString).json")
    try Data(json.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try CLI.run(["phone", "run", url.path] + extra)
}

/// A foreground app that opens, leaves and comes back; `expect` is spliced in.
private func scenario(expect: String) -> String {
    """
    {
      "profile": "ios17",
      "app": {"bundle_id": "com.example.app"},
      "timeline": [{"at_s": 1, "action": "open"}, {"at_s": 10, "action": "home"}],
      "duration_s": 60,
      "expect": [\(expect)]
    }
    """
}

@Suite("ble phone run")
struct PhoneCommandTests {
    @Test("A passing scenario prints the trace and each expectation with pass, writes the SVG, exits 0")
    func passingScenario() throws {
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("ble-phone-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: svg) }
        let result = try runScenario(
            scenario(expect: #"{"state": "active", "at_s": 5}, {"state": "suspended"}, {"launches": 1}"#), "--svg",
            svg.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("  com.example.app  "))
        #expect(result.standardOutput.contains("pass  state active at 5 s: active"))
        #expect(result.standardOutput.contains("pass  state suspended at the end: suspended"))
        #expect(result.standardOutput.contains("pass  1 launch: 1 launch"))
        let picture = try String(contentsOf: svg, encoding: .utf8)
        #expect(picture.hasPrefix("<?xml"))
        #expect(picture.contains("class=\"s-suspended\""))
    }

    @Test("A failed expectation says FAIL with what the trace showed and exits with status 2")
    func failingExpectation() throws {
        let result = try runScenario(scenario(expect: #"{"launches": 1}, {"killed": "memory_pressure"}"#))
        #expect(result.status == 2)
        #expect(result.standardOutput.contains("pass  1 launch"))
        #expect(result.standardOutput.contains("FAIL  killed for memory pressure: never killed"))
        #expect(result.standardError.contains("1 of 2 expectations failed"))
    }

    @Test("A malformed scenario names the file, the path, line and column, and exits with status 1")
    func malformedScenario() throws {
        let json = """
            {
              "profile": "ios17",
              "app": {"bundle_id": "com.example.app"},
              "timeline": [{"at_s": 1, "action": "opne"}],
              "duration_s": 60
            }
            """
        let result = try runScenario(json)
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(#"timeline[0].action: unknown action "opne"; expected one of: open, home"#))
        #expect(result.standardError.contains("(line 4, column 38)"))
        #expect(result.standardOutput.isEmpty)
        let syntax = try runScenario("{\"profile\": ")
        #expect(syntax.status == 1)
        #expect(syntax.standardError.contains("not JSON: unexpected end of the document (line 1, column 13)"))
        let missing = try CLI.run("phone", "run", "/nonexistent/ble-phone.json")
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot read /nonexistent/ble-phone.json"))
    }

    @Test("--json prints one JSON object: the trace, the expectations and whether all passed")
    func jsonOutput() throws {
        let result = try runScenario(scenario(expect: #"{"launches": 1}"#), "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let trace = try #require(object["trace"] as? [[String: Any]])
        #expect(trace.contains { ($0["event"] as? [String: Any])?["type"] as? String == "launched" })
        let expectations = try #require(object["expectations"] as? [[String: Any]])
        #expect(expectations.count == 1)
        #expect(object["passed"] as? Bool == true)
    }

    @Test("The documented examples run and pass")
    func examplesPass() throws {
        for file in [
            "foreground-only.json", "central-heartbeat-wakes.json", "restoration-memory-vs-force-quit.json",
            "keep-alive-url-session.json",
            "overnight-update-check.json",
        ] {
            let result = try CLI.run("phone", "run", phoneExamples.appendingPathComponent(file).path)
            #expect(result.status == 0, "\(file): \(result.standardOutput.suffix(2_000)) \(result.standardError)")
        }
    }
}
