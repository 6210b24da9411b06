import Foundation
import Testing

@Suite("ble scan")
struct ScanCommandTests {
    @Test("General discovery (Core 5.4 Vol 3 Part C §9.2.6) finds every device of the virtual neighbourhood")
    func findsNeighbourhood() throws {
        let result = try CLI.run("scan")
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        let heartRate = try #require(lines.first { $0.hasPrefix("00:00:5E:00:53:10 (public)") })
        #expect(heartRate.contains("name \"HRS-1\""))
        #expect(heartRate.contains("services 180D,180F"))
        #expect(heartRate.contains("manufacturer 0xFFFF 4852"))
        #expect(heartRate.contains("service data 180F 57"))
        let logger = try #require(lines.first { $0.hasPrefix("00:00:5E:00:53:20 (public)") })
        #expect(logger.contains("name \"LOG-2\""))
        #expect(logger.contains("services 9C5A0001-7A3E-4B8F-9D6C-2F1E0B5A4C3D"))
        #expect(lines.contains { $0.hasPrefix("00:00:5E:00:53:30 (public)") && $0.contains("manufacturer 0xFFFF 03") })
        let headset = try #require(lines.first { $0.hasPrefix("00:00:5E:00:53:40 (public)") })
        // The name comes in the scan response; the MAC, least significant octet first.
        #expect(headset.contains("name \"HEADSET\""))
        #expect(headset.contains("services 7C1E0001-4B2A-4F5E-9D3B-6A8C2E5F1D00"))
        #expect(headset.contains("manufacturer 0xFFFF 4053005e0000"))
    }

    @Test("--json prints one object per discovery with address, RSSI, name, services, manufacturer and service data")
    func json() throws {
        let result = try CLI.run("scan", "--json", "--duration", "2")
        #expect(result.status == 0)
        let objects = try result.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 4)
        let heartRate = try #require(objects.first { $0["name"] as? String == "HRS-1" })
        #expect(heartRate["address"] as? String == "00:00:5E:00:53:10")
        #expect(heartRate["addressType"] as? String == "public")
        #expect(heartRate["services"] as? [String] == ["180D", "180F"])
        #expect(heartRate["rssi"] is Int)
        let manufacturer = try #require(heartRate["manufacturerData"] as? [String: Any])
        #expect(manufacturer["company"] as? Int == 0xFFFF)
        #expect(manufacturer["data"] as? String == "4852")
        #expect(heartRate["serviceData"] as? [String: String] == ["180F": "57"])
    }

    @Test("--service reports only devices advertising that service")
    func serviceFilter() throws {
        let result = try CLI.run("scan", "--service", "9C5A0001-7A3E-4B8F-9D6C-2F1E0B5A4C3D")
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("00:00:5E:00:53:20") == true)
    }

    @Test("--allow-duplicates reports a device's advertisements again and again")
    func duplicates() throws {
        let result = try CLI.run("scan", "--allow-duplicates", "--duration", "2", "--service", "180D")
        #expect(result.status == 0)
        // Advertising every 100 ms for 2 s of virtual time: many reports of the one device.
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count > 3)
        #expect(lines.allSatisfy { $0.hasPrefix("00:00:5E:00:53:10") })
    }

    @Test("A bad --transport moniker is a usage error naming the accepted forms")
    func badTransport() throws {
        let result = try CLI.run("scan", "--transport", "bluetooth:0")
        #expect(result.status == 64)
        #expect(result.standardError.contains("unknown transport scheme 'bluetooth'"))
        #expect(result.standardError.contains("tcp-client:HOST:PORT"))
    }

    @Test("A transport that cannot be opened ends with its error on one line")
    func unreachableTransport() throws {
        // Port 1 on loopback: nothing listens there.
        let result = try CLI.run("scan", "--transport", "tcp-client:127.0.0.1:1")
        #expect(result.status == 1)
        #expect(result.standardError.contains("cannot connect to tcp-client:127.0.0.1:1"))
    }

    @Test("A bad UUID or duration is a usage error")
    func badArguments() throws {
        let uuid = try CLI.run("scan", "--service", "18G0")
        #expect(uuid.status == 64)
        #expect(uuid.standardError.contains("'18G0' is not a service UUID"))
        let duration = try CLI.run("scan", "--duration", "0")
        #expect(duration.status == 64)
    }
}

@Suite("--log-level and -v")
struct LoggingOptionTests {
    @Test("--log-level trace prints the HCI traffic of the command's host to standard error, rendered")
    func traceShowsHCITraffic() throws {
        let result = try CLI.run("scan", "--duration", "1", "--log-level", "trace")
        #expect(result.status == 0)
        // Standard output is the same as without logging.
        #expect(result.standardOutput.split(separator: "\n").count == 4)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.contains { $0.contains("ble.host") && $0.contains("tx command.Reset") })
        #expect(lines.contains { $0.contains("tx command.") && $0.contains("Scan Enable") })
        #expect(lines.contains { $0.contains("rx event.commandComplete") })
    }

    @Test("Without --log-level the stack is silent; -v logs at debug, without the packet trace")
    func silentByDefaultAndVerbose() throws {
        let silent = try CLI.run("scan", "--duration", "1")
        #expect(silent.status == 0)
        #expect(silent.standardError.isEmpty)
        let verbose = try CLI.run("scan", "--duration", "1", "-v")
        #expect(verbose.status == 0)
        #expect(verbose.standardError.contains("controller ready"))
        #expect(!verbose.standardError.contains("tx command."))
    }

    @Test("Every command takes --log-level")
    func everyCommand() throws {
        for command in ["demo", "scan", "gatt-dump", "read", "write", "subscribe", "serve", "headset", "ota",
            "controller", "decode", "bench airtime", "bench gatt", "bench idle"]
        {
            let result = try CLI.run(command.split(separator: " ").map(String.init) + ["--help"])
            #expect(result.standardOutput.contains("--log-level"), "\(command)")
        }
    }
}
