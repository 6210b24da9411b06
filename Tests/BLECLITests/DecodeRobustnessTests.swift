import BLEWire
import Foundation
import Testing

/// Writes `packets` (H4 bytes, each received from the controller) as a btsnoop file.
private func btsnoopFile(_ packets: [[UInt8]]) throws -> String {
    var writer = BTSnoopWriter()
    for (index, bytes) in packets.enumerated() {
        writer.append(
            try H4Packet(decoding: bytes[...]), direction: .received,
            timestamp: BTSnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000 + Int64(index)))
    }
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("swift-ble-\(UUID().uuidString).btsnoop").path
    try Data(writer.bytes).write(to: URL(fileURLWithPath: path))
    return path
}

/// Whether `text` holds a control a terminal would act on (other than the line breaks).
private func hasRawControl(_ text: String) -> Bool {
    text.unicodeScalars.contains { TerminalText.isUnsafe($0) && $0 != "\n" }
}

@Suite("ble decode on hostile and malformed input")
struct DecodeRobustnessTests {
    @Test("LE Scan Timeout (Core 5.4 Vol 4 Part E §7.7.65.17) decodes as H4, as an event and from a btsnoop file")
    func scanTimeout() throws {
        let h4 = try CLI.run("decode", "043e0111")
        #expect(h4.status == 0)
        #expect(h4.standardOutput == "event.le.scanTimeout\n")
        let event = try CLI.run("decode", "--as", "event", "3e0111")
        #expect(event.status == 0)
        #expect(event.standardOutput == "event.le.scanTimeout\n")
        let json = try CLI.run("decode", "--json", "043e0111")
        #expect(json.standardOutput == #"{"type":"event.le.scanTimeout"}"# + "\n")
        let path = try btsnoopFile([[0x04, 0x3E, 0x01, 0x11]])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try CLI.run("decode", "--btsnoop", path)
        #expect(file.status == 0)
        #expect(file.standardOutput.hasSuffix("controller→host event.le.scanTimeout\n"))
    }

    @Test("§7.7.14: a successful Command Complete missing return parameters is an error naming the command and field")
    func truncatedReturnParameters() throws {
        let address = try CLI.run("decode", "040e0401091000")
        #expect(address.status != 0)
        #expect(address.standardError.contains("Read BD_ADDR"))
        #expect(address.standardError.contains("BD_ADDR at offset 1: truncated"))
        let scan = try CLI.run("decode", "040e03010c20")
        #expect(scan.status != 0)
        #expect(scan.standardError.contains("LE Set Scan Enable"))
        #expect(scan.standardError.contains("Status at offset 0: truncated"))
        let event = try CLI.run("decode", "--as", "event", "0e0401091000")
        #expect(event.status != 0)
        // A failed command may return its status alone.
        let failed = try CLI.run("decode", "040e0401091001")
        #expect(failed.status == 0)
        #expect(failed.standardOutput.contains("status: Unknown HCI Command (0x01)"))
        // In a capture the record is shown with its error, and the run fails.
        let path = try btsnoopFile([[0x04, 0x0E, 0x04, 0x01, 0x09, 0x10, 0x00], [0x04, 0x3E, 0x01, 0x11]])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try CLI.run("decode", "--btsnoop", path)
        #expect(file.status != 0)
        #expect(file.standardOutput.contains("error: \"Command Complete of Read BD_ADDR (0x1009)"))
        #expect(file.standardOutput.contains("event.le.scanTimeout"))
    }

    @Test("A name with a newline and an escape sequence is printed escaped; --json keeps its exact characters")
    func hostileName() throws {
        // Complete Local Name "A\nB\u{1B}[" (CSS Part A §1.2).
        let text = try CLI.run("decode", "--as", "ad", "0609410a421b5b")
        #expect(text.status == 0)
        #expect(!hasRawControl(text.standardOutput))
        #expect(text.standardOutput.split(separator: "\n").count == 1)
        #expect(text.standardOutput.contains(#"name: "A\nB\u{1B}[""#))
        let json = try CLI.run("decode", "--json", "--as", "ad", "0609410a421b5b")
        #expect(!hasRawControl(json.standardOutput))
        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(array.first?["name"] as? String == "A\nB\u{1B}[")
    }

    @Test("Every unsafe character in a name (C0, DEL, C1, bidirectional controls) is escaped in text and kept in JSON")
    func everyUnsafeCharacter() throws {
        let unsafe: [Unicode.Scalar] =
            (0x00...0x1F).compactMap(Unicode.Scalar.init)
            + (0x7F...0x9F).compactMap(Unicode.Scalar.init)
            + [
                0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068,
                0x2069,
            ]
            .compactMap(Unicode.Scalar.init)
        // Several AD structures of at most 29 octets of name each, in one --as ad input.
        for chunk in stride(from: 0, to: unsafe.count, by: 8) {
            var name = "x"
            for scalar in unsafe[chunk..<min(chunk + 8, unsafe.count)] { name.unicodeScalars.append(scalar) }
            let octets = Array(name.utf8)
            let hex = Hex.string([UInt8(octets.count + 1), 0x09] + octets)
            let text = try CLI.run("decode", "--as", "ad", hex)
            #expect(text.status == 0)
            #expect(!hasRawControl(text.standardOutput), "\(text.standardOutput.debugDescription)")
            #expect(text.standardOutput.split(separator: "\n").count == 1)
            let json = try CLI.run("decode", "--json", "--as", "ad", hex)
            #expect(!hasRawControl(json.standardOutput), "\(json.standardOutput.debugDescription)")
            let array = try #require(
                try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
            #expect(array.first?["name"] as? String == name)
        }
    }
}
