import BLE
import BLEWire
import Foundation
import Testing

/// The interop suite: swift-ble against Google's Bumble 0.0.236, an independent host stack with
/// its own virtual controller (scripts/interop-setup installs it). Every process runs on
/// loopback with OS-chosen ports and is stopped by PID when its test ends; controllers are
/// fresh for each test (Bumble's HCI Reset keeps stale state). One test at a time.
@Suite(
    "Interop with Bumble", .serialized,
    .enabled(if: Interop.isEnabled, "set BLE_INTEROP_PYTHON (scripts/interop-setup)"))
struct BumbleInteropTests {
    static let bumblePeripheralAddress = "C4:00:00:00:00:01"
    static let bumbleCentralAddress = "C4:00:00:00:00:02"

    @Test(
        "Our central vs a Bumble peripheral: scan, connect, MTU, discovery, (long) read/write, notify, indicate"
    )
    func ourCentralAgainstBumblePeripheral() async throws {
        let (controllers, ports) = try await Interop.bumbleControllers(2)
        defer { controllers.stop() }
        try #require(ports.count == 2)
        let bumble = try Interop.bumble(
            "bumble peripheral", "bumble_peripheral.py",
            ["tcp-client:127.0.0.1:\(ports[0])", Self.bumblePeripheralAddress])
        defer { bumble.stop() }
        try await bumble.waitForEvent("ready")

        let central = await CentralManager(
            radio: .transport(try await Interop.transport(port: ports[1])),
            configuration: Interop.configuration(address: 0xC4_00_00_00_00_0A))
        try await central.powerOn()

        // Scan: Bumble's controller answers the legacy scan with extended reports.
        let discovery = try await withLimit("scan") {
            for await discovery in try await central.scanForPeripherals() {
                if discovery.advertisementData.manufacturerData?.companyIdentifier == TestService.manufacturerCompany {
                    return discovery
                }
            }
            throw InteropFailure.timedOut("scan ended")
        }
        await central.stopScan()
        #expect(discovery.advertisementData.localName == TestService.localName)
        #expect(discovery.advertisementData.manufacturerData?.data == TestService.manufacturerData)
        #expect(discovery.advertisementData.isConnectable)
        let peripheral = discovery.peripheral
        #expect(peripheral.identifier == LEAddress(BluetoothAddress(0xC4_00_00_00_00_01), type: .random).peerIdentifier)

        var centralEvents = central.events.makeAsyncIterator()
        try await withLimit("connect") { try await central.connect(peripheral) }
        #expect(await peripheral.state == .connected)
        // ATT_MTU: min(our 247, Bumble's) — Bumble's server takes 247 too (Vol 3 Part F §3.4.2.2).
        #expect(await peripheral.mtu == 247)
        try await bumble.waitForEvent("mtu") { $0["mtu"] as? Int == 247 }

        // Full discovery: every service, characteristic and descriptor.
        let services = try await peripheral.discoverServices()
        #expect(services.map(\.uuid).contains(TestService.service))
        #expect(services.map(\.uuid).contains(0x1800))
        var characteristics: [BluetoothUUID: Characteristic] = [:]
        for service in services {
            for characteristic in try await peripheral.discoverCharacteristics(for: service) {
                characteristics[characteristic.uuid] = characteristic
                _ = try await peripheral.discoverDescriptors(for: characteristic)
            }
        }
        let longRead = try #require(characteristics[TestService.longRead])
        let write = try #require(characteristics[TestService.write])
        let writeWithoutResponse = try #require(characteristics[TestService.writeWithoutResponse])
        let notify = try #require(characteristics[TestService.notify])
        let indicate = try #require(characteristics[TestService.indicate])
        #expect(notify.properties.contains(.notify))
        #expect(indicate.properties.contains(.indicate))

        // Read (the device name, short) and long read (Read Blob past ATT_MTU − 1 octets).
        if let name = characteristics[0x2A00] {
            #expect(try await peripheral.readValue(for: name) == Array(TestService.localName.utf8))
        }
        #expect(try await peripheral.readValue(for: longRead) == TestService.longValue)

        // Write, then a long write (Prepare Write ×2 + Execute Write), as Bumble recorded them.
        let short: [UInt8] = [0x57, 0x01, 0x02]
        try await peripheral.writeValue(short, for: write, type: .withResponse)
        try await bumble.waitForEvent("write") { $0["value"] as? String == short.hex }
        let long = (0..<400).map { UInt8($0 % 251) }
        try await peripheral.writeValue(long, for: write, type: .withResponse)
        try await bumble.waitForEvent("write") { $0["value"] as? String == long.hex }
        let parts = bumble.events("prepare-write")
        #expect(parts.count >= 2)
        #expect(parts.compactMap { $0["length"] as? Int }.reduce(0, +) == long.count)
        #expect(parts.first?["offset"] as? Int == 0)

        let command: [UInt8] = [0x43, 0x4D, 0x44]
        try await peripheral.writeValue(command, for: writeWithoutResponse, type: .withoutResponse)
        try await bumble.waitForEvent("write-without-response") { $0["value"] as? String == command.hex }

        // Notifications, then indications, each in the order sent.
        let notifications = try await peripheral.values(for: notify)
        try await peripheral.setNotifyValue(true, for: notify)
        let notified = try await withLimit("notifications") {
            var values: [[UInt8]] = []
            for await value in notifications {
                values.append(value)
                if values.count == TestService.updateCount { break }
            }
            return values
        }
        #expect(notified == (0..<TestService.updateCount).map(TestService.notificationValue))
        let indications = try await peripheral.values(for: indicate)
        try await peripheral.setNotifyValue(true, for: indicate)
        let indicated = try await withLimit("indications") {
            var values: [[UInt8]] = []
            for await value in indications {
                values.append(value)
                if values.count == TestService.updateCount { break }
            }
            return values
        }
        #expect(indicated == (0..<TestService.updateCount).map(TestService.indicationValue))
        // Bumble reports an indication once our host confirmed it.
        try await bumble.waitForEvent("indicated") {
            $0["value"] as? String == TestService.indicationValue(TestService.updateCount - 1).hex
        }

        // Disconnect: both sides see it (Remote User Terminated Connection, 0x13).
        await central.cancelPeripheralConnection(peripheral)
        #expect(await peripheral.state == .disconnected)
        var sawDisconnection = false
        while let event = await centralEvents.next() {
            if case .disconnected(let who, _) = event, who === peripheral {
                sawDisconnection = true
                break
            }
        }
        #expect(sawDisconnection)
        let disconnection = try await bumble.waitForEvent("disconnection")
        #expect(disconnection["reason"] as? Int == 0x13)
        await central.close()
    }
}
