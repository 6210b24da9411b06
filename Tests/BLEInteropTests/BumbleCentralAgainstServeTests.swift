import Foundation
import Testing

extension BumbleInteropTests {
    @Test(
        "Bumble's gatt-dump and a Bumble central vs ble serve: database, read, write, notify, indicate"
    )
    func bumbleCentralAgainstServe() async throws {
        let (controllers, ports) = try await Interop.bumbleControllers(4)
        defer { controllers.stop() }
        try #require(ports.count == 4)
        let cli = try CLIRuns()
        defer { cli.removeFiles() }
        let (server, address) = try await Thermometer.serve(cli, port: ports[0])
        defer { server.stop() }

        // Our own client's view of the server, checked against the file.
        let dump = try await cli.run(["gatt-dump", address, "--json"], port: ports[1])
        #expect(dump.status == 0, "\(dump.transcript)")
        let dumped = try #require(dump.json?["services"] as? [[String: Any]], "\(dump.transcript)")
        try Thermometer.expectMatchesFile(dumped)

        // A Bumble central: reads (a long-enough value, and Read Using Characteristic UUID,
        // which reaches the secondary service), writes with and without response, and the
        // notifications and indications that follow a subscription.
        let note = Thermometer.note
        let client = try Interop.bumble(
            "bumble client", "bumble_client.py",
            [
                "tcp-client:127.0.0.1:\(ports[2])", "C4:00:00:00:00:0D", address,
                "read:\(note)", "read-by-type:2A19", "subscribe:\(note)", "write:\(note):776f726c64",
                "await:\(note):1", "read:\(note)", "write-command:\(note):21", "await:\(note):1",
                "subscribe:2A1C", "await:2A1C:1",
            ])
        defer { client.stop() }
        let status = try await client.waitForExit()
        #expect(status == 0, "\(client.transcript)")
        #expect(client.events("mtu").first?["mtu"] as? Int == 247)
        #expect(client.events("read").compactMap { $0["value"] as? String } == ["68656c6c6f", "776f726c64"])
        #expect(client.events("read-by-type").first?["values"] as? [String] == ["64"])
        let values = client.events("value")
        #expect(values.compactMap { $0["value"] as? String }.prefix(2) == ["776f726c64", "21"])
        let indication = try #require(values.last { $0["uuid"] as? String == Thermometer.measurement })
        #expect(Thermometer.measurementValues.contains(indication["value"] as? String ?? ""))
        #expect(client.events("disconnected").first?["reason"] as? Int == 0x13)

        // What ble serve logged of it.
        // Our gatt-dump's link, then the Bumble central's, went down.
        try await server.waitForLines("disconnections", count: 2) { $0.hasPrefix("disconnected: ") }
        let log = server.lines
        #expect(log.contains { $0.hasPrefix("write \(note) (handle 0x001E): 776f726c64 by ") }, "\(log)")
        #expect(log.contains { $0.hasPrefix("write \(note) (handle 0x001E) without response: 21 by ") })
        #expect(log.contains { $0.hasPrefix("subscribed: ") && $0.hasSuffix(" to \(note)") })
        #expect(log.contains { $0.hasPrefix("subscribed: ") && $0.hasSuffix(" to 2A1C Temperature Measurement") })
        #expect(log.contains { $0.hasPrefix("notified \(note): 21") })
        #expect(log.contains { $0.hasPrefix("indicated 2A1C Temperature Measurement: ") })
        #expect(
            log.contains {
                $0.hasPrefix("disconnected: ") && $0.hasSuffix("(Remote User Terminated Connection (0x13))")
            })

        // Bumble's own dump tool: its service tree and its list of every attribute agree with
        // our dump's handles and the file's values (the note now holds the last write). It ends
        // without disconnecting, so it comes last.
        let tool = URL(fileURLWithPath: Interop.python ?? "").deletingLastPathComponent()
            .appendingPathComponent("bumble-gatt-dump")
        let bumbleDump = try PeerProcess(
            name: "bumble-gatt-dump", executable: tool, arguments: ["tcp-client:127.0.0.1:\(ports[3])", address])
        defer { bumbleDump.stop() }
        #expect(try await bumbleDump.waitForExit() == 0, "\(bumbleDump.transcript)")
        let listing = BumbleGATTDump(bumbleDump.lines)
        #expect(listing.services == BumbleGATTDump.services(ofDump: dumped))
        var readable = try Thermometer.readableValues()
        readable[note] = "21"
        readable["2A00"] = Array("Thermo-1".utf8).hex
        try BumbleGATTDump.expect(listing.attributes, describe: dumped, values: readable)

        server.stop()
        #expect(server.errorLines.contains("stopping: received SIGTERM"), "\(server.transcript)")
        try await cli.checkCaptures()
    }
}

/// What `bumble-gatt-dump` prints, colours removed: "=== Services ===" with one line per
/// primary service, characteristic (value handle, properties) and descriptor, then
/// "=== All Attributes ===" with every attribute found by Find Information (Core 5.4 Vol 3
/// Part F §3.4.3.1) and the value a Read Request got, or an ATT error.
struct BumbleGATTDump {
    struct Attribute: Equatable {
        var handle: Int
        var type: String
        /// Hex, nil when the read failed.
        var value: String?
    }

    /// "service UUID HANDLE", "characteristic UUID HANDLE PROPERTY|…" (sorted), "descriptor UUID HANDLE".
    var services: [String] = []
    var attributes: [Attribute] = []

    init(_ output: [String]) {
        // Bumble colours every line with ANSI escapes (ESC [ … m), terminal or not.
        let lines = output.map {
            $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        }
        var section = ""
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.hasPrefix("=== ") {
                section = line
                continue
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if section == "=== Services ===" {
                guard let open = trimmed.firstIndex(of: "("), let handle = Self.field("handle=0x", in: trimmed),
                    let uuid = Self.field("uuid=", in: trimmed) ?? Self.field("type=", in: trimmed)
                else { continue }
                let kind = trimmed[..<open].lowercased()
                var entry = "\(kind) \(Self.uuid(uuid)) \(Int(handle, radix: 16) ?? -1)"
                if kind == "characteristic", let properties = trimmed.split(separator: ", ").last?.dropLast() {
                    entry += " " + properties.split(separator: "|").map(String.init).sorted().joined(separator: "|")
                }
                services.append(entry)
            } else if section == "=== All Attributes ===", trimmed.hasPrefix("Attribute(") {
                guard let handle = Self.field("handle=0x", in: trimmed), let type = Self.field("type=", in: trimmed)
                else { continue }
                let next = index < lines.count ? lines[index] : "?"
                let isValue = next.allSatisfy(\.isHexDigit)
                attributes.append(
                    Attribute(handle: Int(handle, radix: 16) ?? -1, type: Self.uuid(type), value: isValue ? next : nil))
            }
        }
    }

    /// The text after `key` up to a comma or a closing parenthesis.
    private static func field(_ key: String, in line: String) -> String? {
        guard let range = line.range(of: key) else { return nil }
        return String(line[range.upperBound...].prefix { $0 != "," && $0 != ")" })
    }

    /// "UUID-16:2A00 (Device Name)" → "2A00"; a 128-bit UUID stays as it is.
    private static func uuid(_ text: String) -> String {
        let bare = text.hasPrefix("UUID-16:") ? text.dropFirst("UUID-16:".count) : text[...]
        return String(bare.prefix { $0 != " " })
    }

    /// Bumble's names of the properties.
    static let propertyNames: [String: String] = [
        "broadcast": "BROADCAST", "read": "READ", "writeWithoutResponse": "WRITE_WITHOUT_RESPONSE", "write": "WRITE",
        "notify": "NOTIFY", "indicate": "INDICATE", "authenticatedSignedWrites": "AUTHENTICATED_SIGNED_WRITES",
        "extendedProperties": "EXTENDED_PROPERTIES",
    ]

    /// The "=== Services ===" lines Bumble should print for our dump: primary services only
    /// (it uses Discover All Primary Services, Vol 3 Part G §4.4.1).
    static func services(ofDump dumped: [[String: Any]]) -> [String] {
        var lines: [String] = []
        for service in dumped where service["primary"] as? Bool == true {
            lines.append("service \(service["uuid"] ?? "?") \(service["start"] ?? "?")")
            for characteristic in service["characteristics"] as? [[String: Any]] ?? [] {
                let properties = (characteristic["properties"] as? [String] ?? []).map { propertyNames[$0] ?? $0 }
                lines.append(
                    "characteristic \(characteristic["uuid"] ?? "?") \(characteristic["value"] ?? "?") "
                        + properties.sorted().joined(separator: "|"))
                for descriptor in characteristic["descriptors"] as? [[String: Any]] ?? [] {
                    lines.append("descriptor \(descriptor["uuid"] ?? "?") \(descriptor["handle"] ?? "?")")
                }
            }
        }
        return lines
    }

    /// Every attribute our dump names has the type it says at its handle (services 0x2800 or
    /// 0x2801, declarations 0x2803, values, descriptors); the only others are Include
    /// declarations (0x2802), one per include; handles run from 1 without a gap; and the
    /// readable values are `values` (by characteristic UUID).
    static func expect(_ attributes: [Attribute], describe dumped: [[String: Any]], values: [String: String]) throws {
        #expect(attributes.map(\.handle) == Array(1...max(1, attributes.count)))
        var named: [Int: String] = [:]
        var includes = 0
        var expectedValues: [Int: String] = [:]
        for service in dumped {
            let start = try #require(service["start"] as? Int)
            named[start] = service["primary"] as? Bool == true ? "2800" : "2801"
            includes += (service["includes"] as? [Any])?.count ?? 0
            for characteristic in service["characteristics"] as? [[String: Any]] ?? [] {
                let uuid = try #require(characteristic["uuid"] as? String)
                let value = try #require(characteristic["value"] as? Int)
                named[try #require(characteristic["declaration"] as? Int)] = "2803"
                named[value] = uuid
                expectedValues[value] = values[uuid]
                for descriptor in characteristic["descriptors"] as? [[String: Any]] ?? [] {
                    named[try #require(descriptor["handle"] as? Int)] = descriptor["uuid"] as? String
                }
            }
        }
        for attribute in attributes {
            #expect(attribute.type == named[attribute.handle] ?? "2802", "handle \(attribute.handle)")
            if let expected = expectedValues[attribute.handle] {
                #expect(attribute.value == expected, "value at handle \(attribute.handle)")
            }
        }
        #expect(attributes.count(where: { named[$0.handle] == nil }) == includes)
        #expect(expectedValues.keys.count == values.count)
    }
}
