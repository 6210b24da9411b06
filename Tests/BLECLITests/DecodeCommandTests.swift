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
        "The demo: a sensor and a phone on the virtual radio scan, connect, do GATT, receive notifications, disconnect")
    func demo() throws {
        let result = try CLI.run("demo")
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
