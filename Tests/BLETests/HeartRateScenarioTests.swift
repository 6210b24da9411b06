import BLE
import BLEController
import BLEHost
import BLESimulation
import BLEWire
import Testing

/// `ble demo` through the public API only: a heart-rate sensor (a peripheral manager) and a
/// phone (a central manager) on one virtual radio.
@Suite("Scenario: the heart-rate demo through the public API")
struct HeartRateScenarioTests {
    static let heartRate = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)
    static let bodySensorLocation = BluetoothUUID(0x2A38)
    static let controlPoint = BluetoothUUID(0x2A39)
    static let battery = BluetoothUUID(0x180F)
    static let batteryLevel = BluetoothUUID(0x2A19)

    @Test("Advertise, scan by service, connect, discover, read, subscribe, receive 5 measurements, write, disconnect")
    func heartRate() async throws {
        let radio = VirtualRadio()
        let simulation = radio.simulation
        try await simulation.run {
            let sensor = try await PeripheralManager(
                radio: .virtual(radio), gap: GAPServiceConfiguration(deviceName: "HRS-1", appearance: 0x0341))
            let phone = await CentralManager(radio: .virtual(radio, position: AirPosition(x: 3, y: 0, z: 0)))
            try await sensor.powerOn()
            try await phone.powerOn()

            // The sensor publishes Heart Rate and Battery and advertises them.
            try await sensor.add(
                MutableService(
                    uuid: Self.heartRate,
                    characteristics: [
                        MutableCharacteristic(
                            uuid: Self.measurement, properties: .notify, permissions: [], value: .dynamic),
                        MutableCharacteristic(
                            uuid: Self.bodySensorLocation, properties: .read, permissions: .readable,
                            value: .stored([0x01])),
                        MutableCharacteristic(
                            uuid: Self.controlPoint, properties: .write, permissions: .writeable, value: .dynamic),
                    ]))
            try await sensor.add(
                MutableService(
                    uuid: Self.battery,
                    characteristics: [
                        MutableCharacteristic(
                            uuid: Self.batteryLevel, properties: .read, permissions: .readable, value: .stored([87]))
                    ]))
            try await sensor.startAdvertising(
                AdvertisementData(localName: "HRS-1", serviceUUIDs: [Self.heartRate, Self.battery]))

            // The phone scans for Heart Rate and connects to what it finds.
            var discoveries = try await phone.scanForPeripherals(withServices: [Self.heartRate]).makeAsyncIterator()
            let discovery = try #require(await discoveries.next())
            await phone.stopScan()
            #expect(discovery.advertisementData.localName == "HRS-1")
            #expect(discovery.advertisementData.serviceUUIDs == [Self.heartRate, Self.battery])
            let peripheral = discovery.peripheral
            var phoneEvents = phone.events.makeAsyncIterator()
            var sensorEvents = sensor.events.makeAsyncIterator()
            try await phone.connect(peripheral)
            #expect(await peripheral.state == .connected)
            #expect(await peripheral.mtu == 247)

            // Discover everything, then read the body sensor location and the battery level.
            let services = try await peripheral.discoverServices()
            #expect(services.map(\.uuid) == [0x1800, 0x1801, Self.heartRate, Self.battery])
            var characteristics: [BluetoothUUID: Characteristic] = [:]
            for service in services {
                for characteristic in try await peripheral.discoverCharacteristics(for: service) {
                    characteristics[characteristic.uuid] = characteristic
                }
            }
            let location = try #require(characteristics[Self.bodySensorLocation])
            #expect(try await peripheral.readValue(for: location) == [0x01])
            let level = try #require(characteristics[Self.batteryLevel])
            #expect(try await peripheral.readValue(for: level) == [87])
            let deviceName = try #require(characteristics[0x2A00])
            #expect(try await peripheral.readValue(for: deviceName) == Array("HRS-1".utf8))

            // Subscribe to measurements; the sensor notifies one a second (virtual time).
            let measurement = try #require(characteristics[Self.measurement])
            let values = try await peripheral.values(for: measurement)
            try await peripheral.setNotifyValue(true, for: measurement)
            var subscribed: Characteristic?
            while subscribed == nil, let event = await sensorEvents.next() {
                if case .subscribed(_, let characteristic) = event { subscribed = characteristic }
            }
            let published = try #require(subscribed)
            let beats: [UInt8] = [72, 74, 77, 75, 73]
            let clock = simulation.clock
            let notifier = Task(executorPreference: simulation.executor) {
                for bpm in beats {
                    try await clock.sleep(for: .seconds(1))
                    // Flags 0x00: an 8-bit heart rate value (Heart Rate Service §3.1).
                    #expect(try await sensor.updateValue([0x00, bpm], for: published))
                }
            }
            var received: [UInt8] = []
            var arrivals: [VirtualInstant] = []
            for await value in values {
                received.append(value[1])
                arrivals.append(simulation.now)
                if received.count == beats.count { break }
            }
            try await notifier.value
            #expect(received == beats)
            for (earlier, later) in zip(arrivals, arrivals.dropFirst()) {
                let gap = earlier.duration(to: later)
                #expect(gap > .milliseconds(900) && gap < .milliseconds(1100))
            }

            // Write the control point; the sensor's app accepts it.
            let point = try #require(characteristics[Self.controlPoint])
            let accepting = Task(executorPreference: simulation.executor) { () -> [UInt8] in
                for await requests in sensor.writeRequests {
                    await sensor.respond(to: requests[0], withResult: .success)
                    return requests[0].value ?? []
                }
                return []
            }
            try await peripheral.writeValue([0x01], for: point, type: .withResponse)
            #expect(await accepting.value == [0x01])

            // Disconnect: the phone sees 0x16, the sensor the reason sent (0x13).
            await phone.cancelPeripheralConnection(peripheral)
            var phoneReason: HCIStatus?
            while phoneReason == nil, let event = await phoneEvents.next() {
                if case .disconnected(_, let reason) = event { phoneReason = reason }
            }
            var sensorReason: HCIStatus?
            while sensorReason == nil, let event = await sensorEvents.next() {
                if case .disconnected(_, let reason) = event { sensorReason = reason }
            }
            #expect(phoneReason == .connectionTerminatedByLocalHost)
            #expect(sensorReason == .remoteUserTerminatedConnection)
            #expect(await peripheral.state == .disconnected)
            await phone.close()
            await sensor.close()
        }
    }
}
