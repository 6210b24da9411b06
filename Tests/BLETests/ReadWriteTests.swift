import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("Reading and writing through the public API (Core 5.4 Vol 3 Part G §4.8–§4.9, §4.12)")
struct ReadWriteTests {
    @Test("readValue of a stored value is answered by the server (§4.8.1)")
    func readStored() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stored = try #require(characteristics[Fixture.storedUUID])
            #expect(try await peripheral.readValue(for: stored) == [1, 2, 3])
            let snapshot = await peripheral.services?.first?.characteristics?.first { $0.uuid == Fixture.storedUUID }
            #expect(snapshot?.value == [1, 2, 3])
        }
    }

    @Test("readValue of a dynamic value goes to the app's read requests; a long one is read with Read Blob (§4.8.3)")
    func readDynamic() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let dynamic = try #require(characteristics[Fixture.dynamicUUID])
            let manager = devices.peripheralManager
            let long = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
            let answering = devices.spawn {
                var offsets: [Int] = []
                for await request in manager.readRequests {
                    offsets.append(request.offset)
                    #expect(request.characteristic.uuid == Fixture.dynamicUUID)
                    await manager.respond(to: request, withValue: offsets.count == 1 ? [7, 8] : long)
                    if offsets.count == 3 { break }
                }
                return offsets
            }
            #expect(try await peripheral.readValue(for: dynamic) == [7, 8])
            #expect(try await peripheral.readValue(for: dynamic) == long)
            // The second read: Read, then Read Blob at ATT_MTU − 1 = 246 after a full part; the
            // short part that answers it ends the procedure.
            #expect(try await answering.value == [0, 0, 246])
        }
    }

    @Test("A read the app answers with an error reaches the central as that ATT error")
    func readError() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let dynamic = try #require(characteristics[Fixture.dynamicUUID])
            let manager = devices.peripheralManager
            devices.spawn {
                for await request in manager.readRequests {
                    await manager.respond(to: request, withResult: .error(.insufficientAuthorization))
                    break
                }
            }
            await #expect(throws: BLEError.att(.insufficientAuthorization, handle: dynamic.handle)) {
                try await peripheral.readValue(for: dynamic)
            }
        }
    }

    @Test("writeValue with response: the app approves or refuses the write (§4.9.3)")
    func writeWithResponse() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let writeOnly = try #require(characteristics[Fixture.writeOnlyUUID])
            let manager = devices.peripheralManager
            let answering = devices.spawn {
                var values: [[UInt8]] = []
                for await requests in manager.writeRequests {
                    values.append(requests.compactMap(\.value).flatMap { $0 })
                    #expect(requests.allSatisfy { $0.characteristic.uuid == Fixture.writeOnlyUUID })
                    await manager.respond(
                        to: requests[0], withResult: values.count == 1 ? .success : .error(ATTErrorCode(0x80)))
                    if values.count == 2 { break }
                }
                return values
            }
            try await peripheral.writeValue([1, 2, 3], for: writeOnly, type: .withResponse)
            await #expect(throws: BLEError.att(ATTErrorCode(0x80), handle: writeOnly.handle)) {
                try await peripheral.writeValue([4], for: writeOnly, type: .withResponse)
            }
            #expect(try await answering.value == [[1, 2, 3], [4]])
        }
    }

    @Test("A value longer than ATT_MTU − 3 is written with Prepare and Execute Write (§4.9.4), one request")
    func writeLong() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let writeOnly = try #require(characteristics[Fixture.writeOnlyUUID])
            let manager = devices.peripheralManager
            let long = (0..<400).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let answering = devices.spawn { () -> [ATTRequest] in
                for await requests in manager.writeRequests {
                    await manager.respond(to: requests[0], withResult: .success)
                    return requests
                }
                return []
            }
            try await peripheral.writeValue(long, for: writeOnly, type: .withResponse)
            let requests = try await answering.value
            #expect(requests.count == 1)
            #expect(requests.first?.offset == 0)
            #expect(requests.first?.value == long)
        }
    }

    @Test("writeValue without response reaches the app as a request needing no answer (§4.9.1)")
    func writeWithoutResponse() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stream = try #require(characteristics[Fixture.streamUUID])
            let manager = devices.peripheralManager
            let receiving = devices.spawn { () -> [[UInt8]] in
                var values: [[UInt8]] = []
                for await requests in manager.writeRequests {
                    #expect(requests.allSatisfy { $0.isWriteWithoutResponse })
                    values += requests.compactMap(\.value)
                    if values.count == 3 { break }
                }
                return values
            }
            for index in 0..<3 {
                try await peripheral.writeValue([UInt8(index), 0xEE], for: stream, type: .withoutResponse)
            }
            #expect(try await receiving.value == [[0, 0xEE], [1, 0xEE], [2, 0xEE]])
        }
    }

    @Test("canSendWriteWithoutResponse is false with a full transmit queue; readiness is reported when room returns")
    func writeWithoutResponseReadiness() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stream = try #require(characteristics[Fixture.streamUUID])
            #expect(await peripheral.canSendWriteWithoutResponse)
            var events = await peripheral.events().makeAsyncIterator()
            let payload = [UInt8](repeating: 0x55, count: 244)
            // More writes than the controller's buffers and the host's queue hold: the rest wait.
            let writers = (0..<40).map { _ in
                devices.spawn { try await peripheral.writeValue(payload, for: stream, type: .withoutResponse) }
            }
            try await devices.sleep(for: .zero)
            #expect(await peripheral.canSendWriteWithoutResponse == false)
            guard case .readyToSendWriteWithoutResponse? = await events.next() else {
                Issue.record("no readiness event")
                return
            }
            for writer in writers { try await writer.value }
            // The last writes may fill the queue again (on a 2M / LL 251 link the controller
            // takes a whole queue per event and frees it at the event's end): room comes back
            // as they go out, and readiness says so.
            if !(await peripheral.canSendWriteWithoutResponse) {
                var ready = false
                while !ready, let event = await events.next() {
                    if case .readyToSendWriteWithoutResponse = event { ready = true }
                }
            }
            #expect(await peripheral.canSendWriteWithoutResponse)
        }
    }

    @Test("readValue and writeValue on descriptors; the Client Characteristic Configuration is setNotifyValue's")
    func descriptorValues() async throws {
        try await TwoDevices.run { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stream = try #require(characteristics[Fixture.streamUUID])
            let configuration = try #require(try await peripheral.discoverDescriptors(for: stream).first)
            #expect(try await peripheral.readValue(for: configuration) == [0, 0])
            await #expect(throws: BLEError.useSetNotifyValue) {
                try await peripheral.writeValue([1, 0], for: configuration)
            }
            try await peripheral.setNotifyValue(true, for: stream)
            #expect(try await peripheral.readValue(for: configuration) == [1, 0])
            let stored = try #require(characteristics[Fixture.storedUUID])
            let description = try #require(try await peripheral.discoverDescriptors(for: stored).first)
            // The user description is not writable (no writable auxiliaries): the server says so.
            await #expect(throws: BLEError.att(.writeNotPermitted, handle: description.handle)) {
                try await peripheral.writeValue(Array("new".utf8), for: description)
            }
        }
    }
}
