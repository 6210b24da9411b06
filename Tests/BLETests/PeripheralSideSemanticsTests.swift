import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

extension TwoDevices {
    /// Connects, subscribes to the fixture characteristic `uuid` and waits for the manager's
    /// `.subscribed`: the peripheral, its characteristic, the manager's snapshot of it, the
    /// central as the manager sees it, and the manager's events from there on.
    func subscribe(to uuid: BluetoothUUID) async throws -> (
        Peripheral, Characteristic, Characteristic, Central, EventStream<PeripheralManagerEvent>.Iterator
    ) {
        let (peripheral, _, characteristics) = try await connectAndDiscover()
        let remote = try #require(characteristics[uuid])
        var events = peripheralManager.events.makeAsyncIterator()
        try await peripheral.setNotifyValue(true, for: remote)
        while let event = await events.next() {
            if case .subscribed(let central, let local) = event, local.uuid == uuid {
                return (peripheral, remote, local, central, events)
            }
        }
        throw TestFailure("no subscription")
    }
}

@Suite(
    "The peripheral manager's Core Bluetooth semantics: awaiting updates, subscribed centrals, unanswered requests, features"
)
struct PeripheralSideSemanticsTests {
    // MARK: updateValueWhenReady (Core 5.4 Vol 3 Part G §4.10–§4.11)

    @Test("updateValueWhenReady waits for room in a full transmit queue: every notification arrives, in order")
    func awaitingNotificationsWaitForRoom() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, remote, local, _, _) = try await devices.subscribe(to: Fixture.streamUUID)
            let manager = devices.peripheralManager
            let values = try await peripheral.values(for: remote)
            // Fill the queue until updateValue says no (Core Bluetooth's shape, kept).
            var sent: [[UInt8]] = []
            while try await manager.updateValue([UInt8(sent.count)] + Array(repeating: 0, count: 243), for: local) {
                sent.append([UInt8(sent.count)] + Array(repeating: 0, count: 243))
            }
            // Each awaiting call returns once its notification is queued, however full.
            for index in sent.count..<(sent.count + 40) {
                let value = [UInt8(index)] + Array(repeating: 0, count: 243)
                try await manager.updateValueWhenReady(value, for: local)
                sent.append(value)
            }
            var received: [[UInt8]] = []
            for await value in values {
                received.append(value)
                if received.count == sent.count { break }
            }
            #expect(received == sent)
        }
    }

    @Test(
        "updateValueWhenReady of an indication returns once the central confirms it (Vol 3 Part F §3.4.7.2–§3.4.7.3), reported as .indicationConfirmed"
    )
    func awaitingIndicationWaitsForConfirmation() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, remote, local, central, events) = try await devices.subscribe(to: Fixture.indicatedUUID)
            var managerEvents = events
            let manager = devices.peripheralManager
            let values = try await peripheral.values(for: remote)
            for value: UInt8 in 1...3 {
                try await manager.updateValueWhenReady([value], for: local)
                // The confirmation came before the call returned: the slot is free again.
                #expect(await manager.indicationsInFlight.isEmpty)
            }
            var confirmed: [Characteristic] = []
            while confirmed.count < 3, let event = await managerEvents.next() {
                if case .indicationConfirmed(let who, let characteristic) = event {
                    #expect(who.identifier == central.identifier)
                    confirmed.append(characteristic)
                }
            }
            #expect(confirmed.map(\.uuid) == Array(repeating: Fixture.indicatedUUID, count: 3))
            var received: [[UInt8]] = []
            for await value in values {
                received.append(value)
                if received.count == 3 { break }
            }
            #expect(received == [[1], [2], [3]])
            // updateValue's indications are reported confirmed too.
            #expect(try await manager.updateValue([4], for: local))
            var again = false
            while !again, let event = await managerEvents.next() {
                if case .indicationConfirmed = event { again = true }
            }
            #expect(again)
        }
    }

    @Test("updateValueWhenReady naming the same subscribed central twice sends the value once and does not throw")
    func awaitingUpdateCentralNamedTwice() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, remote, local, central, _) = try await devices.subscribe(to: Fixture.streamUUID)
            var values = try await peripheral.values(for: remote).makeAsyncIterator()
            try await devices.peripheralManager.updateValueWhenReady([7], for: local, onSubscribedCentrals: [central, central])
            try await devices.peripheralManager.updateValueWhenReady([8], for: local, onSubscribedCentrals: [central])
            #expect(await values.next() == [7])
            #expect(await values.next() == [8])
        }
    }

    @Test("updateValueWhenReady throws .unsubscribed when the central unsubscribes while it waits for room")
    func awaitingUpdateUnsubscribed() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, remote, local, central, _) = try await devices.subscribe(to: Fixture.streamUUID)
            let manager = devices.peripheralManager
            let value = [UInt8](repeating: 7, count: 244)
            while try await manager.updateValue(value, for: local) {}
            // Many callers queue behind the full link; the central unsubscribes meanwhile.
            let waiting = devices.spawn {
                var delivered = 0
                do {
                    for _ in 0..<200 {
                        try await manager.updateValueWhenReady(value, for: local)
                        delivered += 1
                    }
                } catch let error as BLEError {
                    return (delivered, error)
                }
                return (delivered, BLEError.notConnected)
            }
            try await peripheral.setNotifyValue(false, for: remote)
            let (delivered, error) = try await waiting.value
            #expect(error == .unsubscribed)
            #expect(delivered < 200)
            #expect(await manager.subscribedCentrals(for: local).isEmpty)
            // A central named but not subscribed cannot be delivered to.
            await #expect(throws: BLEError.unsubscribed) {
                try await manager.updateValueWhenReady([1], for: local, onSubscribedCentrals: [central])
            }
        }
    }

    @Test("updateValueWhenReady throws .cancelled when its task is cancelled while it waits for room; the link goes on")
    func awaitingUpdateCancelled() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, remote, local, _, _) = try await devices.subscribe(to: Fixture.streamUUID)
            let manager = devices.peripheralManager
            let value = [UInt8](repeating: 7, count: 244)
            while try await manager.updateValue(value, for: local) {}
            let waiting = devices.spawn { () -> BLEError? in
                do {
                    for _ in 0..<200 { try await manager.updateValueWhenReady(value, for: local) }
                } catch let error as BLEError {
                    return error
                }
                return nil
            }
            // Well inside one connection interval: the caller is parked, waiting for room.
            try await devices.sleep(for: .microseconds(100))
            #expect(await manager.updateWaiters.count == 1)
            let cancelledAt = devices.now
            waiting.cancel()
            #expect(try await waiting.value == .cancelled)
            #expect(await manager.updateWaiters.isEmpty)
            // At once, not when room came back at a later connection event.
            #expect(cancelledAt.duration(to: devices.now) == .zero)
            // The link and the subscription are unharmed: an awaiting update still arrives.
            let values = try await peripheral.values(for: remote)
            try await manager.updateValueWhenReady([42], for: local)
            var last: [UInt8]?
            for await received in values {
                last = received
                if received == [42] { break }
            }
            #expect(last == [42])
        }
    }

    @Test("updateValueWhenReady throws .disconnected with the reason when the link goes down while it waits")
    func awaitingUpdateDisconnected() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, local, _, _) = try await devices.subscribe(to: Fixture.streamUUID)
            let manager = devices.peripheralManager
            let value = [UInt8](repeating: 7, count: 244)
            while try await manager.updateValue(value, for: local) {}
            let waiting = devices.spawn {
                do {
                    for _ in 0..<200 { try await manager.updateValueWhenReady(value, for: local) }
                } catch let error as BLEError {
                    return error
                }
                return BLEError.notConnected
            }
            await devices.central.cancelPeripheralConnection(peripheral)
            let error = try await waiting.value
            // The central's Remote User Terminated Connection (0x13, Vol 1 Part F §2).
            #expect(error == .disconnected(reason: .remoteUserTerminatedConnection))
        }
    }

    // MARK: subscribedCentrals (CBMutableCharacteristic.subscribedCentrals)

    @Test("subscribedCentrals follows the Client Characteristic Configuration writes and is cleared on disconnection")
    func subscribedCentrals() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, remote, local, central, events) = try await devices.subscribe(to: Fixture.streamUUID)
            var managerEvents = events
            let manager = devices.peripheralManager
            #expect(await manager.subscribedCentrals(for: local).map(\.identifier) == [central.identifier])
            let other = try #require(
                await manager.services.first { $0.uuid == Fixture.serviceUUID }?
                    .characteristics?.first { $0.uuid == Fixture.indicatedUUID })
            #expect(await manager.subscribedCentrals(for: other).isEmpty)

            try await peripheral.setNotifyValue(false, for: remote)
            while let event = await managerEvents.next() {
                if case .unsubscribed = event { break }
            }
            #expect(await manager.subscribedCentrals(for: local).isEmpty)

            try await peripheral.setNotifyValue(true, for: remote)
            while let event = await managerEvents.next() {
                if case .subscribed = event { break }
            }
            #expect(await manager.subscribedCentrals(for: local).count == 1)
            await devices.central.cancelPeripheralConnection(peripheral)
            while let event = await managerEvents.next() {
                if case .disconnected = event { break }
            }
            #expect(await manager.subscribedCentrals(for: local).isEmpty)
        }
    }

    // MARK: Requests nobody answers (Vol 3 Part F §3.3.3, §3.4.1.1)

    @Test(
        "A read nobody answers gets Unlikely Error after the manager's bound, long before the central's 30 s ATT timeout; the link stays up"
    )
    func unansweredReadTimesOut() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let dynamic = try #require(characteristics[Fixture.dynamicUUID])
            let manager = devices.peripheralManager
            #expect(await manager.unansweredRequestTimeout == .seconds(5))
            let start = devices.now
            await #expect(throws: BLEError.att(.unlikelyError, handle: dynamic.handle)) {
                try await peripheral.readValue(for: dynamic)
            }
            let waited = start.duration(to: devices.now)
            #expect(waited >= .seconds(5))
            #expect(waited < .seconds(6))
            #expect(await manager.unansweredRequestCount == 1)
            #expect(await peripheral.state == .connected)
            // The bearer is free again: a stored value reads at once.
            let stored = try #require(characteristics[Fixture.storedUUID])
            #expect(try await peripheral.readValue(for: stored) == [1, 2, 3])
        }
    }

    @Test("A write whose listener cancelled is answered with Unlikely Error at once, without waiting for the bound")
    func writeWithCancelledListener() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let writeOnly = try #require(characteristics[Fixture.writeOnlyUUID])
            let manager = devices.peripheralManager
            let listener = devices.spawn {
                for await _ in manager.writeRequests {}
            }
            try await devices.sleep(for: .milliseconds(10))
            listener.cancel()
            _ = await listener.result
            let start = devices.now
            await #expect(throws: BLEError.att(.unlikelyError, handle: writeOnly.handle)) {
                try await peripheral.writeValue([1], for: writeOnly, type: .withResponse)
            }
            #expect(start.duration(to: devices.now) < .seconds(1))
            #expect(await manager.unansweredRequestCount == 1)
        }
    }

    @Test("Requests a listener took but left unanswered are answered at once when it cancels")
    func pendingRequestWhenListenerCancels() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let dynamic = try #require(characteristics[Fixture.dynamicUUID])
            let manager = devices.peripheralManager
            // Takes each request and never answers it.
            let listener = devices.spawn {
                for await _ in manager.readRequests {}
            }
            let reader = devices.spawn { try await peripheral.readValue(for: dynamic) }
            try await devices.sleep(for: .seconds(1))
            let start = devices.now
            listener.cancel()
            await #expect(throws: BLEError.att(.unlikelyError, handle: dynamic.handle)) { try await reader.value }
            #expect(start.duration(to: devices.now) < .seconds(1))
            #expect(await manager.unansweredRequestCount == 1)
        }
    }

    @Test("The bound is configurable: without one, an app that answers late is still heard; a short one answers sooner")
    func configurableBound() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let dynamic = try #require(characteristics[Fixture.dynamicUUID])
            let manager = devices.peripheralManager
            // Without a bound, an app that answers after 20 s is heard (the central waits 30 s).
            await manager.setUnansweredRequestTimeout(nil)
            let slow = devices.spawn {
                for await request in manager.readRequests {
                    try await devices.sleep(for: .seconds(20))
                    await manager.respond(to: request, withValue: [5])
                    break
                }
            }
            #expect(try await peripheral.readValue(for: dynamic) == [5])
            try await slow.value
            #expect(await manager.unansweredRequestCount == 0)

            await manager.setUnansweredRequestTimeout(.seconds(1))
            let start = devices.now
            await #expect(throws: BLEError.att(.unlikelyError, handle: dynamic.handle)) {
                try await peripheral.readValue(for: dynamic)
            }
            let waited = start.duration(to: devices.now)
            #expect(waited >= .seconds(1))
            #expect(waited < .seconds(2))
            #expect(await manager.unansweredRequestCount == 1)
        }
    }

    // MARK: supports(_:) (CBCentralManager.supports(_:))

    @Test("supports(_:) reports the controller's LE features on both managers, false before power on")
    func supportsFeatures() async throws {
        try await TwoDevices.run(poweredOn: false) { devices in
            #expect(await devices.central.supports(.le2MPHY) == false)
            try await devices.peripheralManager.powerOn()
            try await devices.central.powerOn()
            for manager in [devices.peripheralManager] {
                #expect(await manager.supports(.extendedAdvertising))
                #expect(await manager.supports(.le2MPHY))
                #expect(await manager.supports(.leCodedPHY))
                #expect(await manager.supports(.dataLengthExtension))
                #expect(await manager.supports(.privacy))
                // The virtual controller does not implement these.
                #expect(await manager.supports(.periodicAdvertising) == false)
                #expect(await manager.supports(.powerControl) == false)
            }
            #expect(await devices.central.supports(.le2MPHY))
            #expect(await devices.central.supports(.extendedAdvertising))
        }
        let radio = VirtualRadio()
        var configuration = VirtualController.Configuration()
        configuration.leFeatures = [.leEncryption]
        let bare = configuration
        try await radio.simulation.run {
            let central = await CentralManager(radio: .virtual(radio, controller: bare))
            try await central.powerOn()
            #expect(await central.supports(.encryption))
            #expect(await central.supports(.le2MPHY) == false)
            #expect(await central.supports(.extendedAdvertising) == false)
            await central.close()
        }
    }
}
