import BLEWire
import Foundation
import Testing

/// A fresh file path in the temporary folder.
func temporaryCapturePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("swift-ble-\(UUID().uuidString).btsnoop").path
}

/// An executable on PATH, if there is one.
func executableOnPath(_ name: String) -> String? {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}


@Suite("Captures: ble demo --capture and ble decode --btsnoop")
struct CaptureCommandTests {
    static let reset = H4Packet(type: .command, payload: [0x03, 0x0C, 0x00])
    static let resetComplete = H4Packet(type: .event, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])

    static func writeCapture(_ bytes: [UInt8]) throws -> String {
        let path = temporaryCapturePath()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static var twoRecords: [UInt8] {
        var writer = BTSnoopWriter()
        writer.append(reset, direction: .sent, timestamp: BTSnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000))
        writer.append(
            resetComplete, direction: .received, timestamp: BTSnoopTimestamp(unixMicroseconds: 1_700_000_000_000_250))
        return writer.bytes
    }

    @Test("decode --btsnoop prints each record: number, UTC time, direction, decoded packet")
    func decodeCapture() throws {
        let path = try Self.writeCapture(Self.twoRecords)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CLI.run("decode", "--btsnoop", path)
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("1 2023-11-14 22:13:20.000000 host→controller command.") == true)
        #expect(lines.first?.contains("Reset") == true)
        #expect(lines.last?.hasPrefix("2 2023-11-14 22:13:20.000250 controller→host event.commandComplete") == true)
    }

    @Test("decode --btsnoop --json prints one object per record with the packet inside")
    func decodeCaptureJSON() throws {
        let path = try Self.writeCapture(Self.twoRecords)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CLI.run("decode", "--btsnoop", path, "--json")
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(object["index"] as? Int == 2)
        #expect(object["direction"] as? String == "controller→host")
        #expect(object["timestampMicroseconds"] as? Int == 1_700_000_000_000_250)
        let packet = try #require(object["packet"] as? [String: Any])
        #expect(packet["type"] as? String == "event.commandComplete")
    }

    @Test("A truncated capture prints the records before the damage, then the error; exit status 1")
    func truncatedCapture() throws {
        let path = try Self.writeCapture(Array(Self.twoRecords.dropLast(2)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CLI.run("decode", "--btsnoop", path)
        #expect(result.status == 1)
        #expect(result.standardOutput.split(separator: "\n").count == 1)
        #expect(result.standardError.contains("record 2 at offset 44 is damaged"))
        #expect(result.standardError.contains("Packet Data"))
        #expect(result.standardError.contains("truncated"))
    }

    @Test("Not a btsnoop file, or no file at all: a clear error, exit status 1")
    func badFiles() throws {
        let path = try Self.writeCapture(Array("not a capture at all".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let notCapture = try CLI.run("decode", "--btsnoop", path)
        #expect(notCapture.status == 1)
        #expect(notCapture.standardError.contains("is not a btsnoop capture"))
        #expect(notCapture.standardError.contains("Identification Pattern"))
        let missing = try CLI.run("decode", "--btsnoop", "/nonexistent/capture.btsnoop")
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot read /nonexistent/capture.btsnoop"))
    }

    @Test("ble demo --heart-rate --capture writes the phone's HCI traffic; decode --btsnoop reads it back whole")
    func demoCapture() throws {
        let path = temporaryCapturePath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let demo = try CLI.run("demo", "--heart-rate", "--capture", path)
        #expect(demo.status == 0, "\(demo.standardError)")
        #expect(demo.standardOutput.contains("Captured the phone's HCI traffic"))
        let decoded = try CLI.run("decode", "--btsnoop", path)
        #expect(decoded.status == 0, "\(decoded.standardError)")
        let text = decoded.standardOutput
        for expected in [
            "command.reset", "LE Create Connection", "event.le", "att.exchangeMTURequest", "att.readByGroupTypeRequest",
            "att.readResponse", "att.writeRequest", "att.handleValueNotification", "disconnect",
        ] {
            #expect(text.lowercased().contains(expected.lowercased()), "missing \(expected)")
        }
    }

    @Test("ble demo --capture records the headset story: every OTA packet as a Write Command, events as notifications")
    func headsetDemoCapture() throws {
        let path = temporaryCapturePath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let demo = try CLI.run("demo", "--capture", path)
        #expect(demo.status == 0, "\(demo.standardError)")
        #expect(demo.standardOutput.contains("Captured the phone's HCI traffic"))
        let decoded = try CLI.run("decode", "--btsnoop", path)
        #expect(decoded.status == 0, "\(decoded.standardError)")
        let records = decoded.standardOutput.split(separator: "\n")
        // 1140 packets, plus the resends and the packets lost with the link.
        #expect(records.filter { $0.contains("att.writeCommand") }.count > 1140)
        #expect(records.contains { $0.contains("att.handleValueNotification") })
    }

    @Test(
        "tshark dissects a capture of a virtual session with no malformed packet (HCI command, event, ATT)",
        .enabled(if: executableOnPath("tshark") != nil, "tshark is not installed"))
    func tsharkDissectsCapture() throws {
        let tshark = try #require(executableOnPath("tshark"))
        let path = temporaryCapturePath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let demo = try CLI.run("demo", "--heart-rate", "--capture", path)
        #expect(demo.status == 0, "\(demo.standardError)")

        let fields = try runProcess(tshark, ["-r", path, "-T", "fields", "-e", "frame.protocols"])
        #expect(fields.status == 0, "\(fields.standardError)")
        let frames = fields.standardOutput.split(separator: "\n")
        let protocols = Set(frames.flatMap { $0.split(separator: ":").map(String.init) })
        for expected in ["hci_h4", "bthci_cmd", "bthci_evt", "bthci_acl", "btl2cap", "btatt"] {
            #expect(protocols.contains(expected), "tshark saw no \(expected): \(protocols.sorted())")
        }
        let decoded = try CLI.run("decode", "--btsnoop", path)
        #expect(frames.count == decoded.standardOutput.split(separator: "\n").count)

        let malformed = try runProcess(tshark, ["-r", path, "-Y", "_ws.malformed || _ws.expert.severity >= error"])
        #expect(malformed.status == 0, "\(malformed.standardError)")
        #expect(malformed.standardOutput.isEmpty, "malformed packets:\n\(malformed.standardOutput)")
    }
}
