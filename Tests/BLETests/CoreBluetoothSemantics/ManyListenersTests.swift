import BLEHost
import BLEWire
import Testing

@testable import BLE

/// Event streams with any number of listeners: each gets what happens from when it asked;
/// one going away ends nothing for the others.
@Suite("Event streams: many listeners, none ending another's stream, no stale history")
struct ManyListenersTests {
    @Test(
        "CentralManager.events: two listeners both see the connection; a cancelled third ends neither; a late one gets no history"
    )
    func centralEvents() async throws {
        try await TwoDevices.run { devices in
            let central = devices.central
            var first = central.events.makeAsyncIterator()
            var second = central.events.makeAsyncIterator()
            let cancelled = devices.spawn { () -> Int in
                var count = 0
                for await _ in central.events { count += 1 }
                return count
            }
            try await devices.sleep(for: .milliseconds(1))
            cancelled.cancel()
            _ = try await cancelled.value
            let peripheral = try await devices.publishAndConnect()
            guard case .connected(let one)? = await first.next(), case .connected(let two)? = await second.next() else {
                throw TestFailure("a listener missed the connection")
            }
            #expect(one === peripheral && two === peripheral)
            var late = central.events.makeAsyncIterator()
            await central.cancelPeripheralConnection(peripheral)
            // The late listener's first event is the disconnection, not the earlier connection.
            guard case .disconnected(_, let reason)? = await late.next() else {
                throw TestFailure("the late listener did not see the disconnection first")
            }
            #expect(reason == .connectionTerminatedByLocalHost)
            guard case .disconnected? = await first.next(), case .disconnected? = await second.next() else {
                throw TestFailure("a listener missed the disconnection")
            }
        }
    }

    @Test(
        "PeripheralManager.events: two listeners both see the central connect; a cancelled third ends neither; a late one gets no history"
    )
    func peripheralManagerEvents() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            var first = manager.events.makeAsyncIterator()
            var second = manager.events.makeAsyncIterator()
            let cancelled = devices.spawn { () -> Int in
                var count = 0
                for await _ in manager.events { count += 1 }
                return count
            }
            try await devices.sleep(for: .milliseconds(1))
            cancelled.cancel()
            _ = try await cancelled.value
            let peripheral = try await devices.publishAndConnect()
            func nextConnection(_ iterator: inout EventStream<PeripheralManagerEvent>.Iterator) async -> Central? {
                while let event = await iterator.next() {
                    if case .connected(let central) = event { return central }
                }
                return nil
            }
            let one = try #require(await nextConnection(&first))
            let two = try #require(await nextConnection(&second))
            #expect(one == two)
            var late = manager.events.makeAsyncIterator()
            await devices.central.cancelPeripheralConnection(peripheral)
            // The late listener's first connection event is the disconnection, not the connection.
            var lateSawConnection = false
            var lateSawDisconnection = false
            while !lateSawDisconnection, let event = await late.next() {
                switch event {
                case .connected: lateSawConnection = true
                case .disconnected: lateSawDisconnection = true
                default: continue
                }
            }
            #expect(lateSawDisconnection)
            #expect(!lateSawConnection)
        }
    }

    @Test("Broadcast: a listener that goes away is dropped at the next element; finish ends the rest and later ones")
    func broadcast() async {
        let broadcast = Broadcast<Int>()
        var kept = broadcast.stream().makeAsyncIterator()
        do {
            let dropped = broadcast.stream()
            _ = dropped
        }
        broadcast.yield(1)
        #expect(broadcast.listenerCount == 1)
        broadcast.finish()
        #expect(await kept.next() == 1)
        #expect(await kept.next() == nil)
        var after = broadcast.stream().makeAsyncIterator()
        #expect(await after.next() == nil)
    }

    @Test("Peripheral.events: every listener hears its own disconnection, with the reason (§7.7.5)")
    func peripheralDisconnection() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            var first = await peripheral.events().makeAsyncIterator()
            var second = await peripheral.events().makeAsyncIterator()
            await devices.central.cancelPeripheralConnection(peripheral)
            for index in 0..<2 {
                let event = index == 0 ? await first.next() : await second.next()
                guard case .disconnected(let reason)? = event else {
                    throw TestFailure("listener \(index) did not hear the disconnection")
                }
                #expect(reason == .connectionTerminatedByLocalHost)
            }
        }
    }

    @Test("The peer disconnecting is reported on the peripheral's events with the peer's reason")
    func peerDisconnection() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            var events = await peripheral.events().makeAsyncIterator()
            await devices.peripheralManager.powerOff()
            guard case .disconnected(let reason)? = await events.next() else {
                throw TestFailure("no disconnection event")
            }
            #expect(reason == .remoteDeviceTerminatedPowerOff)
        }
    }

    @Test("stateUpdates: two listeners each see the change; cancelling one leaves the other")
    func stateListeners() async throws {
        try await TwoDevices.run { devices in
            let central = devices.central
            var kept = await central.stateUpdates().makeAsyncIterator()
            let gone = devices.spawn { () -> [ManagerState] in
                var seen: [ManagerState] = []
                for await state in await central.stateUpdates() { seen.append(state) }
                return seen
            }
            try await devices.sleep(for: .milliseconds(1))
            gone.cancel()
            #expect(try await gone.value == [.poweredOn])
            #expect(await kept.next() == .poweredOn)
            await central.powerOff()
            #expect(await kept.next() == .poweredOff)
        }
    }
}
