import BLE
import BLELocking
import BLEPhone
import BLESimulation
import Testing

/// A phone app that publishes a service and advertises it with a name, through the phone's
/// peripheral manager.
actor AdvertiserApp: PhoneApp {
    static let name = "Probe"
    nonisolated let context: AppContext
    let service: BluetoothUUID

    init(context: AppContext, service: BluetoothUUID) {
        self.context = context
        self.service = service
    }

    func didFinishLaunching(options: LaunchOptions) async {
        let manager = await context.peripheralManager()
        let service = self.service
        Task(executorPreference: context.executor) {
            for await event in manager.events {
                guard case .stateUpdated(.poweredOn) = event else { continue }
                do {
                    try await manager.add(
                        MutableService(
                            uuid: service,
                            characteristics: [
                                MutableCharacteristic(
                                    uuid: 0xFFF1, properties: [.read], permissions: [.readable], value: .stored([1]))
                            ]))
                    try await manager.startAdvertising(localName: Self.name, serviceUUIDs: [service])
                } catch {
                    continue
                }
            }
        }
    }
}

/// What a plain BLE scanner (not a phone) heard, with the virtual time of each.
final class Sniffer: Sendable {
    struct Heard: Sendable {
        var time: VirtualInstant
        var discovery: Discovery
    }

    let heard = Locked<[Heard]>([])

    /// Scans with `scanner` (every advertisement, duplicates too) until the task is cancelled.
    func start(_ scanner: CentralManager, on simulation: Simulation) async throws -> Task<Void, Never> {
        let discoveries = try await scanner.scanForPeripherals(
            withServices: nil, options: ScanOptions(allowDuplicates: true))
        let heard = self.heard
        return Task(executorPreference: simulation.executor) {
            for await discovery in discoveries {
                heard.withLock { $0.append(Heard(time: simulation.now, discovery: discovery)) }
            }
        }
    }
}

/// Background advertising of a `bluetooth-peripheral` app (Core Bluetooth Programming Guide,
/// "Core Bluetooth Background Processing for iOS Apps": in the background the local name is
/// not advertised and the service UUIDs go to the overflow area, which only an iOS device
/// scanning explicitly for them discovers).
@Suite("Phone end to end: background advertising")
struct AdvertisingE2ETests {
    static let service = BluetoothUUID(high: 0xA1B2_C3D4_0001_4000, low: 0x8000_0000_0000_0001)

    @Test(
        "In the background the name is gone and the UUID only in the overflow area; another phone's app scanning in front for that UUID finds it"
    )
    func backgroundAdvertisingReachesAnotherPhone() async throws {
        try await PhoneE2E.run(.ios17) { world in
            let advertiser = AppIdentifier("com.example.advertiser")
            let service = Self.service
            await world.phone.install(
                AppDeclaration(bundleIdentifier: advertiser.bundleIdentifier, backgroundModes: [.bluetoothPeripheral])
            ) { context in AdvertiserApp(context: context, service: service) }

            let sniffer = Sniffer()
            let scanner = await CentralManager(radio: .virtual(world.radio, position: AirPosition(x: 0, y: 3, z: 0)))
            try await scanner.powerOn()
            let reader = try await sniffer.start(scanner, on: world.simulation)

            await world.phone.open(advertiser)
            try await world.sleep(for: .seconds(3))
            let homeAt = world.simulation.now
            await world.phone.home()
            try await world.sleep(for: .seconds(5))

            // In front: the name and the service UUID.
            let heard = sniffer.heard.withLock { $0 }
            let front = heard.filter { $0.time < homeAt && $0.discovery.advertisementData.localName == AdvertiserApp.name }
            let phone = try #require(front.first?.discovery.peripheral.identifier)
            #expect(front.contains { $0.discovery.advertisementData.serviceUUIDs.contains(service) })
            // In the background (suspended: the system advertises for it): no name, no listed
            // UUID, the overflow area's bit.
            let suspendedAt = try #require(await world.times(advertiser, enteredState: .suspended).first)
            let back = heard.filter { $0.time > suspendedAt && $0.discovery.peripheral.identifier == phone }
            #expect(!back.isEmpty)
            #expect(back.allSatisfy { $0.discovery.advertisementData.localName == nil })
            #expect(back.allSatisfy { !$0.discovery.advertisementData.serviceUUIDs.contains(service) })
            #expect(back.allSatisfy { $0.discovery.advertisementData.overflowServiceUUIDs(among: [service]) == [service] })
            await scanner.stopScan()
            reader.cancel()

            // Another phone: its app in front scanning for the UUID finds the advertiser.
            let other = await Phone(profile: .ios17, radio: world.radio, position: AirPosition(x: 3, y: 0, z: 0))
            let otherLog = ProbeLog(simulation: world.simulation)
            let scanning = AppIdentifier("com.example.scanner")
            await other.install(AppDeclaration(bundleIdentifier: scanning.bundleIdentifier)) { context in
                ProbeApp(
                    context: context,
                    configuration: ProbeConfiguration(scanServices: [service], connectOnDiscovery: false),
                    log: otherLog)
            }
            await other.open(scanning)
            try await world.sleep(for: .seconds(3))
            #expect(otherLog.count(.discovered(localName: nil)) == 1)
            #expect(otherLog.count(.discovered(localName: AdvertiserApp.name)) == 0)
        }
    }
}
