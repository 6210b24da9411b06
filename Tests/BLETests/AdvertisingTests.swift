import BLEController
import BLEHost
import BLEWire
import Foundation
import Testing

@testable import BLE

@Suite("Advertising and scanning (Core 5.4 Vol 3 Part C §9.2, §11)")
struct AdvertisingTests {
    @Test("A discovery carries Core Bluetooth's advertisement keys, the raw AD and the RSSI")
    func advertisementKeys() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            #expect(await devices.peripheralManager.isAdvertising)
            let discovery = try await devices.discover()
            let data = discovery.advertisementData
            #expect(data.localName == "sensor")
            #expect(data.serviceUUIDs == [Fixture.serviceUUID])
            #expect(data.manufacturerData == ManufacturerData(companyIdentifier: 0x05F1, data: [0xAB, 0xCD]))
            #expect(data.serviceData == [0x180F: [87]])
            #expect(data.txPowerLevel == -4)
            #expect(data.isConnectable)
            #expect(data.advertisingData.flags == .leOnlyGeneralDiscoverable)
            #expect(data.advertisingData.count == 6)
            // Active scanning fetched the (empty) scan response.
            #expect(data.scanResponseData?.count == 0)
            #expect((-100..<0).contains(discovery.rssi))
            #expect(await discovery.peripheral.name == "sensor")
            #expect(await discovery.peripheral.state == .disconnected)
        }
    }

    @Test("The identifier is derived from the peer's address: the same for every discovery and every manager")
    func stableIdentifier() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let first = try await devices.discover().peripheral
            let second = try await devices.discover().peripheral
            #expect(first === second)
            let retrieved = await devices.central.retrievePeripherals(withIdentifiers: [first.identifier])
            #expect(retrieved == [first])
            let address = try #require(await devices.peripheralManager.stack.host.controllerInfo.address)
            #expect(first.identifier == LEAddress(address, type: .public).peerIdentifier)
            #expect(first.identifier.uuidString.dropFirst(14).first == "5")  // RFC 9562 version 5
        }
    }

    @Test("Legacy advertising data over 31 octets is refused with the builder's error naming the overflow")
    func advertisingDataTooLong() async throws {
        try await TwoDevices.run { devices in
            let long = AdvertisementData(
                localName: "a rather long local name", serviceUUIDs: [Fixture.serviceUUID])
            let error = await #expect(throws: BLEError.self) {
                // Legacy PDUs asked for: by default, data this long goes in extended ones.
                try await devices.peripheralManager.startAdvertising(long, options: AdvertisingOptions(format: .legacy))
            }
            guard case .advertisingDataTooLong(.tooLong(let limit, let total, let over, let structures))? = error else {
                Issue.record("unexpected error \(String(describing: error))")
                return
            }
            #expect(limit == 31)
            #expect(total == 3 + 4 + 26)
            #expect(over == 2)
            #expect(structures.first?.type == .completeLocalName)
            #expect(structures.first?.octets == 26)
            #expect(await devices.peripheralManager.isAdvertising == false)
        }
    }

    @Test("Without allowDuplicates a peripheral is reported once per scan; with it, on every advertisement")
    func duplicates() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let central = devices.central
            let once = try await central.scanForPeripherals()
            let filtered = try await devices.collect(once, for: .seconds(2)) { await central.stopScan() }
            #expect(filtered.count == 1)
            let every = try await central.scanForPeripherals(options: ScanOptions(allowDuplicates: true))
            let all = try await devices.collect(every, for: .seconds(2)) { await central.stopScan() }
            // One advertising event every 100 ms; the scan window is half the interval.
            #expect(all.count > 5)
            #expect(Set(all.map(\.peripheral)) == [filtered[0].peripheral])
        }
    }

    @Test("The service filter reports only peripherals advertising one of the services")
    func serviceFilter() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let central = devices.central
            let other = try await central.scanForPeripherals(withServices: [0xAAAA])
            #expect(try await devices.collect(other, for: .seconds(2)) { await central.stopScan() }.isEmpty)
            let matching = try await central.scanForPeripherals(withServices: [0xAAAA, Fixture.serviceUUID])
            #expect(try await devices.collect(matching, for: .seconds(1)) { await central.stopScan() }.count == 1)
        }
    }

    @Test("stopScan ends the scan's stream; stopAdvertising makes the peripheral vanish")
    func stopScanAndAdvertising() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let central = devices.central
            let scan = try await central.scanForPeripherals()
            #expect(await central.isScanning)
            await central.stopScan()
            #expect(await central.isScanning == false)
            // The stream ends (no time passed, so nothing was found).
            var found = 0
            for await _ in scan { found += 1 }
            #expect(found == 0)
            await devices.peripheralManager.stopAdvertising()
            #expect(await devices.peripheralManager.isAdvertising == false)
            let again = try await central.scanForPeripherals()
            #expect(try await devices.collect(again, for: .seconds(2)) { await central.stopScan() }.isEmpty)
        }
    }

    @Test(
        "stopScan ends the stream only after LE Set (Extended) Scan Enable (disable) completed (Core 5.4 Vol 4 Part E §7.8.11, §7.8.65)"
    )
    func stopScanEndsStreamAfterController() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("swift-ble-\(UUID()).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await TwoDevices.run(capturingCentralTo: path) { devices in
            try await devices.publish()
            let central = devices.central
            let scan = try await central.scanForPeripherals()
            // As `ble scan` does: another task stops the scan; the reader stops with the stream
            // and cancels that task — which must not leave the controller scanning.
            let stopper = devices.spawn { await central.stopScan() }
            for await _ in scan {}
            stopper.cancel()
            // The capture, as it is when the stream ends: the disable and its completion are in.
            var reader = try BTSnoopReader([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            var packets: [H4Packet] = []
            while let record = try reader.next() { packets.append(try record.packet(datalink: reader.datalink)) }
            // A controller with extended advertising is scanned with the extended commands
            // (§7.8.65: Enable, Filter_Duplicates, Duration, Period — six octets).
            let extended = await central.usesExtendedCommands
            #expect(extended)
            let opcode = (extended ? HCI.LESetExtendedScanEnable.opcode : HCI.LESetScanEnable.opcode).rawValue
            let opcodeOctets = [UInt8(opcode & 0xFF), UInt8(opcode >> 8)]
            let length: UInt8 = extended ? 6 : 2
            // The command with its Enable 0 (its parameters follow the length)…
            let disable = try #require(
                packets.lastIndex { $0.type == .command && Array($0.payload.prefix(4)) == opcodeOctets + [length, 0] })
            // …then Command Complete (0x0E) for it with status Success.
            #expect(
                packets[(disable + 1)...].contains {
                    $0.type == .event && $0.payload.first == 0x0E
                        && Array($0.payload.dropFirst(3).prefix(3)) == opcodeOctets + [0]
                })
        }
    }

    @Test("Non-connectable advertising is discovered as such (ADV_NONCONN_IND, Vol 6 Part B §2.3.1.3)")
    func nonConnectable() async throws {
        try await TwoDevices.run { devices in
            var advertisement = AdvertisementData(localName: "beacon", serviceUUIDs: [Fixture.serviceUUID])
            advertisement.isConnectable = false
            try await devices.peripheralManager.startAdvertising(advertisement)
            let discovery = try await devices.discover()
            #expect(discovery.advertisementData.isConnectable == false)
            #expect(discovery.advertisementData.scanResponseData == nil)
            #expect(discovery.advertisementData.localName == "beacon")
        }
    }

    @Test("A passive scan reports advertisements without scan responses (Vol 6 Part B §4.4.3.1)")
    func passiveScan() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let central = devices.central
            let scan = try await central.scanForPeripherals(options: ScanOptions(active: false))
            let found = try await devices.collect(scan, for: .seconds(1)) { await central.stopScan() }
            #expect(found.count == 1)
            #expect(found.first?.advertisementData.scanResponseData == nil)
            #expect(found.first?.advertisementData.localName == "sensor")
        }
    }

    @Test("Abandoning the scan's stream stops the scan")
    func abandonedScan() async throws {
        try await TwoDevices.run { devices in
            try await devices.publish()
            let central = devices.central
            let listener = devices.spawn {
                for await _ in try await central.scanForPeripherals(options: ScanOptions(allowDuplicates: true)) {}
            }
            try await devices.sleep(for: .milliseconds(500))
            #expect(await central.isScanning)
            listener.cancel()
            try await listener.value
            try await devices.sleep(for: .milliseconds(10))
            #expect(await central.isScanning == false)
        }
    }
}
