import Foundation
import Testing

extension BumbleInteropTests {
    @Test(
        "ble scan, gatt-dump, read (long), write (long, without response), subscribe vs a Bumble peripheral"
    )
    func cliAgainstBumblePeripheral() async throws {
        let (controllers, ports) = try await Interop.bumbleControllers(2)
        defer { controllers.stop() }
        try #require(ports.count == 2)
        let address = Self.bumblePeripheralAddress
        let bumble = try Interop.bumble(
            "bumble peripheral", "bumble_peripheral.py", ["tcp-client:127.0.0.1:\(ports[0])", address])
        defer { bumble.stop() }
        let ready = try await bumble.waitForEvent("ready")
        let cli = try CLIRuns()
        defer { cli.removeFiles() }
        let port = ports[1]

        // Scan: the advertisement with its name and manufacturer data (CSS Part A §1.2, §1.4).
        let scan = try await cli.run(["scan", "--json", "--duration", "0.5"], port: port)
        #expect(scan.status == 0, "\(scan.transcript)")
        let seen = try #require(
            scan.lines.compactMap(JSONLine.parse).first { $0["address"] as? String == address }, "\(scan.transcript)")
        #expect(seen["addressType"] as? String == "random")
        #expect(seen["name"] as? String == TestService.localName)
        #expect(seen["connectable"] as? Bool == true)
        let manufacturer = try #require(seen["manufacturerData"] as? [String: Any])
        #expect(manufacturer["company"] as? Int == Int(TestService.manufacturerCompany))
        #expect(manufacturer["data"] as? String == TestService.manufacturerData.hex)

        // gatt-dump: every service, characteristic and descriptor with the handles Bumble's
        // server gave them (it prints its database when ready).
        let dump = try await cli.run(["gatt-dump", address, "--json"], port: port)
        #expect(dump.status == 0, "\(dump.transcript)")
        let dumped = try #require(dump.json?["services"] as? [[String: Any]], "\(dump.transcript)")
        let defined = try #require(ready["services"] as? [[String: Any]])
        #expect(DatabaseLines.lines(dumped) == DatabaseLines.lines(defined))
        #expect(dumped.allSatisfy { $0["primary"] as? Bool == true && ($0["includes"] as? [Any])?.isEmpty == true })
        let service = try #require(dumped.first { $0["uuid"] as? String == TestService.service.uuidString })
        let characteristics = try #require(service["characteristics"] as? [[String: Any]])
        #expect(
            characteristics.compactMap { $0["uuid"] as? String }
                == [
                    TestService.longRead, TestService.write, TestService.writeWithoutResponse, TestService.notify,
                    TestService.indicate,
                ].map(\.uuidString))

        // Read (the Device Name, one Read Request) and a long read (Read Blob requests).
        let name = try await cli.run(["read", address, "2A00"], port: port)
        #expect(name.lines == [Array(TestService.localName.utf8).hex], "\(name.transcript)")
        let long = try await cli.run(["read", address, TestService.longRead.uuidString], port: port)
        #expect(long.lines == [TestService.longValue.hex], "\(long.transcript)")

        // Writes, as Bumble's server recorded them: a Write Request, a long write (Prepare Write
        // Requests and an Execute Write Request, Core 5.4 Vol 3 Part G §4.9.4), a Write Command.
        let short: [UInt8] = [0x57, 0x01, 0x02]
        let shortWrite = try await cli.run(["write", address, TestService.write.uuidString, short.hex], port: port)
        #expect(shortWrite.status == 0, "\(shortWrite.transcript)")
        try await bumble.waitForEvent("write") { $0["value"] as? String == short.hex }
        let longValue = (0..<400).map { UInt8(($0 * 3) % 256) }
        let longWrite = try await cli.run(["write", address, TestService.write.uuidString, longValue.hex], port: port)
        #expect(longWrite.status == 0, "\(longWrite.transcript)")
        try await bumble.waitForEvent("write") { $0["value"] as? String == longValue.hex }
        let parts = bumble.events("prepare-write")
        #expect(parts.count >= 2)
        #expect(parts.compactMap { $0["length"] as? Int }.reduce(0, +) == longValue.count)
        let command: [UInt8] = [0x43, 0x4D, 0x44]
        let commandWrite = try await cli.run(
            ["write", address, TestService.writeWithoutResponse.uuidString, command.hex, "--without-response"],
            port: port)
        #expect(commandWrite.lines == ["wrote 3 octets to \(TestService.writeWithoutResponse) (without response)"])
        try await bumble.waitForEvent("write-without-response") { $0["value"] as? String == command.hex }

        // Notifications, then indications: Bumble sends three of each once subscribed.
        let count = String(TestService.updateCount)
        let notified = try await cli.run(
            ["subscribe", address, TestService.notify.uuidString, "--count", count], port: port)
        #expect(notified.lines == (0..<TestService.updateCount).map { TestService.notificationValue($0).hex })
        #expect(notified.errors.contains { $0.contains("(notifications)") }, "\(notified.transcript)")
        let indicated = try await cli.run(
            ["subscribe", address, TestService.indicate.uuidString, "--count", count], port: port)
        #expect(indicated.lines == (0..<TestService.updateCount).map { TestService.indicationValue($0).hex })
        #expect(indicated.errors.contains { $0.contains("(indications)") }, "\(indicated.transcript)")
        // Our client confirmed each indication (Bumble reports it after the confirmation).
        try await bumble.waitForEvent("indicated") {
            $0["value"] as? String == TestService.indicationValue(TestService.updateCount - 1).hex
        }
        // Every command disconnected cleanly (Remote User Terminated Connection, 0x13).
        let disconnections = bumble.events("disconnection")
        #expect(disconnections.count == 8)
        #expect(disconnections.allSatisfy { $0["reason"] as? Int == 0x13 })

        try await cli.checkCaptures()
    }
}
