import Foundation
import Testing

/// `ble serve --gatt docs/examples/thermometer.json` as a test starts it, and what the file
/// defines.
enum Thermometer {
    static let file = Interop.scripts.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/examples/thermometer.json")
    static let note = "A3C87501-8ED3-4BDF-8A39-A01BEBEDE295"
    static let measurement = "2A1C"
    static let measurementValues: Set<String> = ["00e40800fe", "00e50800fe"]

    /// The file's services as written.
    static func document() throws -> [[String: Any]] {
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        return try #require(root?["services"] as? [[String: Any]])
    }

    /// Starts `ble serve` on the controller at `port` and returns it with the address it printed:
    /// `serving "NAME" at ADDRESS (random static)` — a Bumble controller has no public address.
    static func serve(_ cli: CLIRuns, port: Int) async throws -> (PeerProcess, String) {
        let server = try cli.start(["serve", "--gatt", file.path], port: port)
        do {
            let line = try await server.waitForLine("serving") { $0.hasPrefix("serving \"Thermo-1\" at ") }
            let rest = line.dropFirst("serving \"Thermo-1\" at ".count)
            #expect(rest.hasSuffix(" (random static)"), "\(line)")
            try await server.waitForLine("advertising") { $0.hasPrefix("advertising \"Thermo-1\"") }
            return (server, String(rest.prefix(17)))
        } catch {
            server.stop()
            throw error
        }
    }

    /// Checks a `gatt-dump --json` of the server against the file: GAP and GATT first, then the
    /// file's services in order (a secondary one through its include, Core 5.4 Vol 3 Part G
    /// §3.1), each with its characteristics, properties and descriptors (a Client
    /// Characteristic Configuration added to those that notify or indicate).
    static func expectMatchesFile(_ dumped: [[String: Any]]) throws {
        let defined = try document()
        #expect(dumped.compactMap { $0["uuid"] as? String } == ["1800", "1801"] + defined.map(uuid))
        for (got, expected) in zip(dumped.dropFirst(2), defined) {
            #expect(got["primary"] as? Bool == (expected["primary"] as? Bool ?? true))
            let includes = (got["includes"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
            let ids = expected["includes"] as? [String] ?? []
            #expect(includes == ids.compactMap { id in defined.first { $0["id"] as? String == id }.map(uuid) })
            let characteristics = got["characteristics"] as? [[String: Any]] ?? []
            let definitions = expected["characteristics"] as? [[String: Any]] ?? []
            #expect(characteristics.compactMap { $0["uuid"] as? String } == definitions.map(uuid))
            for (characteristic, definition) in zip(characteristics, definitions) {
                let properties = definition["properties"] as? [String] ?? []
                #expect(Set(characteristic["properties"] as? [String] ?? []) == Set(properties))
                let configuration = properties.contains("notify") || properties.contains("indicate") ? ["2902"] : []
                let listed = (definition["descriptors"] as? [[String: Any]] ?? []).map(uuid)
                let descriptors = characteristic["descriptors"] as? [[String: Any]] ?? []
                #expect(descriptors.compactMap { $0["uuid"] as? String } == configuration + listed)
            }
        }
    }

    private static func uuid(_ object: [String: Any]) -> String { (object["uuid"] as? String ?? "").uppercased() }

    /// The initial value of each readable characteristic of the file, in hex, by UUID.
    static func readableValues() throws -> [String: String] {
        var values: [String: String] = [:]
        for service in try document() {
            for characteristic in service["characteristics"] as? [[String: Any]] ?? [] {
                guard (characteristic["properties"] as? [String] ?? []).contains("read"),
                    let value = characteristic["value"] as? [String: String]
                else { continue }
                let uuid = (characteristic["uuid"] as? String ?? "").uppercased()
                if let hex = value["hex"] {
                    values[uuid] = hex.lowercased()
                } else if let text = value["text"] {
                    values[uuid] = Array(text.utf8).hex
                }
            }
        }
        return values
    }
}
