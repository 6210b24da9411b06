import Foundation
import Testing

/// Writes a GATT description to a temporary file and runs `ble serve` on it.
private func serve(_ json: String, _ extra: String...) throws -> CLIResult {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ble-serve-\(UUID().uuidString).json")
    try Data(json.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try CLI.run(["serve", "--gatt", url.path] + extra)
}

/// The repository's docs/examples folder (the tests run from the package root or anywhere).
private var examples: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/examples")
}

@Suite("ble serve: the GATT description")
struct ServeSchemaTests {
    @Test("An unknown property is named with its path in the document")
    func unknownProperty() throws {
        let result = try serve(
            #"{"services":[{"uuid":"180F"},{"uuid":"1809","characteristics":[{"uuid":"2A1C","#
                + #""properties":["read","write","nofity"]}]}]}"#)
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                #"services[1].characteristics[0].properties[2]: unknown property "nofity"; expected one of: "#))
    }

    @Test("Unknown keys, wrong kinds, bad UUIDs and bad values are errors at their paths")
    func schemaViolations() throws {
        let cases: [(String, String)] = [
            (#"{"services":[{"uuid":"180F","charactristics":[]}]}"#, #"services[0]: unknown key "charactristics""#),
            (#"{"services":{}}"#, "services: expected an array, found an object"),
            (#"{"services":[{"uuid":"18G0"}]}"#, #"services[0].uuid: "18G0" is not a UUID"#),
            (#"{"name":"x"}"#, #"missing key "services""#),
            (
                #"{"services":[{"uuid":"180F","characteristics":[{"uuid":"2A19","properties":["read"],"#
                    + #""value":{"hex":"0g"}}]}]}"#,
                "services[0].characteristics[0].value.hex: not hex"
            ),
            (
                #"{"services":[{"uuid":"180F","characteristics":[{"uuid":"2A19","properties":["read"],"#
                    + #""permissions":["readble"]}]}]}"#,
                #"services[0].characteristics[0].permissions[0]: unknown permission "readble""#
            ),
            (
                #"{"services":[{"uuid":"180F","characteristics":[{"uuid":"2A19","properties":["read"],"#
                    + #""descriptors":[{"uuid":"2902","value":{"hex":"0000"}}]}]}]}"#,
                "services[0].characteristics[0].descriptors[0].uuid: 2902 is added by the server"
            ),
            (
                #"{"services":[{"uuid":"1809","includes":["battery"]},{"id":"battery","uuid":"180F"}]}"#,
                #"services[0].includes[0]: no service with id "battery" before this one"#
            ),
            (
                #"{"services":[{"uuid":"180F","characteristics":[{"uuid":"2A19","properties":["read"],"#
                    + #""updates":{"interval":1,"values":[{"hex":"00"}]}}]}]}"#,
                "services[0].characteristics[0].updates: updates need the notify or indicate property"
            ),
            (#"{"services":[],"advertising":{"connectable":1}}"#, "advertising.connectable: expected true or false"),
        ]
        for (json, message) in cases {
            let result = try serve(json)
            #expect(result.status == 1, "\(json)")
            #expect(result.standardError.contains(message), "\(json) → \(result.standardError)")
        }
    }

    @Test("Text that is not JSON, a missing file and advertising over 31 octets are refused")
    func otherErrors() throws {
        let syntax = try serve(#"{"services":["#)
        #expect(syntax.status == 1)
        #expect(syntax.standardError.contains("is not valid JSON"))
        let missing = try CLI.run("serve", "--gatt", "/nonexistent/ble-serve.json")
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot read /nonexistent/ble-serve.json"))
        let long = try serve(
            #"{"name":"a name far too long for one advertising PDU","services":[]}"#, "--duration", "1")
        #expect(long.status == 1)
        #expect(long.standardError.contains("over the legacy limit of 31"))
    }

    @Test("The example file serves on the virtual radio and says where; --duration ends it with status 0")
    func servesExample() throws {
        let result = try CLI.run(
            "serve", "--gatt", examples.appendingPathComponent("thermometer.json").path, "--duration", "2")
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("serving \"Thermo-1\" at 00:00:5E:00:53:C0 (public)\n"))
        #expect(result.standardError.contains("stopping: 2 s elapsed"))
    }
}

@Suite("ble serve and a GATT client in separate processes over ble controller")
struct ServeOverControllerTests {
    /// "controller 1 listening on tcp-server:127.0.0.1:PORT, address ADDRESS".
    private static func listener(_ line: String) throws -> (port: String, address: String) {
        let parts = line.components(separatedBy: ", address ")
        let port = try #require(parts.first?.components(separatedBy: ":").last)
        let address = try #require(parts.last)
        return (port, address)
    }

    @Test("gatt-dump over HCI/TCP matches the served file; a write is read back; processes stop on SIGTERM")
    func dumpMatchesFile() throws {
        let file = examples.appendingPathComponent("thermometer.json")
        let controller = try BackgroundProcess([
            "controller", "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
        ])
        defer { controller.stop() }
        let listeners = try controller.lines(2).map(Self.listener)
        let server = try BackgroundProcess([
            "serve", "--gatt", file.path, "--transport", "tcp-client:127.0.0.1:\(listeners[0].port)",
        ])
        defer { server.stop() }
        let served = try server.lines(1)
        #expect(served.first == "serving \"Thermo-1\" at \(listeners[0].address) (public)")
        let address = String(listeners[0].address.prefix(17))
        let client = "tcp-client:127.0.0.1:\(listeners[1].port)"

        let dump = try CLI.run("gatt-dump", address, "--json", "--transport", client)
        #expect(dump.status == 0, "\(dump.standardError)")
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        let dumped = try #require(root["services"] as? [[String: Any]]).filter {
            !["1800", "1801"].contains($0["uuid"] as? String)
        }
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        // Every service, the secondary one too: Discover All Primary Services, then the services
        // they include (Core 5.4 Vol 3 Part G §4.4.1, §4.5.1); in handle order, which is the file's.
        let defined = try #require(document["services"] as? [[String: Any]])
        #expect(dumped.count == defined.count)
        for (got, expected) in zip(dumped, defined) {
            #expect(got["uuid"] as? String == (expected["uuid"] as? String)?.uppercased())
            #expect(got["primary"] as? Bool == (expected["primary"] as? Bool ?? true))
            let includes = (got["includes"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
            let ids = expected["includes"] as? [String] ?? []
            let included = ids.compactMap { id in defined.first { $0["id"] as? String == id }?["uuid"] as? String }
            #expect(includes == included)
            let gotCharacteristics = try #require(got["characteristics"] as? [[String: Any]])
            let expectedCharacteristics = expected["characteristics"] as? [[String: Any]] ?? []
            #expect(gotCharacteristics.count == expectedCharacteristics.count)
            for (characteristic, definition) in zip(gotCharacteristics, expectedCharacteristics) {
                #expect(characteristic["uuid"] as? String == (definition["uuid"] as? String)?.uppercased())
                #expect(
                    Set(characteristic["properties"] as? [String] ?? [])
                        == Set(definition["properties"] as? [String] ?? []))
                let properties = definition["properties"] as? [String] ?? []
                let configuration = properties.contains("notify") || properties.contains("indicate") ? ["2902"] : []
                let listed = (definition["descriptors"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
                let descriptors = characteristic["descriptors"] as? [[String: Any]] ?? []
                #expect(descriptors.compactMap { $0["uuid"] as? String } == configuration + listed)
            }
        }

        // A characteristic of the secondary service, reached through its include.
        let battery = try CLI.run("read", address, "2A19", "--transport", client)
        #expect(battery.standardOutput == "64\n", "\(battery.standardError)")

        let note = "A3C87501-8ED3-4BDF-8A39-A01BEBEDE295"
        let before = try CLI.run("read", address, note, "--transport", client)
        #expect(before.standardOutput == "68656c6c6f\n")
        let write = try CLI.run("write", address, note, "776f726c64", "--transport", client)
        #expect(write.status == 0, "\(write.standardError)")
        let after = try CLI.run("read", address, note, "--transport", client)
        #expect(after.standardOutput == "776f726c64\n")

        // A subscriber sees the server's indications, and the link's loss when the server stops.
        let subscriber = try BackgroundProcess(["subscribe", address, "2A1C", "--transport", client])
        defer { subscriber.stop() }
        let indicated = try subscriber.lines(1)
        #expect(["00e40800fe", "00e50800fe"].contains(indicated.first ?? ""))

        #expect(server.stop() == 0)
        #expect(subscriber.waitForExit() == 1)
        #expect(subscriber.standardError.contains("the link to \(address) went down after"))
        #expect(server.standardOutput.contains("write \(note) (handle "))
        #expect(server.standardOutput.contains(": 776f726c64 by "))
        #expect(server.standardError.contains("stopping: received SIGTERM"))
        #expect(controller.stop() == 0)
    }
}
