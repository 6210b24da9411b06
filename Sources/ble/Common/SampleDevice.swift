import BLE
import BLEHost

/// A built-in device of the virtual neighbourhood: what it publishes and advertises, and how it
/// behaves — values it sends subscribers every second of virtual time, writes it refuses.
struct SampleDevice: Sendable {
    var name: String
    /// Its fixed public address (IANA's documentation range 00:00:5E:00:53:xx), so that
    /// examples and tests can name it.
    var address: BluetoothAddress
    var position: AirPosition
    /// GAP Appearance (Assigned Numbers §2.6).
    var appearance: UInt16 = 0
    var services: [MutableService]
    var advertisement: AdvertisementData
    /// The value sent to subscribers of a characteristic at the n-th second.
    var updates: [BluetoothUUID: @Sendable (Int) -> [UInt8]] = [:]
    /// The answer to a write of a characteristic (or to a read of a dynamic one, with no
    /// value); `.success` unless told otherwise.
    var checkWrite: @Sendable (BluetoothUUID, [UInt8]) -> ATTResult = { _, _ in .success }
    /// A PSM on which it sends every SDU back (`ble l2cap connect`), if any.
    var echoPSM: L2CAPPSM?
}

/// A sample device at work: its peripheral manager and the tasks that answer for it.
final class RunningSampleDevice: Sendable {
    let device: SampleDevice
    let manager: PeripheralManager
    private let tasks: [Task<Void, Never>]

    private init(device: SampleDevice, manager: PeripheralManager, tasks: [Task<Void, Never>]) {
        self.device = device
        self.manager = manager
        self.tasks = tasks
    }

    /// Publishes the device's services, starts advertising and starts answering requests.
    static func start(_ device: SampleDevice, on radio: VirtualRadio) async throws -> RunningSampleDevice {
        let manager = try await PeripheralManager(
            radio: .virtual(
                radio, position: device.position,
                controller: VirtualController.Configuration(publicAddress: device.address)),
            gap: GAPServiceConfiguration(deviceName: device.name, appearance: device.appearance))
        try await manager.powerOn()
        var published: [Characteristic] = []
        for service in device.services {
            published += try await manager.add(service).characteristics ?? []
        }
        try await manager.startAdvertising(device.advertisement)
        let executor = radio.simulation.executor
        let clock = radio.simulation.clock
        let writes = Task(executorPreference: executor) {
            for await requests in manager.writeRequests {
                guard let first = requests.first else { continue }
                let result = device.checkWrite(first.characteristic.uuid, first.value ?? [])
                await manager.respond(to: first, withResult: result)
            }
        }
        let reads = Task(executorPreference: executor) {
            for await request in manager.readRequests {
                await manager.respond(to: request, withResult: .error(.readNotPermitted))
            }
        }
        let updated = published.filter { device.updates[$0.uuid] != nil }
        let ticker = Task(executorPreference: executor) {
            var tick = 0
            while (try? await clock.sleep(for: .seconds(1))) != nil {
                tick += 1
                for characteristic in updated {
                    guard let value = device.updates[characteristic.uuid]?(tick) else { continue }
                    _ = try? await manager.updateValue(value, for: characteristic)
                }
            }
        }
        var tasks = [writes, reads, ticker]
        if let psm = device.echoPSM {
            let channels = await manager.incomingL2CAPChannels()
            _ = try await manager.publishL2CAPChannel(withEncryption: false, psm: psm)
            tasks.append(
                Task(executorPreference: executor) {
                    for await channel in channels {
                        Task(executorPreference: executor) {
                            for await sdu in channel.incoming { try? await channel.write(sdu) }
                        }
                    }
                })
        }
        return RunningSampleDevice(device: device, manager: manager, tasks: tasks)
    }

    /// Stops answering; the manager goes when the last reference does.
    func stop() {
        for task in tasks { task.cancel() }
    }
}
