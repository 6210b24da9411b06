import BLE
import BLECompanion
import BLEDevices
import BLESimulation

/// A virtual headset and a phone (a central with a `DeviceLink`) on one virtual radio; the
/// phone finds the headset by the MAC address in its manufacturer data.
struct HeadsetOTASetup: Sendable {
    let simulation: Simulation
    let headset: VirtualHeadset
    let central: CentralManager

    /// Runs `body` on a fresh radio with a headset configured so; closes everything after.
    static func run<T: Sendable>(
        _ configuration: VirtualHeadsetConfiguration = VirtualHeadsetConfiguration(),
        storage: any FlashStorage = MemoryFlashStorage(),
        centralController: VirtualController.Configuration = .init(), centralHost: HostConfiguration = .init(),
        _ body: @escaping @Sendable (HeadsetOTASetup) async throws -> T
    ) async throws -> T {
        let radio = VirtualRadio()
        let simulation = radio.simulation
        return try await simulation.run {
            let headset = try await VirtualHeadset.start(on: radio, configuration: configuration, storage: storage)
            let central = await CentralManager(
                radio: .virtual(radio, position: AirPosition(x: 2, y: 0, z: 0), controller: centralController),
                configuration: centralHost)
            try await central.powerOn()
            let setup = HeadsetOTASetup(simulation: simulation, headset: headset, central: central)
            do {
                let result = try await body(setup)
                await setup.close()
                return result
            } catch {
                await setup.close()
                throw error
            }
        }
    }

    func close() async {
        await central.close()
        await headset.stop()
        await headset.manager.close()
    }

    /// Scans for the headset service until an advertiser carries `mac` in its manufacturer data,
    /// connects and opens the protocol link.
    func connect(
        mac: BluetoothAddress = BluetoothAddress(0x0000_5E00_5340), options: ConnectOptions = ConnectOptions()
    ) async throws -> DeviceLink<HeadsetProtocol> {
        let discoveries = try await central.scanForPeripherals(withServices: [HeadsetProtocol.serviceUUID])
        var found: Peripheral?
        for await discovery in discoveries
        where VirtualHeadsetConfiguration.macAddress(in: discovery.advertisementData.manufacturerData) == mac {
            found = discovery.peripheral
            break
        }
        await central.stopScan()
        guard let found else { throw TestFailure("the headset was not found") }
        try await central.connect(found, options: options)
        return try await DeviceLink.open(found, speaking: HeadsetProtocol.self, configuration: .virtual(simulation))
    }

    /// A target on a fresh link that reconnects the same way after a loss.
    func target(reconnects: Bool = true) async throws -> HeadsetOTATarget {
        let link = try await connect()
        var reconnect: HeadsetOTATarget.Reconnect?
        if reconnects { reconnect = { @Sendable in try await self.connect() } }
        return HeadsetOTATarget(link: link, taskExecutor: simulation.executor, reconnect: reconnect)
    }

    /// Runs one engine to its end.
    func update(
        _ image: FirmwareImage, target: HeadsetOTATarget, configuration: OTAConfiguration = .init()
    ) async -> OTAOutcome {
        await OTAEngine(image: image, target: target, configuration: configuration, clock: simulation.clock).run()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
