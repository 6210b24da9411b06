import BLE
import BLEWire
import Foundation
import Testing

extension BumbleInteropTests {
    @Test(
        "Bumble's hosts, both roles, on our `ble controller`: connect, SC pairing, encryption, GATT, disconnect"
    )
    func bumbleHostsOnOurController() async throws {
        let (controller, ports) = try await Interop.ourControllers(2)
        defer { controller.stop() }
        let bumblePeripheral = try Interop.bumble(
            "bumble peripheral", "bumble_peripheral.py",
            ["tcp-client:127.0.0.1:\(ports[0])", Self.bumblePeripheralAddress])
        defer { bumblePeripheral.stop() }
        try await bumblePeripheral.waitForEvent("ready")
        let bumbleCentral = try Interop.bumble(
            "bumble central", "bumble_central.py",
            ["tcp-client:127.0.0.1:\(ports[1])", Self.bumbleCentralAddress, Self.bumblePeripheralAddress, "--pair"])
        defer { bumbleCentral.stop() }

        let status = try await bumbleCentral.waitForExit()
        #expect(status == 0, "\(bumbleCentral.transcript)")
        // The central's view: every step done over our controllers.
        #expect(bumbleCentral.events("connected").first?["peer"] as? String == Self.bumblePeripheralAddress)
        #expect(bumbleCentral.events("encryption").first?["encrypted"] as? Bool == true)
        #expect(bumbleCentral.events("mtu").first?["mtu"] as? Int == 247)
        #expect(bumbleCentral.events("read").first?["matches"] as? Bool == true)
        #expect(
            bumbleCentral.events("notification").compactMap { $0["value"] as? String }
                == (0..<TestService.updateCount).map { TestService.notificationValue($0).hex })
        #expect(
            bumbleCentral.events("indication").compactMap { $0["value"] as? String }
                == (0..<TestService.updateCount).map { TestService.indicationValue($0).hex })
        // Our controller reports Connection Terminated By Local Host (0x16) to the side that
        // disconnected and the reason sent (0x13) to the peer (Core 5.4 Vol 4 Part E §7.1.6).
        #expect(bumbleCentral.events("disconnected").first?["reason"] as? Int == 0x16)

        // The peripheral's view: encrypted link, and the writes as sent.
        let disconnection = try await bumblePeripheral.waitForEvent("disconnection")
        #expect(disconnection["reason"] as? Int == 0x13)
        #expect(bumblePeripheral.events("encryption").first?["encrypted"] as? Bool == true)
        let writes = bumblePeripheral.events("write").compactMap { $0["value"] as? String }
        #expect(writes == [[0x57, 0x01, 0x02].hex, (0..<400).map { UInt8($0 % 251) }.hex])
        #expect(bumblePeripheral.events("prepare-write").count >= 2)
        #expect(
            bumblePeripheral.events("write-without-response").first?["value"] as? String == [0x43, 0x4D, 0x44].hex)
    }
}
