import BLE
import BLECompanion
import Testing

@Suite("Device protocol over a characteristic pair on the virtual radio")
struct DeviceLinkTests {
    @Test("Headset protocol v1 end to end: headset events reach the app in order; a request is answered")
    func eventsAndRequest() async throws {
        try await HeadsetPair.run { pair in
            let events: [HeadsetDeviceMessage] = [
                .proximity(.near), .gesture(.tap), .audioJack(.pluggedIn), .volume(40), .gesture(.backLongPress),
                .heartbeat(1), .openCamera, .battery(87),
            ]
            var incoming = pair.phone.incoming.makeAsyncIterator()
            let responder = pair.spawn {
                for await item in pair.headset.incoming {
                    guard case .request(let message, let id) = item.message else { continue }
                    let answer: HeadsetDeviceMessage =
                        message == .firmwareVersionQuery ? .firmwareVersion("1.2.3") : .otaResult(.failure)
                    try await pair.headset.respond(to: id, with: answer)
                }
            }
            for event in events { try await pair.headset.send(event) }
            var received: [HeadsetDeviceMessage] = []
            while received.count < events.count, let item = await incoming.next() {
                if case .event(let message) = item { received.append(message) }
            }
            #expect(received == events)
            let start = pair.simulation.now
            #expect(try await pair.phone.request(.firmwareVersionQuery) == .firmwareVersion("1.2.3"))
            #expect(start.duration(to: pair.simulation.now) > .zero)
            let phone = await pair.phone.statistics
            #expect(phone.framesReceived == events.count + 1)
            #expect(phone.framesRejected == 0 && phone.octetsDiscarded == 0 && phone.timeouts == 0)
            responder.cancel()
        }
    }

    @Test(
        "Back-pressure over the air: many messages both ways, none lost, in order, writers waited for room",
        arguments: [23, 247])
    func backPressure(mtu: Int) async throws {
        try await HeadsetPair.run(mtu: mtu) { pair in
            let mtuNow = await pair.phone.peripheral.mtu
            #expect(mtuNow == mtu)
            let packetLength = HeadsetProtocol.maximumOTADataLength(forATTMTU: 247)
            let packetCount = 200
            let packets = (0..<packetCount).map { number in
                HeadsetProtocol.OTAData(
                    packet: UInt16(number), data: (0..<packetLength).map { UInt8(truncatingIfNeeded: $0 &+ number) })
            }
            let collector = pair.spawn {
                var received: [HeadsetProtocol.OTAData] = []
                for await item in pair.headset.incoming {
                    if case .event(.otaData(let packet)) = item.message { received.append(packet) }
                    if received.count == packetCount { break }
                }
                return received
            }
            var incoming = pair.phone.incoming.makeAsyncIterator()
            let ticks = pair.spawn {
                for count in 0..<300 { try await pair.headset.send(.heartbeat(UInt32(count))) }
            }
            for packet in packets { try await pair.phone.send(.otaData(packet)) }
            var heartbeats: [UInt32] = []
            while heartbeats.count < 300, let item = await incoming.next() {
                if case .event(.heartbeat(let count)) = item { heartbeats.append(count) }
            }
            try await ticks.value
            let received = try await collector.value
            #expect(received == packets)
            #expect(received.allSatisfy { CRC32.checksum($0.data) == $0.crc32 })
            #expect(heartbeats == Array(0..<300))
            let phone = await pair.phone.statistics
            #expect(phone.framesSent == packetCount)
            #expect(phone.flowControlWaits > 0)
            let centrals = await pair.headset.subscribedCentrals
            let subscriber = try #require(centrals.first)
            let headset = try #require(await pair.headset.statistics(of: subscriber))
            #expect(headset.framesSent == 300 && headset.framesReceived == packetCount)
            #expect(headset.flowControlWaits > 0)
            #expect(headset.framesRejected == 0 && phone.framesRejected == 0)
            if mtu == 23 {
                // Every packet's frame spans several 20-octet Write Commands.
                #expect(phone.chunksSent == packetCount * ((packetLength + 14 + 19) / 20))
            }
        }
    }

    @Test("The link closes when the peripheral disconnects: waiting requests throw linkClosed")
    func disconnectCloses() async throws {
        try await HeadsetPair.run { pair in
            let waiting = pair.spawn { try await pair.phone.request(.firmwareVersionQuery, timeout: .seconds(10)) }
            try await pair.simulation.clock.sleep(for: .milliseconds(50))
            await pair.central.cancelPeripheralConnection(pair.phone.peripheral)
            await #expect(throws: DeviceProtocolError.linkClosed) { try await waiting.value }
            await #expect(throws: DeviceProtocolError.linkClosed) { try await pair.phone.send(.otaAbort) }
        }
    }

    @Test("Opening a link on a peripheral without the protocol's service is a typed error")
    func missingService() async throws {
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let manager = try await PeripheralManager(radio: .virtual(radio))
            let central = await CentralManager(radio: .virtual(radio, position: AirPosition(x: 1, y: 0, z: 0)))
            try await manager.powerOn()
            try await central.powerOn()
            try await manager.startAdvertising(AdvertisementData(localName: "other"))
            var discoveries = try await central.scanForPeripherals(withServices: nil).makeAsyncIterator()
            guard let found = await discoveries.next() else { throw TestFailure("no discovery") }
            await central.stopScan()
            try await central.connect(found.peripheral)
            await #expect(throws: DeviceProtocolError.serviceNotFound(HeadsetProtocol.serviceUUID)) {
                try await DeviceLink.open(
                    found.peripheral, speaking: HeadsetProtocol.self, configuration: .virtual(radio.simulation))
            }
            await central.close()
            await manager.close()
        }
    }
}
