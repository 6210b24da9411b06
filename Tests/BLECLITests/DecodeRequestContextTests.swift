import BLEWire
import Foundation
import Testing

/// An ACL packet on handle 0x0040 carrying `att` whole on the ATT channel, as H4.
private func aclATT(_ att: String) throws -> H4Packet {
    let pdu = try #require(Hex.bytes(att.replacingOccurrences(of: " ", with: "")))
    let frame = L2CAPBasicFrame(channelID: .att, payload: pdu)
    return H4Packet(acl: ACLPacket(handle: 0x0040, packetBoundary: .firstFlushable, data: frame.encoded[...]))
}

@Suite("ble decode shows ATT responses in the light of their requests (Core 5.4 Vol 3 Part F §3.4)")
struct DecodeRequestContextTests {
    @Test(
        "--btsnoop: service UUIDs of a Read By Group Type Response, characteristic declarations, the request an error answers"
    )
    func captureInContext() throws {
        var writer = BTSnoopWriter()
        let exchange: [(String, BTSnoopDirection)] = [
            ("10 0100 ffff 0028", .sent),  // Read By Group Type Request «Primary Service»
            ("11 06 0100 0500 0d18 0600 0900 0f18", .received),
            ("08 0100 0500 0328", .sent),  // Read By Type Request «Characteristic»
            ("09 07 0200 12 0300 372a", .received),
            ("0a 0300", .sent),  // Read Request
            ("01 0a 0300 02", .received),  // Error Response: Read Not Permitted
        ]
        for (index, (att, direction)) in exchange.enumerated() {
            writer.append(
                try aclATT(att), direction: direction,
                timestamp: BTSnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000 + Int64(index)))
        }
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift-ble-\(UUID().uuidString).btsnoop").path
        try Data(writer.bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        let result = try CLI.run("decode", "--btsnoop", path)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines[1].contains("services: [{ start: 1, end: 5, uuid: 180D }, { start: 6, end: 9, uuid: 180F }]"))
        #expect(
            lines[3].contains("characteristics: [{ declaration: 2, properties: 0x12, valueHandle: 3, uuid: 2A37 }]"))
        #expect(lines[5].contains("errorResponse"))
        #expect(lines[5].contains("request: readRequest { handle: 3 }"))
        // Requests gain nothing.
        #expect(!lines[0].contains("request: "))

        let json = try CLI.run("decode", "--btsnoop", path, "--json")
        let second = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.split(separator: "\n")[1].utf8))
                as? [String: Any])
        let packet = try #require(second["packet"] as? [String: Any])
        let services = try #require(packet["services"] as? [[String: Any]])
        #expect(services.compactMap { $0["uuid"] as? String } == ["180D", "180F"])
    }

    @Test("A lone response says which of its fields need the request")
    func lonePacketNote() throws {
        let att = try CLI.run("decode", "--as", "att", "1106010005000d18")
        #expect(att.status == 0)
        #expect(att.standardOutput.contains("note: \"the values are of the group type the Read By Group Type Request"))
        let h4 = try CLI.run("decode", Hex.string(try aclATT("0b 64").encoded))
        #expect(h4.standardOutput.contains("note: \"the value belongs to the handle the read request named"))
        let request = try CLI.run("decode", "--as", "att", "0a0300")
        #expect(!request.standardOutput.contains("note"))
    }
}
