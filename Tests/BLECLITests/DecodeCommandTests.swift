import Foundation
import Testing

@Suite("ble decode")
struct DecodeCommandTests {
    @Test("An H4 Command Complete for Reset (Core 5.4 Vol 4 Part E §7.7.14, §7.3.2) shows the command and Success")
    func commandCompleteForReset() throws {
        let result = try CLI.run("decode", "040e0401030c00")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("event.commandComplete"))
        #expect(result.standardOutput.contains("opcode: Reset (0x0C03)"))
        #expect(result.standardOutput.contains("status: Success (0x00)"))
    }

    @Test("--json prints one JSON object per packet with the same facts")
    func json() throws {
        let result = try CLI.run("decode", "--json", "04 0e 04 01 03 0c 00", "040e0401030c00")
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["type"] as? String == "event.commandComplete")
        #expect(object["opcode"] as? String == "Reset (0x0C03)")
        #expect(object["numHCICommandPackets"] as? Int == 1)
        let returned = try #require(object["returnParameters"] as? [String: Any])
        #expect(returned["status"] as? String == "Success (0x00)")
    }

    @Test("ACL carrying ATT Exchange MTU Request (Vol 3 Part F §3.4.2.1) decodes down to ATT")
    func aclToATT() throws {
        let result = try CLI.run("decode", "02400007000300040002f700")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("channel: ATT (0x0004)"))
        #expect(result.standardOutput.contains("att.exchangeMTURequest { clientRxMTU: 247 }"))
    }

    @Test("--as decodes a PDU of another layer")
    func otherLayers() throws {
        let att = try CLI.run("decode", "--as", "att", "011001000a")
        #expect(att.status == 0)
        #expect(att.standardOutput.contains("errorResponse"))
        #expect(att.standardOutput.contains("Attribute Not Found (0x0A)"))
        let ad = try CLI.run("decode", "--as", "ad", "020106")
        #expect(ad.status == 0)
        #expect(ad.standardOutput.contains("leGeneralDiscoverable"))
    }

    @Test("A truncated packet prints the typed error and exits non-zero")
    func truncated() throws {
        let result = try CLI.run("decode", "040e0401030c")
        #expect(result.status != 0)
        #expect(result.standardError.contains("incomplete"))
    }

    @Test("A length field that disagrees with the octets present names the field")
    func lengthMismatch() throws {
        let result = try CLI.run("decode", "--as", "event", "0e0501030c00")
        #expect(result.status != 0)
        #expect(result.standardError.contains("Parameter_Total_Length"))
        #expect(result.standardError.contains("length mismatch"))
    }

    @Test("An unknown H4 packet type is garbage: the error names the octet and its offset")
    func garbage() throws {
        let result = try CLI.run("decode", "99")
        #expect(result.status != 0)
        #expect(result.standardError.contains("unknown packet type 0x99 at offset 0"))
    }

    @Test("Input that is not hex is refused")
    func notHex() throws {
        let result = try CLI.run("decode", "zz")
        #expect(result.status != 0)
        #expect(result.standardError.contains("not hex"))
    }
}

@Suite("ble demo")
struct DemoCommandTests {
    @Test(
        "The demo: a headset found by its MAC, events, OTA with packet errors and a link loss resumed, swap, re-bound")
    func headsetStory() throws {
        let result = try CLI.run("demo")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let output = result.standardOutput
        for line in [
            "headset: firmware 1.0.0 at 00:00:5E:00:53:A1, advertising \"HEADSET\" and its MAC 00:00:5E:00:53:40",
            "phone: found MAC 00:00:5E:00:53:40 at 00:00:5E:00:53:A1",
            "phone: connected and negotiated: LE 2M, LL 251, MTU 247, 30 ms",
            // Numeric Comparison (Core 5.4 Vol 3 Part H §2.3.5.6.2) before the update, which
            // the headset allows only on an authenticated link.
            "phone: pairing (the headset's update needs an authenticated link)",
            "phone: paired and bonded; link encrypted (authenticated, LE Secure Connections, 16-octet key)",
            "headset → phone: gesture tap", "headset → phone: volume 40 %", "headset → phone: open the camera",
            "job on heartbeat 5 (every 5): firmware check → ", "phone: firmware version? → 1.0.0; 2.0.0 is available",
            "phone: OTA of 2.0.0: 262144 bytes", "phone: OTA 25 % sent", "phone: OTA 50 % sent",
            "phone: OTA 75 % sent", "phone: OTA 100 % sent", "headset: walks out of range mid-transfer",
            "phone: link lost (Connection Timeout (0x08)); reconnecting by MAC",
            "SHA-256 verified, slots swapped to 2.0.0", "headset: firmware 2.0.0, advertising from 00:00:5E:00:53:B2",
            "phone: found MAC 00:00:5E:00:53:40 again at a new address",
            "re-bound 00:00:5E:00:53:A1 → 00:00:5E:00:53:B2",
            "phone: connected to 00:00:5E:00:53:B2", "phone: firmware version? → 2.0.0",
            "  image      262144 bytes (2.0.0) in 1140 packets of 230",
        ] {
            #expect(output.contains(line), "missing: \(line)")
        }
        let lines = output.split(separator: "\n").map(String.init)
        // Both sides showed the same six digits.
        let shown = lines.filter { $0.contains("; the user checks the other screen and confirms") }
            .compactMap { $0.split(separator: " shows ").last?.prefix(6) }
        #expect(shown.count == 2 && shown[0] == shown[1], "\(shown)")
        // The headset reported resend requests for faulted packets, and the summary counts resends.
        // Selective repeat: each faulted packet is named alone.
        #expect(lines.contains { $0.contains("arrived damaged or not at all → resend packet") })
        let packets = try #require(lines.first { $0.hasPrefix("  packets ") })
        let resent = try #require(Self.number(before: " resent", in: packets))
        #expect(resent > 0, "\(packets)")
        // Run 2 resumed where the headset said, which is where run 1 got to (past 40 %), not 0.
        let resumedLine = try #require(lines.first { $0.contains("OTA run 2 resumes from there") })
        let heldBytes = try #require(Self.number(before: " bytes, OTA run 2", in: resumedLine))
        let linkLoss = try #require(lines.first { $0.hasPrefix("  link loss  1, resumed from packet ") })
        let resumedPacket = try #require(Self.number(before: " as the headset reported", in: linkLoss))
        #expect(resumedPacket * 230 == heldBytes)
        #expect(resumedPacket > 1140 * 4 / 10 - 100 && resumedPacket < 1140)
        #expect(output.contains("(resumed from packet \(resumedPacket))"))
        // The summary's goodput: firmware kbit/s against rule B, a real share of it.
        let goodput = try #require(lines.first { $0.hasPrefix("  goodput ") })
        let share = try #require(Self.number(before: " % of the rule-B prediction", in: goodput))
        #expect(
            lines.contains {
                $0.hasPrefix("  rule B ")
                    && $0.contains("Write Commands on LE 2M, LL 251, MTU 247, 30 ms, 8 writes an event")
            })
        #expect(share >= 50 && share <= 100, "\(goodput)")
        #expect(lines.contains { $0.hasPrefix("  transfer ") && $0.contains("s virtual, of which") })
        #expect(lines.contains { $0.hasPrefix("  time ") && $0.contains("s of wall time") })
    }

    /// The integer that ends right before `suffix` in `line` (the last occurrence).
    static func number(before suffix: String, in line: String) -> Int? {
        guard let range = line.range(of: suffix, options: .backwards) else { return nil }
        let digits = line[..<range.lowerBound].reversed().prefix { $0.isNumber }
        return Int(String(digits.reversed()))
    }

    @Test("The heart-rate story: a sensor and a phone scan, connect, do GATT, receive notifications, disconnect")
    func heartRate() throws {
        let result = try CLI.run("demo", "--heart-rate")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let output = result.standardOutput
        for line in [
            "phone: found \"HRS-1\"", "phone: connected, ATT MTU 247",
            "discovered Generic Access, Generic Attribute, Heart Rate, Battery", "body sensor location: chest",
            "battery level 87 %", "subscribed to Heart Rate Measurement",
            "heart rate 72 bpm", "heart rate 73 bpm", "control point write acknowledged",
            "phone sees Connection Terminated By Local Host (0x16)",
            "sensor sees Remote User Terminated Connection (0x13)",
        ] {
            #expect(output.contains(line), "missing: \(line)")
        }
    }

    @Test("The wire tour: packets survive the H4 stream parser and L2CAP reassembly unchanged")
    func wireTour() throws {
        let result = try CLI.run("demo", "--wire-tour")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("identical to what was sent: yes"))
        #expect(result.standardOutput.contains("att.handleValueNotification"))
        #expect(result.standardOutput.contains("over the legacy limit of 31"))
    }
}
