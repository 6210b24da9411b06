import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("Subscriptions and value updates (Core 5.4 Vol 3 Part G §4.10, §4.11, §3.3.3.3)")
struct NotificationTests {
    @Test("setNotifyValue subscribes; updateValue's notifications arrive in order; unsubscribing is reported")
    func notifications() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stream = try #require(characteristics[Fixture.streamUUID])
            let manager = devices.peripheralManager
            var managerEvents = manager.events.makeAsyncIterator()
            let values = try await peripheral.values(for: stream)
            var peripheralEvents = await peripheral.events().makeAsyncIterator()
            try await peripheral.setNotifyValue(true, for: stream)
            let snapshot = await peripheral.services?.first?.characteristics?.first { $0.uuid == Fixture.streamUUID }
            #expect(snapshot?.isNotifying == true)

            var subscribed: (Central, Characteristic)?
            while subscribed == nil, let event = await managerEvents.next() {
                if case .subscribed(let central, let characteristic) = event { subscribed = (central, characteristic) }
            }
            let (central, local) = try #require(subscribed)
            #expect(local.uuid == Fixture.streamUUID)
            #expect(local.isNotifying)
            #expect(central.maximumUpdateValueLength == 244)

            for index in 0..<5 {
                #expect(try await manager.updateValue([UInt8(index), 0xA5], for: local))
            }
            var received: [[UInt8]] = []
            for await value in values {
                received.append(value)
                if received.count == 5 { break }
            }
            #expect(received == (0..<5).map { [UInt8($0), 0xA5] })
            guard case .valueUpdated(let updated, let value)? = await peripheralEvents.next() else {
                Issue.record("no valueUpdated event")
                return
            }
            #expect(updated.uuid == Fixture.streamUUID)
            #expect(value == [0, 0xA5])
            // The stored value took the last update.
            #expect(try await peripheral.discoverDescriptors(for: stream).count == 1)
            let published = await manager.services.first { $0.uuid == Fixture.serviceUUID }
            #expect(published?.characteristics?.first { $0.uuid == Fixture.streamUUID }?.value == [4, 0xA5])

            try await peripheral.setNotifyValue(false, for: stream)
            var unsubscribed = false
            while !unsubscribed, let event = await managerEvents.next() {
                if case .unsubscribed(let who, let characteristic) = event {
                    #expect(who.identifier == central.identifier)
                    #expect(characteristic.uuid == Fixture.streamUUID)
                    unsubscribed = true
                }
            }
            // No subscriber: nothing is sent, and that is not a full queue.
            #expect(try await manager.updateValue([9], for: local))
        }
    }

    @Test("An indicate-only characteristic is subscribed with indications; one is outstanding at a time")
    func indications() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let indicated = try #require(characteristics[Fixture.indicatedUUID])
            let manager = devices.peripheralManager
            var managerEvents = manager.events.makeAsyncIterator()
            let values = try await peripheral.values(for: indicated)
            try await peripheral.setNotifyValue(true, for: indicated)
            var local: Characteristic?
            while local == nil, let event = await managerEvents.next() {
                if case .subscribed(_, let characteristic) = event { local = characteristic }
            }
            let characteristic = try #require(local)
            #expect(try await manager.updateValue([1], for: characteristic))
            // The first is not confirmed yet (Vol 3 Part F §3.3.2).
            #expect(try await manager.updateValue([2], for: characteristic) == false)
            var ready = false
            while !ready, let event = await managerEvents.next() {
                if case .readyToUpdateSubscribers = event { ready = true }
            }
            #expect(try await manager.updateValue([3], for: characteristic))
            var received: [[UInt8]] = []
            for await value in values {
                received.append(value)
                if received.count == 2 { break }
            }
            #expect(received == [[1], [3]])
        }
    }

    @Test("updateValue returns false when the transmit queue is full, then readyToUpdateSubscribers follows")
    func transmitQueueFull() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stream = try #require(characteristics[Fixture.streamUUID])
            let manager = devices.peripheralManager
            var managerEvents = manager.events.makeAsyncIterator()
            let values = try await peripheral.values(for: stream)
            try await peripheral.setNotifyValue(true, for: stream)
            var local: Characteristic?
            while local == nil, let event = await managerEvents.next() {
                if case .subscribed(_, let characteristic) = event { local = characteristic }
            }
            let characteristic = try #require(local)
            var sent: [[UInt8]] = []
            for index in 0..<100 {
                let value = [UInt8](repeating: UInt8(index), count: 244)
                guard try await manager.updateValue(value, for: characteristic) else { break }
                sent.append(value)
            }
            // Up to the controller's 8 buffers (less those still in flight) and the host's queue
            // of 8 were taken before the queue was full.
            #expect((9...16).contains(sent.count))
            var ready = false
            while !ready, let event = await managerEvents.next() {
                if case .readyToUpdateSubscribers = event { ready = true }
            }
            #expect(try await manager.updateValue([0xFF], for: characteristic))
            sent.append([0xFF])
            var received: [[UInt8]] = []
            for await value in values {
                received.append(value)
                if received.count == sent.count { break }
            }
            #expect(received == sent)
        }
    }

    @Test("A disconnection ends the value streams and unsubscribes the central")
    func disconnectionEndsStreams() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stream = try #require(characteristics[Fixture.streamUUID])
            var managerEvents = devices.peripheralManager.events.makeAsyncIterator()
            let values = try await peripheral.values(for: stream)
            try await peripheral.setNotifyValue(true, for: stream)
            await devices.central.cancelPeripheralConnection(peripheral)
            var count = 0
            for await _ in values { count += 1 }
            #expect(count == 0)
            var sequence: [String] = []
            while sequence.last != "disconnected", let event = await managerEvents.next() {
                switch event {
                case .subscribed: sequence.append("subscribed")
                case .unsubscribed: sequence.append("unsubscribed")
                case .disconnected: sequence.append("disconnected")
                case .connected, .readyToUpdateSubscribers, .linkChanged, .indicationConfirmed, .pairingStarted, .paired,
                    .pairingFailed, .securityChanged:
                    continue
                }
            }
            #expect(sequence == ["subscribed", "unsubscribed", "disconnected"])
        }
    }
}
