import BLEController
import BLEHost
import BLETransport
import BLEWire
import Synchronization

/// The demo's story: a heart-rate sensor advertises; a phone scans, connects, discovers,
/// reads, subscribes, receives measurements, writes the control point, disconnects. Everything
/// crosses HCI as H4 bytes and the virtual air as timed link-layer packets.
enum HeartRateDemo {
    static let heartRate = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)
    static let bodySensorLocation = BluetoothUUID(0x2A38)
    static let controlPoint = BluetoothUUID(0x2A39)
    static let battery = BluetoothUUID(0x180F)
    static let batteryLevel = BluetoothUUID(0x2A19)

    static func run() async throws {
        let radio = VirtualRadio()
        let sensorPort = await radio.addController(at: .origin)
        let phonePort = await radio.addController(at: AirPosition(x: 3, y: 0, z: 0))
        let simulation = radio.simulation
        let log = StoryLog(simulation: simulation)
        let wallStart = ContinuousClock.now
        let sensor = Host(
            transport: PipeTransport.attached(to: sensorPort), clock: simulation.clock, executor: simulation.executor)
        let phone = Host(
            transport: PipeTransport.attached(to: phonePort), clock: simulation.clock, executor: simulation.executor)

        print("swift-ble demo — a heart-rate sensor and a phone, each a swift-ble host on its own virtual")
        print("controller, on one virtual air (air-time model, virtual clock). Times are virtual.\n")
        try await simulation.run {
            try await story(sensor: sensor, phone: phone, log: log)
            await phone.stop()
            await sensor.stop()
        }
        let wall = wallStart.duration(to: .now)
        print(
            "\nDone: \(format(seconds(elapsed(simulation)))) s of virtual time in "
                + "\(format(seconds(wall), digits: 3)) s of wall time.")
    }

    private static func elapsed(_ simulation: Simulation) -> Duration {
        VirtualInstant.zero.duration(to: simulation.now)
    }

    private static func story(sensor: Host, phone: Host, log: StoryLog) async throws {
        let simulation = log.simulation
        // The sensor: a GATT database and its advertising.
        let database = try AttributeDatabase(
            gap: GAPServiceConfiguration(deviceName: "HRS-1", appearance: 0x0341),
            services: [
                GATTService(
                    uuid: heartRate,
                    characteristics: [
                        GATTCharacteristic(uuid: measurement, properties: [.notify], permissions: [], value: .dynamic),
                        GATTCharacteristic(
                            uuid: bodySensorLocation, properties: [.read], permissions: .readable, value: .stored([0x01])),
                        GATTCharacteristic(
                            uuid: controlPoint, properties: [.write], permissions: .writeable, value: .dynamic),
                    ]),
                GATTService(
                    uuid: battery,
                    characteristics: [
                        GATTCharacteristic(
                            uuid: batteryLevel, properties: [.read], permissions: .readable, value: .stored([87]))
                    ]),
            ])
        let server = GATTServerHandler(server: GATTServer(database: database))
        server.setWriteHandler { request in
            log.say("sensor: control point written \(Hex.string(request.writes.first?.value ?? [])) → accepted")
            return .success
        }
        await sensor.setATTServer(server)
        var sensorEvents = sensor.events.makeAsyncIterator()
        var phoneEvents = phone.events.makeAsyncIterator()
        try await sensor.start()
        try await phone.start()

        var advertising = AdvertisingDataBuilder()
        try advertising.append(.flags([.leGeneralDiscoverable, .brEdrNotSupported]))
        try advertising.append(.serviceUUIDs(complete: true, [heartRate, battery]))
        try advertising.appendLocalName("HRS-1")
        let advertisingData = try advertising.build(limit: .legacy)
        try await sensor.send(HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0xA0, advertisingIntervalMax: 0xA0))
        try await sensor.send(HCI.LESetAdvertisingData(advertisingData: advertisingData.encoded))
        try await sensor.send(HCI.LESetAdvertisingEnable(advertisingEnable: true))
        log.say("sensor: advertising \"HRS-1\" (Heart Rate, Battery) every 100 ms")

        // The phone scans until it sees a device offering Heart Rate.
        try await phone.send(HCI.LESetScanParameters(leScanType: .active, leScanInterval: 0x60, leScanWindow: 0x30))
        try await phone.send(HCI.LESetScanEnable(leScanEnable: true, filterDuplicates: true))
        log.say("phone: scanning")
        var found: LEMetaEvent.AdvertisingReport.Report?
        while found == nil, let event = await phoneEvents.next() {
            guard case .advertisingReport(let report) = event,
                let data = try? AdvertisingData(decoding: report.data), data.serviceUUIDs.contains(heartRate)
            else { continue }
            found = report
            log.say("phone: found \"\(data.localName ?? "?")\" at \(report.address.address), RSSI \(report.rssi) dBm")
        }
        guard let target = found else { return }
        try await phone.send(HCI.LESetScanEnable(leScanEnable: false))
        try await phone.send(
            HCI.LECreateConnection(
                leScanInterval: 0x60, leScanWindow: 0x60, peerAddressType: target.address.type,
                peerAddress: target.address.address,
                connectionParameters: HCI.ConnectionParameters(
                    connectionIntervalMin: 24, connectionIntervalMax: 24, supervisionTimeout: 400)))
        log.say("phone: connecting (interval 30 ms)")
        let handle = try await nextConnection(&phoneEvents)
        let sensorHandle = try await nextConnection(&sensorEvents)
        log.say("connected: the phone is central, the sensor peripheral")

        let mtu = try await phone.exchangeMTU(on: handle)
        log.say("phone: ATT MTU \(mtu)")
        let client = GATTClient(bearer: HostATTBearer(host: phone, connection: handle))
        let services = try await client.discoverDatabase()
        log.say(
            "phone: discovered "
                + services.map { "\(name(of: $0.service.uuid)) (\($0.characteristics.count))" }.joined(separator: ", "))
        func characteristic(_ uuid: BluetoothUUID) -> GATTDatabaseCache.Characteristic? {
            services.flatMap(\.characteristics).first { $0.characteristic.uuid == uuid }
        }
        if let location = characteristic(bodySensorLocation) {
            let value = try await client.readValue(handle: location.characteristic.valueHandle)
            log.say("phone: body sensor location: \(value.first == 1 ? "chest" : "other (\(Hex.string(value)))")")
        }
        if let level = characteristic(batteryLevel) {
            let value = try await client.readValue(handle: level.characteristic.valueHandle)
            log.say("phone: battery level \(value.first.map(String.init) ?? "?") %")
        }
        guard let measurementCharacteristic = characteristic(measurement),
            let cccd = measurementCharacteristic.descriptors.first(where: { $0.uuid == 0x2902 })
        else { return }
        try await client.setNotifyValue(true, for: measurementCharacteristic.characteristic, descriptorHandle: cccd.handle)
        log.say("phone: subscribed to Heart Rate Measurement")

        // The sensor notifies a measurement every second; the phone prints them as they come.
        let valueHandle = measurementCharacteristic.characteristic.valueHandle
        let clock = simulation.clock
        let beats: [UInt8] = [72, 74, 77, 75, 73]
        let notifier = Task(executorPreference: simulation.executor) {
            for bpm in beats {
                try await clock.sleep(for: .seconds(1))
                // Flags 0x00: 8-bit heart rate value (Heart Rate Service §3.1).
                try await sensor.notify([0x00, bpm], attributeHandle: valueHandle, on: sensorHandle)
            }
        }
        var received = 0
        while received < beats.count, let event = await phoneEvents.next() {
            if case .notification(_, valueHandle, let value) = event, value.count >= 2 {
                received += 1
                log.say("phone: heart rate \(value[1]) bpm")
            }
        }
        try await notifier.value

        if let point = characteristic(controlPoint) {
            try await client.writeValue([0x01], handle: point.characteristic.valueHandle)
            log.say("phone: control point write acknowledged")
        }
        await phone.disconnect(handle)
        var reasons: [String] = []
        while reasons.count < 1, let event = await phoneEvents.next() {
            if case .disconnected(_, let reason) = event { reasons.append("phone sees \(reason)") }
        }
        while reasons.count < 2, let event = await sensorEvents.next() {
            if case .disconnected(_, let reason) = event { reasons.append("sensor sees \(reason)") }
        }
        log.say("disconnected: " + reasons.joined(separator: "; "))
    }

    static func nextConnection(_ events: inout AsyncStream<HostEvent>.Iterator) async throws -> UInt16 {
        while let event = await events.next() {
            if case .connected(let info) = event { return info.handle }
            if case .connectionFailed(let status) = event { throw HostError.commandFailed(HCI.LECreateConnection.opcode, status) }
        }
        throw HostError.stopped
    }

    static func name(of uuid: BluetoothUUID) -> String {
        switch uuid.uuid16 {
        case 0x1800: "Generic Access"
        case 0x1801: "Generic Attribute"
        case 0x180D: "Heart Rate"
        case 0x180F: "Battery"
        default: uuid.description
        }
    }

    static func seconds(_ duration: Duration) -> Double { Double(duration.nanosecondsClamped) / 1e9 }

    static func format(_ value: Double, digits: Int = 3) -> String {
        AirtimeBenchCommand.format(value, digits: digits)
    }
}

/// Prints story lines stamped with virtual time.
final class StoryLog: Sendable {
    let simulation: Simulation
    init(simulation: Simulation) { self.simulation = simulation }

    func say(_ line: String) {
        let seconds = Double(VirtualInstant.zero.duration(to: simulation.now).nanosecondsClamped) / 1e9
        let stamp = AirtimeBenchCommand.format(seconds, digits: 3)
        print("[\(String(repeating: " ", count: max(0, 8 - stamp.count)))\(stamp) s] \(line)")
    }
}
