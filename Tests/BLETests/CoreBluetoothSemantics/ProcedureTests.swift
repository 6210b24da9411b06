import BLEHost
import BLEWire
import Testing

@testable import BLE

/// GATT procedures on one peripheral run one at a time (Core 5.4 Vol 3 Part G §4.9.4: a long
/// write fills the server's one prepare queue per client), and subscribing can listen first.
@Suite("GATT procedures: serialised per peripheral; subscribe and listen atomically")
struct ProcedureTests {
    @Test(
        "Two tasks' long writes (Prepare/Execute Write, §4.9.4) never interleave: each arrives whole, one after the other"
    )
    func concurrentLongWrites() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let writeOnly = try #require(characteristics[Fixture.writeOnlyUUID])
            let manager = devices.peripheralManager
            let first = [UInt8](repeating: 0xAA, count: 300)
            let second = [UInt8](repeating: 0x55, count: 300)
            let answering = devices.spawn { () -> [[ATTRequest]] in
                var batches: [[ATTRequest]] = []
                // Answers everything until cancelled, so that an interleaving fails the checks
                // below instead of leaving a writer waiting.
                for await requests in manager.writeRequests {
                    batches.append(requests)
                    await manager.respond(to: requests[0], withResult: .success)
                }
                return batches
            }
            let one = devices.spawn { try await peripheral.writeValue(first, for: writeOnly, type: .withResponse) }
            let two = devices.spawn { try await peripheral.writeValue(second, for: writeOnly, type: .withResponse) }
            try await one.value
            try await two.value
            try await devices.sleep(for: .seconds(1))
            answering.cancel()
            let batches = try await answering.value
            #expect(batches.count == 2)
            #expect(batches.allSatisfy { $0.count == 1 && $0[0].offset == 0 })
            #expect(batches.compactMap { $0.first?.value } == [first, second])
        }
    }

    @Test("Two tasks' long reads (Read, then Read Blob, §4.8.3) run one after the other, each whole")
    func concurrentLongReads() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let dynamic = try #require(characteristics[Fixture.dynamicUUID])
            let manager = devices.peripheralManager
            let value = (0..<400).map { UInt8(truncatingIfNeeded: $0) }
            let answering = devices.spawn { () -> [Int] in
                var offsets: [Int] = []
                for await request in manager.readRequests {
                    offsets.append(request.offset)
                    await manager.respond(to: request, withValue: value)
                    if offsets.count == 4 { break }
                }
                return offsets
            }
            let one = devices.spawn { try await peripheral.readValue(for: dynamic) }
            let two = devices.spawn { try await peripheral.readValue(for: dynamic) }
            #expect(try await one.value == value)
            #expect(try await two.value == value)
            // Read, Read Blob (§4.8.3) of one read, then of the other: not Read, Read, Blob, Blob.
            #expect(try await answering.value == [0, 246, 0, 246])
        }
    }

    @Test(
        "notifications(for:) listens before writing the CCCD: a value sent the moment the peer sees the subscription arrives"
    )
    func atomicSubscribe() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stream = try #require(characteristics[Fixture.streamUUID])
            let manager = devices.peripheralManager
            let managerEvents = manager.events
            let notifying = devices.spawn {
                for await event in managerEvents {
                    guard case .subscribed(_, let characteristic) = event else { continue }
                    // At once, before the central has read the Write Response.
                    _ = try await manager.updateValue([0x01], for: characteristic)
                    _ = try await manager.updateValue([0x02], for: characteristic)
                    return
                }
            }
            let values = try await peripheral.notifications(for: stream)
            try await notifying.value
            var iterator = values.makeAsyncIterator()
            #expect(await iterator.next() == [0x01])
            #expect(await iterator.next() == [0x02])
            let snapshot = await peripheral.services?.first?.characteristics?.first { $0.uuid == Fixture.streamUUID }
            #expect(snapshot?.isNotifying == true)
        }
    }

    @Test("notifications(for:) on a characteristic that cannot notify throws and subscribes nothing")
    func subscribeRefused() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stored = try #require(characteristics[Fixture.storedUUID])
            await #expect(throws: BLEError.propertyNotSupported(required: [.notify, .indicate])) {
                _ = try await peripheral.notifications(for: stored)
            }
        }
    }
}
