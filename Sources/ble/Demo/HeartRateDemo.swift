import BLE
import BLEWire
import BLEHost
import BLESimulation
import BLETransport

/// The demo's story, told through swift-ble's public API: a heart-rate sensor (a
/// `PeripheralManager`) advertises; a phone (a `CentralManager`) scans, connects, discovers,
/// reads, subscribes, receives measurements, writes the control point, disconnects. Underneath,
/// everything crosses HCI as H4 bytes and the virtual air as timed link-layer packets.
enum HeartRateDemo {
    static let heartRate = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)
    static let bodySensorLocation = BluetoothUUID(0x2A38)
    static let controlPoint = BluetoothUUID(0x2A39)
    static let battery = BluetoothUUID(0x180F)
    static let batteryLevel = BluetoothUUID(0x2A19)

    /// Runs the story; with `capturePath`, the phone's HCI traffic goes to a btsnoop file there.
    /// - Parameter phoneHost: the phone's host settings (its logger: `ble demo --log-level`).
    static func run(capturePath: String? = nil, phoneHost: HostConfiguration = HostConfiguration()) async throws {
        let stage = try DemoStage(capturePath: capturePath)
        let (radio, phoneRadio, log) = (stage.radio, stage.phoneRadio, stage.log)
        let ((), wall) = try await stage.perform(
            banner: "a heart-rate sensor and a phone, each a swift-ble host on its own virtual\ncontroller, "
        ) {
            try await story(radio: radio, phoneRadio: phoneRadio, phoneHost: phoneHost, log: log)
        }
        print(
            "\nDone: \(format(seconds(VirtualInstant.zero.duration(to: radio.simulation.now)))) s of virtual time in "
                + "\(format(seconds(wall), digits: 3)) s of wall time.")
        try stage.finishCapture()
    }

    private static func story(
        radio: VirtualRadio, phoneRadio: Radio, phoneHost: HostConfiguration, log: StoryLog
    ) async throws {
        let simulation = radio.simulation
        let sensor = try await PeripheralManager(
            radio: .virtual(radio), gap: GAPServiceConfiguration(deviceName: "HRS-1", appearance: 0x0341))
        let phone = await CentralManager(radio: phoneRadio, configuration: phoneHost)
        try await sensor.powerOn()
        try await phone.powerOn()

        try await sensor.add(
            MutableService(
                uuid: heartRate,
                characteristics: [
                    MutableCharacteristic(uuid: measurement, properties: .notify, permissions: [], value: .dynamic),
                    MutableCharacteristic(
                        uuid: bodySensorLocation, properties: .read, permissions: .readable, value: .stored([0x01])),
                    MutableCharacteristic(
                        uuid: controlPoint, properties: .write, permissions: .writeable, value: .dynamic),
                ]))
        try await sensor.add(
            MutableService(
                uuid: battery,
                characteristics: [
                    MutableCharacteristic(
                        uuid: batteryLevel, properties: .read, permissions: .readable, value: .stored([87]))
                ]))
        try await sensor.startAdvertising(AdvertisementData(localName: "HRS-1", serviceUUIDs: [heartRate, battery]))
        log.say("sensor: advertising \"HRS-1\" (Heart Rate, Battery)")

        log.say("phone: scanning for Heart Rate")
        var discoveries = try await phone.scanForPeripherals(withServices: [heartRate]).makeAsyncIterator()
        guard let discovery = await discoveries.next() else { return }
        await phone.stopScan()
        let peripheral = discovery.peripheral
        log.say(
            "phone: found \"\(discovery.advertisementData.localName ?? "?")\", RSSI \(discovery.rssi) dBm, "
                + "identifier \(peripheral.identifier)")

        var phoneEvents = phone.events.makeAsyncIterator()
        var sensorEvents = sensor.events.makeAsyncIterator()
        try await phone.connect(peripheral)
        log.say("phone: connected, ATT MTU \(await peripheral.mtu)")

        var characteristics: [BluetoothUUID: Characteristic] = [:]
        let services = try await peripheral.discoverServices()
        for service in services {
            for characteristic in try await peripheral.discoverCharacteristics(for: service) {
                characteristics[characteristic.uuid] = characteristic
            }
        }
        log.say("phone: discovered " + services.map { name(of: $0.uuid) }.joined(separator: ", "))
        if let location = characteristics[bodySensorLocation] {
            let value = try await peripheral.readValue(for: location)
            log.say("phone: body sensor location: \(value.first == 1 ? "chest" : "other (\(Hex.string(value)))")")
        }
        if let level = characteristics[batteryLevel] {
            let value = try await peripheral.readValue(for: level)
            log.say("phone: battery level \(value.first.map(String.init) ?? "?") %")
        }

        guard let measurementCharacteristic = characteristics[measurement] else { return }
        let values = try await peripheral.values(for: measurementCharacteristic)
        try await peripheral.setNotifyValue(true, for: measurementCharacteristic)
        var subscribed: Characteristic?
        while subscribed == nil, let event = await sensorEvents.next() {
            if case .subscribed(_, let characteristic) = event { subscribed = characteristic }
        }
        guard let published = subscribed else { return }
        log.say("phone: subscribed to Heart Rate Measurement")

        // The sensor notifies a measurement every second; the phone prints them as they come.
        let beats: [UInt8] = [72, 74, 77, 75, 73]
        let clock = simulation.clock
        let notifier = Task(executorPreference: simulation.executor) {
            for bpm in beats {
                try await clock.sleep(for: .seconds(1))
                // Flags 0x00: an 8-bit heart rate value (Heart Rate Service §3.1).
                _ = try await sensor.updateValue([0x00, bpm], for: published)
            }
        }
        var received = 0
        for await value in values where value.count >= 2 {
            log.say("phone: heart rate \(value[1]) bpm")
            received += 1
            if received == beats.count { break }
        }
        try await notifier.value

        if let point = characteristics[controlPoint] {
            let accepting = Task(executorPreference: simulation.executor) {
                for await requests in sensor.writeRequests {
                    guard let request = requests.first else { continue }
                    log.say("sensor: control point written \(Hex.string(request.value ?? [])) → accepted")
                    await sensor.respond(to: request, withResult: .success)
                    return
                }
            }
            try await peripheral.writeValue([0x01], for: point, type: .withResponse)
            await accepting.value
            log.say("phone: control point write acknowledged")
        }

        await phone.cancelPeripheralConnection(peripheral)
        var reasons: [String] = []
        while reasons.isEmpty, let event = await phoneEvents.next() {
            if case .disconnected(_, let reason) = event { reasons.append("phone sees \(reason)") }
        }
        while reasons.count < 2, let event = await sensorEvents.next() {
            if case .disconnected(_, let reason) = event { reasons.append("sensor sees \(reason)") }
        }
        log.say("disconnected: " + reasons.joined(separator: "; "))
        await phone.close()
        await sensor.close()
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

/// What both stories run on: one virtual air, the phone's radio on it (its HCI traffic captured
/// when asked), and the log.
struct DemoStage {
    let radio = VirtualRadio()
    let phoneRadio: Radio
    let log: StoryLog

    init(capturePath: String?) throws {
        phoneRadio = try Radio.virtual(radio, position: AirPosition(x: 3, y: 0, z: 0)).capturing(toFile: capturePath)
        log = StoryLog(simulation: radio.simulation)
    }

    /// Prints the demo's banner ("swift-ble demo — ", `banner`, then the air it runs on), then runs
    /// `story` on the simulation; returns its result and the wall time it took.
    func perform<Result: Sendable>(
        banner: String, _ story: @escaping @Sendable () async throws -> Result
    ) async throws -> (Result, Duration) {
        let wallStart = ContinuousClock.now
        print("swift-ble demo — \(banner)on one virtual air (air-time model, virtual clock). Times are virtual.\n")
        let result = try await radio.simulation.run(story)
        return (result, wallStart.duration(to: .now))
    }

    /// Closes the phone's capture, if any, and says where it went.
    func finishCapture() throws {
        guard let capture = phoneRadio.capture else { return }
        if let error = capture.close() { throw error }
        print("Captured the phone's HCI traffic: \(capture.recordCount) packets in \(capture.path) (btsnoop).")
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
