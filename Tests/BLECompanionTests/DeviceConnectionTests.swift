import BLE
import BLECompanion
import BLESimulation
import BLETestSupport
import Testing

@Suite("Device protocol request/response correlation on the virtual clock")
struct DeviceConnectionTests {
    /// Answers every request the device end receives with `answer`, after `delay`.
    static func answer(
        _ loopback: Loopback, simulation: Simulation, delay: Duration = .zero,
        _ answer: @escaping @Sendable (HeadsetAppMessage) -> HeadsetDeviceMessage
    ) -> Task<Void, Never> {
        Task(executorPreference: simulation.executor) {
            for await incoming in loopback.device.incoming {
                guard case .request(let message, let id) = incoming else { continue }
                if delay > .zero { try? await simulation.clock.sleep(for: delay) }
                try? await loopback.device.respond(to: id, with: answer(message))
            }
        }
    }

    static func headsetAnswer(_ message: HeadsetAppMessage) -> HeadsetDeviceMessage {
        switch message {
        case .firmwareVersionQuery: .firmwareVersion("1.2.3")
        case .macAddressQuery: .macAddress(BluetoothAddress(0x0000_5E00_5310))
        case .otaStatusQuery: .otaStatus(.init(receivedBytes: 4096, nextPacket: 16))
        default: .otaResult(.failure)
        }
    }

    @Test("Correlation: concurrent requests answered in reverse order each get their own response")
    func outOfOrder() async throws {
        let simulation = Simulation()
        try await simulation.run {
            let loopback = Loopback(simulation: simulation, configuration: .virtual(simulation))
            // The device end holds the three requests, then answers the last first.
            let responder = Task(executorPreference: simulation.executor) {
                var held: [(HeadsetAppMessage, DeviceRequestID)] = []
                for await incoming in loopback.device.incoming {
                    guard case .request(let message, let id) = incoming else { continue }
                    held.append((message, id))
                    guard held.count == 3 else { continue }
                    for (message, id) in held.reversed() {
                        try? await loopback.device.respond(to: id, with: Self.headsetAnswer(message))
                    }
                    return held.map(\.1.sequence)
                }
                return []
            }
            async let version = loopback.app.request(.firmwareVersionQuery)
            async let address = loopback.app.request(.macAddressQuery)
            async let status = loopback.app.request(.otaStatusQuery)
            let answers = try await [version, address, status]
            #expect(
                answers == [
                    .firmwareVersion("1.2.3"), .macAddress(BluetoothAddress(0x0000_5E00_5310)),
                    .otaStatus(.init(receivedBytes: 4096, nextPacket: 16)),
                ])
            #expect(Set(await responder.value) == [1, 2, 3])
            #expect(await loopback.app.outstandingRequests == 0)
            #expect(await loopback.app.statistics.unexpectedResponses == 0)
            await loopback.app.close()
            await loopback.device.close()
        }
    }

    @Test("Correlation: a request times out on the virtual clock; its late response is counted and logged")
    func timeoutAndLateResponse() async throws {
        let simulation = Simulation()
        let log = LogRecorder()
        try await simulation.run {
            let configuration = DeviceLinkConfiguration.virtual(
                simulation, requestTimeout: .milliseconds(500), logger: log.logger())
            let loopback = Loopback(simulation: simulation, configuration: configuration)
            let responder = Self.answer(loopback, simulation: simulation, delay: .milliseconds(800), Self.headsetAnswer)
            let start = simulation.now
            await #expect(throws: DeviceProtocolError.timedOut(messageType: 0x81, sequence: 1)) {
                try await loopback.app.request(.firmwareVersionQuery)
            }
            #expect(start.duration(to: simulation.now) == .milliseconds(500))
            #expect(await loopback.app.statistics.timeouts == 1)
            try await simulation.clock.sleep(for: .milliseconds(400))
            var statistics = await loopback.app.statistics
            #expect(statistics.lateResponses == 1)
            #expect(statistics.unexpectedResponses == 0)
            // The next request takes a fresh sequence number and is answered in time.
            let answered = try await loopback.app.request(.otaStatusQuery, timeout: .seconds(1))
            #expect(answered == .otaStatus(.init(receivedBytes: 4096, nextPacket: 16)))
            statistics = await loopback.app.statistics
            #expect(statistics.timeouts == 1 && statistics.lateResponses == 1)
            #expect(log.lines(atLeast: .warning).count == 2)
            #expect(log.lines.contains { $0.message.contains("late response with sequence 1") })
            await loopback.app.close()
            await loopback.device.close()
            responder.cancel()
        }
    }

    @Test("Correlation: a response to no request, garbage, unknown and malformed frames are counted and logged")
    func badInputCounted() async throws {
        let simulation = Simulation()
        let log = LogRecorder()
        try await simulation.run {
            let loopback = Loopback(simulation: simulation, configuration: .virtual(simulation, logger: log.logger()))
            var events = loopback.app.incoming.makeAsyncIterator()
            await loopback.injectToApp(HeadsetDeviceMessage.volume(3).frame(.response, sequence: 42).encoded)
            await loopback.injectToApp([0x00, 0x01, 0x02])
            await loopback.injectToApp(DeviceFrame(kind: .event, messageType: 0x7E, payload: [9]).encoded)
            await loopback.injectToApp(DeviceFrame(kind: .event, messageType: 0x03, payload: [101]).encoded)
            var corrupted = HeadsetDeviceMessage.gesture(.tap).frame(.event).encoded
            corrupted[6] = 0x05
            await loopback.injectToApp(corrupted)
            try await loopback.device.send(.gesture(.swipeLeft))
            #expect(await events.next() == .event(.gesture(.swipeLeft)))
            let statistics = await loopback.app.statistics
            #expect(statistics.unexpectedResponses == 1)
            #expect(statistics.unknownMessages == 1)
            #expect(statistics.malformedMessages == 1)
            #expect(statistics.checksumFailures == 1)
            #expect(statistics.framesRejected == 1)
            #expect(statistics.octetsDiscarded == 3 + corrupted.count)
            #expect(statistics.framesReceived == 4)
            // One line each: the response, the garbage, the unknown type, the bad level, the CRC, and the
            // octets skipped after the bad frame's sync octet.
            #expect(log.lines(atLeast: .warning).count == 6)
            await loopback.app.close()
            await loopback.device.close()
        }
    }

    @Test("Correlation: a response that cannot be decoded fails its request with the decoding error")
    func undecodableResponse() async throws {
        let simulation = Simulation()
        try await simulation.run {
            let loopback = Loopback(simulation: simulation, configuration: .virtual(simulation))
            let responder = Task(executorPreference: simulation.executor) {
                for await incoming in loopback.device.incoming {
                    guard case .request(_, let id) = incoming else { continue }
                    await loopback.injectToApp(
                        DeviceFrame(kind: .response, messageType: 0x0B, sequence: id.sequence, payload: [9]).encoded)
                }
            }
            await #expect(
                throws: DeviceProtocolError.malformedPayload(
                    messageType: 0x0B, field: "result", problem: .invalidValue(9))
            ) {
                try await loopback.app.request(.otaCommit)
            }
            #expect(await loopback.app.statistics.malformedMessages == 1)
            await loopback.app.close()
            await loopback.device.close()
            responder.cancel()
        }
    }

    @Test("Correlation: closing fails waiting requests with linkClosed and ends the incoming stream")
    func closeFailsPending() async throws {
        let simulation = Simulation()
        try await simulation.run {
            let loopback = Loopback(simulation: simulation, configuration: .virtual(simulation))
            let waiting = Task(executorPreference: simulation.executor) {
                try await loopback.app.request(.firmwareVersionQuery)
            }
            try await simulation.clock.sleep(for: .milliseconds(10))
            #expect(await loopback.app.outstandingRequests == 1)
            await loopback.app.close()
            await #expect(throws: DeviceProtocolError.linkClosed) { try await waiting.value }
            var incoming = loopback.app.incoming.makeAsyncIterator()
            #expect(await incoming.next() == nil)
            await #expect(throws: DeviceProtocolError.linkClosed) { try await loopback.app.send(.otaAbort) }
            await loopback.device.close()
        }
    }
}
