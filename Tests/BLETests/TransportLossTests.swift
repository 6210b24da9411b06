import BLEController
import BLEHost
import BLETransport
import BLEWire
import Testing

@testable import BLE

/// The controller vanishes under a running manager (its process killed, a dongle unplugged):
/// the transport ends, and the managers must notice, not run on silently.
@Suite("A vanished controller: the managers go poweredOff for good and fail what was pending")
struct TransportLossTests {
    static func kill(_ stack: HostStack) async {
        guard let pipe = await stack.host.transport as? PipeTransport else {
            Issue.record("the test radio is not a pipe")
            return
        }
        pipe.fail(.io("controller killed"))
    }

    @Test(
        "Peripheral manager: the state goes poweredOff, each central is reported gone, every call throws the transport's error"
    )
    func peripheralManagerNotices() async throws {
        try await TwoDevices.run { devices in
            _ = try await devices.publishAndConnect()
            let manager = devices.peripheralManager
            let states = await manager.stateUpdates()
            let events = manager.events
            await Self.kill(manager.stack)
            try await devices.sleep(for: .milliseconds(10))
            #expect(await manager.state == .poweredOff)
            #expect(await manager.lostTransport == .io("controller killed"))
            var seen: [ManagerState] = []
            for await state in states {
                seen.append(state)
                if state == .poweredOff { break }
            }
            #expect(seen == [.poweredOn, .poweredOff])
            var iterator = events.makeAsyncIterator()
            var disconnected = false
            while let event = await iterator.next() {
                if case .disconnected(_, let reason) = event {
                    #expect(reason == .hardwareFailure)
                    disconnected = true
                    break
                }
            }
            #expect(disconnected)
            let lost = BLEError.host(.transport(.io("controller killed")))
            await #expect(throws: lost) { try await manager.powerOn() }
            await #expect(throws: lost) { try await manager.add(MutableService(uuid: 0x180F, characteristics: [])) }
            await #expect(throws: lost) { try await manager.startAdvertising(AdvertisementData(localName: "x")) }
        }
    }

    @Test(
        "Central manager: an outstanding read fails with the transport's error, the peripheral is disconnected, scanning throws"
    )
    func centralNotices() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let central = devices.central
            // A dynamic value: the read stays outstanding until the application answers, which
            // here it never does.
            let characteristic = try #require(characteristics[Fixture.dynamicUUID])
            let read = devices.spawn { try await peripheral.readValue(for: characteristic) }
            try await devices.sleep(for: .milliseconds(200))
            await Self.kill(central.stack)
            await #expect(throws: BLEError.host(.transport(.io("controller killed")))) { _ = try await read.value }
            try await devices.sleep(for: .milliseconds(10))
            #expect(await central.state == .poweredOff)
            #expect(await central.lostTransport == .io("controller killed"))
            #expect(await peripheral.state == .disconnected)
            await #expect(throws: BLEError.host(.transport(.io("controller killed")))) {
                _ = try await central.scanForPeripherals()
            }
        }
    }
}
