import BLE
import BLEWire
import Foundation
import Testing

extension BumbleInteropTests {
    @Test(
        "Our central and our peripheral on Bumble's controllers: scan, connect, GATT, notify, disconnect"
    )
    func ourHostsOnBumbleControllers() async throws {
        let (controllers, ports) = try await Interop.bumbleControllers(2)
        defer { controllers.stop() }
        try #require(ports.count == 2)

        let manager = try await PeripheralManager(
            radio: .transport(try await Interop.transport(port: ports[0])),
            configuration: Interop.configuration(address: 0xC4_00_00_00_00_0B))
        let central = await CentralManager(
            radio: .transport(try await Interop.transport(port: ports[1])),
            configuration: Interop.configuration(address: 0xC4_00_00_00_00_0C))
        try await manager.powerOn()
        try await central.powerOn()

        let published = try await manager.add(
            MutableService(
                uuid: TestService.service,
                characteristics: [
                    MutableCharacteristic(
                        uuid: TestService.longRead, properties: [.read], permissions: .readable,
                        value: .stored(TestService.longValue)),
                    MutableCharacteristic(
                        uuid: TestService.write, properties: [.read, .write], permissions: [.readable, .writeable],
                        value: .stored([])),
                    MutableCharacteristic(
                        uuid: TestService.notify, properties: [.notify], permissions: .readable, value: .stored([])),
                ]))
        let localNotify = try #require(published.characteristics?.first { $0.uuid == TestService.notify })
        let managerEvents = EventLog(manager.events)
        try await manager.startAdvertising(
            AdvertisementData(
                localName: "SwiftPeer", manufacturerData: ManufacturerData(companyIdentifier: 0x05F1, data: [0x53])))

        let discovery = try await withLimit("scan") {
            for await discovery in try await central.scanForPeripherals() {
                if discovery.advertisementData.localName == "SwiftPeer" { return discovery }
            }
            throw InteropFailure.timedOut("scan ended")
        }
        await central.stopScan()
        #expect(discovery.advertisementData.manufacturerData?.data == [0x53])
        let peripheral = discovery.peripheral
        try await withLimit("connect") { try await central.connect(peripheral) }
        #expect(await peripheral.mtu == 247)

        let service = try #require(try await peripheral.discoverServices([TestService.service]).first)
        let characteristics = try await peripheral.discoverCharacteristics(for: service)
        let longRead = try #require(characteristics.first { $0.uuid == TestService.longRead })
        let write = try #require(characteristics.first { $0.uuid == TestService.write })
        let notify = try #require(characteristics.first { $0.uuid == TestService.notify })
        #expect(try await peripheral.readValue(for: longRead) == TestService.longValue)

        // The app answers writes (Core Bluetooth's didReceiveWrite): a long write comes as its
        // queued parts, answered together (Vol 3 Part F §3.4.6.3).
        let writes = manager.writeRequests
        let answering = Task {
            var written: [UInt8] = []
            for await requests in writes {
                for request in requests {
                    guard let value = request.value, request.offset == written.count else { continue }
                    written += value
                }
                if let first = requests.first { await manager.respond(to: first, withResult: .success) }
                if written.count >= 400 { return written }
            }
            return written
        }
        let long = (0..<400).map { UInt8($0 % 253) }
        try await withLimit("long write") { try await peripheral.writeValue(long, for: write, type: .withResponse) }
        #expect(await answering.value == long)

        let values = try await peripheral.values(for: notify)
        try await peripheral.setNotifyValue(true, for: notify)
        try await managerEvents.first("subscription") { event -> Bool? in
            if case .subscribed = event { true } else { nil }
        }
        for index in 0..<3 {
            #expect(try await manager.updateValue([0xA0, UInt8(index)], for: localNotify))
        }
        let received = try await withLimit("notifications") {
            var received: [[UInt8]] = []
            for await value in values {
                received.append(value)
                if received.count == 3 { break }
            }
            return received
        }
        #expect(received == [[0xA0, 0], [0xA0, 1], [0xA0, 2]])

        await central.cancelPeripheralConnection(peripheral)
        #expect(await peripheral.state == .disconnected)
        let reason = try await managerEvents.first("peripheral side disconnection") { event -> HCIStatus? in
            if case .disconnected(_, let reason) = event { reason } else { nil }
        }
        #expect(reason == .remoteUserTerminatedConnection)
        await central.close()
        await manager.close()
    }
}
