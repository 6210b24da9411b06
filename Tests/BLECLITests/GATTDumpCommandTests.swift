import Foundation
import Testing

@Suite("ble gatt-dump")
struct GATTDumpCommandTests {
    @Test("--json of TAG-3 is exactly the GAP, GATT and Battery services with their handles (Core 5.4 Vol 3 Part G §3)")
    func goldenSmallDevice() throws {
        let result = try CLI.run("gatt-dump", "00:00:5E:00:53:30", "--json")
        #expect(result.status == 0)
        // Keys sorted (the encoder keeps no declaration order).
        let golden =
            #"{"services":[{"characteristics":[{"declaration":2,"descriptors":[],"properties":["read"],"#
            + #""uuid":"2A00","value":3},{"declaration":4,"descriptors":[],"properties":["read"],"uuid":"2A01","#
            + #""value":5}],"end":5,"includes":[],"primary":true,"start":1,"uuid":"1800"},"#
            + #"{"characteristics":[{"declaration":7,"descriptors":[{"handle":9,"uuid":"2902"}],"#
            + #""properties":["indicate"],"uuid":"2A05","value":8},{"declaration":10,"descriptors":[],"#
            + #""properties":["read","write"],"uuid":"2B29","value":11},{"declaration":12,"descriptors":[],"#
            + #""properties":["read"],"uuid":"2B2A","value":13}],"end":13,"includes":[],"primary":true,"start":6,"#
            + #""uuid":"1801"},{"characteristics":[{"declaration":15,"descriptors":[],"properties":["read"],"#
            + #""uuid":"2A19","value":16}],"end":16,"includes":[],"primary":true,"start":14,"uuid":"180F"}]}"#
        #expect(result.standardOutput == golden + "\n")
    }

    @Test("--json of HRS-1: every service, characteristic and descriptor, handles in order within their service")
    func heartRateStructure() throws {
        let result = try CLI.run("gatt-dump", "00:00:5E:00:53:10", "--json")
        #expect(result.status == 0)
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(root.keys.sorted() == ["services"])
        let services = try #require(root["services"] as? [[String: Any]])
        #expect(services.map { $0["uuid"] as? String } == ["1800", "1801", "180D", "180F", "180A"])
        var previousEnd = 0
        for service in services {
            let start = try #require(service["start"] as? Int)
            let end = try #require(service["end"] as? Int)
            #expect(start > previousEnd && start <= end)
            previousEnd = end
            for characteristic in try #require(service["characteristics"] as? [[String: Any]]) {
                #expect(characteristic.keys.sorted() == ["declaration", "descriptors", "properties", "uuid", "value"])
                let declaration = try #require(characteristic["declaration"] as? Int)
                let value = try #require(characteristic["value"] as? Int)
                #expect(start < declaration && declaration < value && value <= end)
                for descriptor in try #require(characteristic["descriptors"] as? [[String: Any]]) {
                    let handle = try #require(descriptor["handle"] as? Int)
                    #expect(value < handle && handle <= end)
                }
            }
        }
        let heartRate = try #require(services.first { $0["uuid"] as? String == "180D" })
        let characteristics = try #require(heartRate["characteristics"] as? [[String: Any]])
        #expect(characteristics.map { $0["uuid"] as? String } == ["2A37", "2A38", "2A39"])
        #expect(characteristics.map { $0["properties"] as? [String] } == [["notify"], ["read"], ["write"]])
        let measurementDescriptors = try #require(characteristics[0]["descriptors"] as? [[String: Any]])
        #expect(measurementDescriptors.map { $0["uuid"] as? String } == ["2902"])
        let battery = try #require(services.first { $0["uuid"] as? String == "180F" })
        let level = try #require((battery["characteristics"] as? [[String: Any]])?.first)
        #expect(level["properties"] as? [String] == ["read", "notify"])
    }

    @Test("128-bit UUIDs print upper-case canonical; properties by Core Bluetooth's names")
    func customService() throws {
        let result = try CLI.run("gatt-dump", "00:00:5E:00:53:20", "--json")
        #expect(result.status == 0)
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let services = try #require(root["services"] as? [[String: Any]])
        let custom = try #require(services.last)
        #expect(custom["uuid"] as? String == "9C5A0001-7A3E-4B8F-9D6C-2F1E0B5A4C3D")
        let characteristics = try #require(custom["characteristics"] as? [[String: Any]])
        #expect(
            characteristics.map { $0["properties"] as? [String] } == [
                ["read"], ["read", "write"], ["writeWithoutResponse"], ["indicate"], ["read"],
            ])
        let event = characteristics[3]
        #expect(event["uuid"] as? String == "9C5A0005-7A3E-4B8F-9D6C-2F1E0B5A4C3D")
        #expect((event["descriptors"] as? [[String: Any]])?.map { $0["uuid"] as? String } == ["2902", "2901"])
    }

    @Test("The text form is a tree with handles and the names of well-known UUIDs")
    func text() throws {
        let result = try CLI.run("gatt-dump", "00:00:5E:00:53:10")
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("service 0x000E…0x0015  180D Heart Rate"))
        #expect(lines.contains("  characteristic 0x000F, value 0x0010  2A37 Heart Rate Measurement  [notify]"))
        #expect(lines.contains("    descriptor 0x0011  2902 Client Characteristic Configuration"))
    }

    @Test("An address nobody advertises ends after the scan timeout with a clear message")
    func unknownAddress() throws {
        let result = try CLI.run("gatt-dump", "00:00:5E:00:53:99", "--timeout", "2")
        #expect(result.status == 1)
        #expect(result.standardError.contains("no device with address 00:00:5E:00:53:99 advertised within 2 s"))
    }

    @Test("A malformed address is a usage error")
    func malformedAddress() throws {
        let result = try CLI.run("gatt-dump", "00:00:5E:00:53")
        #expect(result.status == 64)
        #expect(result.standardError.contains("is not a device address"))
    }
}
