import BLE
import BLEHost
import BLECompanion
import BLESimulation

/// A headset (a `DeviceSideLink` on a peripheral manager) and a phone (a `DeviceLink` on a
/// central), each with its own controller on one virtual radio, connected and subscribed.
struct HeadsetPair: Sendable {
    let simulation: Simulation
    let manager: PeripheralManager
    let central: CentralManager
    let headset: DeviceSideLink<HeadsetProtocol>
    let phone: DeviceLink<HeadsetProtocol>

    /// Runs `body` on a fresh pair whose ATT_MTU is at most `mtu`; closes everything after.
    static func run<T: Sendable>(
        mtu: Int = 247, configure: @escaping @Sendable (Simulation) -> DeviceLinkConfiguration = { .virtual($0) },
        _ body: @escaping @Sendable (HeadsetPair) async throws -> T
    ) async throws -> T {
        let radio = VirtualRadio()
        let simulation = radio.simulation
        return try await simulation.run {
            var host = HostConfiguration()
            host.preferredATTMTU = mtu
            let manager = try await PeripheralManager(
                radio: .virtual(radio), configuration: host, gap: GAPServiceConfiguration(deviceName: "headset"))
            let central = await CentralManager(
                radio: .virtual(radio, position: AirPosition(x: 2, y: 0, z: 0)), configuration: host)
            try await manager.powerOn()
            try await central.powerOn()
            let configuration = configure(simulation)
            let headset = try await DeviceSideLink.publish(
                on: manager, speaking: HeadsetProtocol.self, configuration: configuration)
            var managerEvents = headset.managerEvents.makeAsyncIterator()
            try await manager.startAdvertising(
                AdvertisementData(localName: "headset", serviceUUIDs: [HeadsetProtocol.serviceUUID]))
            var discoveries = try await central.scanForPeripherals(withServices: [HeadsetProtocol.serviceUUID])
                .makeAsyncIterator()
            guard let found = await discoveries.next() else { throw TestFailure("the scan ended without a discovery") }
            await central.stopScan()
            try await central.connect(found.peripheral)
            let phone = try await DeviceLink.open(
                found.peripheral, speaking: HeadsetProtocol.self, configuration: configuration)
            // The headset has seen the subscription once its event comes out.
            while let event = await managerEvents.next() {
                if case .subscribed = event { break }
            }
            let pair = HeadsetPair(
                simulation: simulation, manager: manager, central: central, headset: headset, phone: phone)
            do {
                let result = try await body(pair)
                await pair.close()
                return result
            } catch {
                await pair.close()
                throw error
            }
        }
    }

    func close() async {
        await phone.close()
        await headset.close()
        await central.close()
        await manager.close()
    }

    /// Starts a task on the simulation.
    @discardableResult
    func spawn<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        Task(executorPreference: simulation.executor) { try await body() }
    }
}
