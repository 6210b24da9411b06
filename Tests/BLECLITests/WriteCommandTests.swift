import Foundation
import Testing

@Suite("ble write")
struct WriteCommandTests {
    static let logger = "00:00:5E:00:53:20"
    static func loggerUUID(_ first: String) -> String { "\(first)-7A3E-4B8F-9D6C-2F1E0B5A4C3D" }

    @Test("Write Characteristic Value (Core 5.4 Vol 3 Part G §4.9.3) is acknowledged")
    func writeRequest() throws {
        let result = try CLI.run("write", Self.logger, Self.loggerUUID("9C5A0003"), "02")
        #expect(result.status == 0)
        #expect(result.standardOutput == "wrote 1 octet to \(Self.loggerUUID("9C5A0003"))\n")
    }

    @Test("Write Without Response (§4.9.1) goes out as a Write Command")
    func writeCommand() throws {
        let result = try CLI.run("write", Self.logger, Self.loggerUUID("9C5A0004"), "01:02:03", "--without-response")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("wrote 3 octets"))
        #expect(result.standardOutput.contains("(without response)"))
    }

    @Test("The device's ATT error (Invalid Attribute Value Length, 0x0D) is reported, exit status 1")
    func attError() throws {
        let result = try CLI.run("write", Self.logger, Self.loggerUUID("9C5A0003"), "0203")
        #expect(result.status == 1)
        #expect(result.standardError.contains("ATT error Invalid Attribute Value Length (0x0D)"))
    }

    @Test("An application error code (0x80, Heart Rate Control Point Not Supported) is reported")
    func applicationError() throws {
        let result = try CLI.run("write", "00:00:5E:00:53:10", "2A39", "05")
        #expect(result.status == 1)
        #expect(result.standardError.contains("(0x80)"))
        let accepted = try CLI.run("write", "00:00:5E:00:53:10", "2A39", "01")
        #expect(accepted.status == 0)
    }

    @Test("A write type the characteristic lacks is refused naming the property")
    func missingProperty() throws {
        let withResponse = try CLI.run("write", Self.logger, Self.loggerUUID("9C5A0004"), "01")
        #expect(withResponse.status == 1)
        #expect(withResponse.standardError.contains("the characteristic lacks the write property"))
        let withoutResponse = try CLI.run(
            "write", Self.logger, Self.loggerUUID("9C5A0003"), "01", "--without-response")
        #expect(withoutResponse.status == 1)
        #expect(withoutResponse.standardError.contains("the characteristic lacks the writeWithoutResponse property"))
    }

    @Test("A value that is not hex is a usage error")
    func badHex() throws {
        let result = try CLI.run("write", Self.logger, Self.loggerUUID("9C5A0003"), "0xzz")
        #expect(result.status == 64)
        #expect(result.standardError.contains("'0xzz' is not hex"))
        let odd = try CLI.run("write", Self.logger, Self.loggerUUID("9C5A0003"), "123")
        #expect(odd.status == 64)
    }
}
