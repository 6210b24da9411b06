import Foundation
import Testing

/// Writes a GATT description to a temporary file and runs `ble serve` on it.
private func serve(_ json: String, _ extra: String...) throws -> CLIResult {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ble-serve-\(UUID().uuidString).json")
    try Data(json.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try CLI.run(["serve", "--gatt", url.path] + extra)
}

@Suite("ble serve: strict input (duplicate keys, the Device Name's 248 octets)")
struct ServeInputTests {
    @Test("A key given twice in any object of the description is an error naming the key and its path")
    func duplicateKeys() throws {
        let cases: [(String, String)] = [
            (#"{"services":[],"services":[]}"#, #"the top-level object: key "services" appears more than once"#),
            (#"{"services":[{"uuid":"180F","uuid":"180A"}]}"#, #"services[0]: key "uuid" appears more than once"#),
            (
                #"{"services":[{"uuid":"180F","characteristics":[{"uuid":"2A19","properties":["read"],"#
                    + #""value":{"hex":"00","hex":"01"}}]}]}"#,
                #"services[0].characteristics[0].value: key "hex" appears more than once"#
            ),
            (
                #"{"services":[],"advertising":{"name":"a","name":"b"}}"#,
                #"advertising: key "name" appears more than once"#
            ),
            // Escapes are decoded before keys are compared.
            (#"{"services":[],"n\u0061me":"a","name":"b"}"#, #"key "name" appears more than once"#),
        ]
        for (json, message) in cases {
            let result = try serve(json)
            #expect(result.status == 1, "\(json)")
            #expect(result.standardError.contains(message), "\(json) → \(result.standardError)")
        }
    }

    @Test("Syntax errors say where (line and column); deep nesting is refused, not a crash")
    func syntax() throws {
        let broken = try serve("{\n  \"services\": [,]\n}")
        #expect(broken.status == 1)
        #expect(broken.standardError.contains("is not valid JSON"))
        #expect(broken.standardError.contains("line 2, column 16"), "\(broken.standardError)")
        let deep = try serve(String(repeating: "[", count: 100_000))
        #expect(deep.status == 1)
        #expect(deep.standardError.contains("nested deeper than 64 levels"))
    }

    @Test("Core 5.4 Vol 3 Part C §12.1: a name over 248 octets is refused with its length, not cut inside a character")
    func nameTooLong() throws {
        // 124 two-octet characters are 248 octets; one more is 250.
        let fits = String(repeating: "é", count: 124)
        let over = fits + "é"
        let refused = try serve(#"{"name":"\#(over)","services":[],"advertising":{"name":"x"}}"#, "--duration", "1")
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("name: 250 octets of UTF-8; a Device Name holds at most 248"))
        let served = try serve(#"{"name":"\#(fits)","services":[],"advertising":{"name":"x"}}"#, "--duration", "1")
        #expect(served.status == 0, "\(served.standardError)")
    }
}
