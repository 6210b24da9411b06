import BLE
import Foundation
import Testing

@testable import BLEPhone

/// Advertising from a phone app (Core Bluetooth Programming Guide, "Core Bluetooth Background
/// Processing for iOS Apps"; `startAdvertising(_:)`: only the local name and the service UUIDs).
@Suite("Phone: advertising rules")
struct BackgroundAdvertisingTests {
    static let appService = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    /// A UUID whose overflow bit differs from `appService`'s.
    static var otherService: BluetoothUUID {
        let candidates: [BluetoothUUID] = [0x180D, 0x180F, 0x1810, 0x1811, 0x1812]
        return candidates.first { OverflowArea.bit(for: $0) != OverflowArea.bit(for: appService) }!
    }

    /// What a plain scanner (a device, not a phone) hears from the phone for `duration`.
    static func heard(on radio: VirtualRadio, for duration: Duration) async throws -> [AdvertisementData] {
        let scanner = await CentralManager(radio: .virtual(radio, position: AirPosition(x: -2, y: 0, z: 0)))
        try await scanner.powerOn()
        let discoveries = try await scanner.scanForPeripherals(
            withServices: nil, options: ScanOptions(allowDuplicates: true))
        let clock = radio.simulation.clock
        let stopper = Task(executorPreference: radio.simulation.executor) {
            try await clock.sleep(for: duration)
            await scanner.stopScan()
        }
        var heard: [AdvertisementData] = []
        for await discovery in discoveries { heard.append(discovery.advertisementData) }
        try await stopper.value
        await scanner.close()
        return heard
    }

    @Test("In front: the local name and the service UUIDs only")
    func foregroundAdvertising() async throws {
        try await BluetoothTestBed.run(advertising: false) { bed in
            let context = await bed.launch("com.example.peripheral", modes: [.bluetoothPeripheral])
            let manager = await context.peripheralManager()
            try await manager.startAdvertising(localName: "phoneapp", serviceUUIDs: [Self.appService])
            let heard = try await Self.heard(on: bed.radio, for: .seconds(1))
            let mine = heard.filter { $0.serviceUUIDs.contains(Self.appService) }
            #expect(!mine.isEmpty)
            #expect(
                mine.allSatisfy { $0.localName == "phoneapp" && $0.manufacturerData == nil && $0.serviceData.isEmpty })
        }
    }

    @Test(
        "bluetooth-peripheral in the background: no local name, the UUIDs in the overflow area (Apple's 0x004C bitmask, our hash)"
    )
    func backgroundOverflow() async throws {
        try await BluetoothTestBed.run(advertising: false) { bed in
            let context = await bed.launch("com.example.peripheral", modes: [.bluetoothPeripheral])
            let manager = await context.peripheralManager()
            try await manager.startAdvertising(localName: "phoneapp", serviceUUIDs: [Self.appService])
            await bed.set(context, .background)
            let heard = try await Self.heard(on: bed.radio, for: .seconds(1))
            let overflow = heard.filter {
                $0.manufacturerData?.companyIdentifier == OverflowArea.appleCompanyIdentifier
            }
            #expect(!overflow.isEmpty)
            // Nobody sees the UUID itself, nor the name.
            #expect(heard.allSatisfy { !$0.serviceUUIDs.contains(Self.appService) && $0.localName != "phoneapp" })
            let data = try #require(overflow.first?.manufacturerData?.data)
            #expect(data.count == 17 && data[0] == 0x01)
            #expect(data.dropFirst().reduce(0) { $0 + $1.nonzeroBitCount } == 1)
            #expect(
                overflow.first?.overflowServiceUUIDs(among: [Self.appService, Self.otherService]) == [Self.appService])
        }
    }

    @Test("The overflow area matches a foreground scan for that UUID on another phone, and nothing else")
    func overflowMatchesOnlyScannersForTheUUID() async throws {
        try await BluetoothTestBed.run(advertising: false) { bed in
            let advertiserApp = await bed.launch("com.example.peripheral", modes: [.bluetoothPeripheral])
            let manager = await advertiserApp.peripheralManager()
            try await manager.startAdvertising(localName: "phoneapp", serviceUUIDs: [Self.appService])
            await bed.set(advertiserApp, .background)

            let otherPhone = await Phone(profile: .ios17, radio: bed.radio, position: AirPosition(x: 0, y: 3, z: 0))
            let log = DeliveryLog()
            let otherSystem = await otherPhone.bluetooth
            await otherSystem.interceptDeliveries { delivery, app in log.take(delivery, for: app) }
            let context = AppContext(
                app: AppIdentifier("com.example.finder"),
                declaration: AppDeclaration(bundleIdentifier: "com.example.finder"),
                executor: AppExecutor(simulation: bed.simulation), storageDirectory: nil, launchNumber: 1,
                phone: otherPhone)
            context.executor.open()
            await otherSystem.appStateChanged(context.app, to: .active)
            let finder = await context.centralManager()
            let other = AppContext(
                app: AppIdentifier("com.example.other"),
                declaration: AppDeclaration(bundleIdentifier: "com.example.other"),
                executor: AppExecutor(simulation: bed.simulation), storageDirectory: nil, launchNumber: 1,
                phone: otherPhone)
            other.executor.open()
            await otherSystem.appStateChanged(other.app, to: .active)
            let otherCentral = await other.centralManager()

            var events = finder.events.makeAsyncIterator()
            try await finder.scanForPeripherals(withServices: [Self.appService])
            try await otherCentral.scanForPeripherals(withServices: [Self.otherService])
            let advertisement = try await bed.next(&events) { event -> AdvertisementData? in
                if case .discovered(_, let advertisement, _) = event { return advertisement }
                return nil
            }
            #expect(advertisement.overflowServiceUUIDs(among: [Self.appService]) == [Self.appService])
            #expect(!advertisement.serviceUUIDs.contains(Self.appService))
            try await bed.sleep(for: .seconds(2))
            #expect(log.entries(of: other.app, .discovery).isEmpty)
            // In the background the finder's scan does not match the overflow area (our model).
            await otherSystem.appStateChanged(context.app, to: .background)
            try await finder.scanForPeripherals(withServices: [Self.appService])
            let before = log.entries(of: context.app, .discovery).count
            try await bed.sleep(for: .seconds(2))
            #expect(log.entries(of: context.app, .discovery).count == before)
        }
    }

    @Test("Foreground-only app: its advertising stops in the background and comes back in front")
    func foregroundOnlyAdvertisingStops() async throws {
        try await BluetoothTestBed.run(advertising: false) { bed in
            let context = await bed.launch("com.example.plain")
            let manager = await context.peripheralManager()
            try await manager.startAdvertising(localName: "plain", serviceUUIDs: [0xFFE0])
            #expect(await bed.system.peripheralManager?.isAdvertising == true)
            await bed.set(context, .background)
            #expect(await bed.system.peripheralManager?.isAdvertising == false)
            #expect(await manager.isAdvertising)
            await bed.set(context, .active)
            #expect(await bed.system.peripheralManager?.isAdvertising == true)
        }
    }

    @Test("Composition: the front app's name, every front app's UUIDs, background UUIDs as overflow bits")
    func composer() {
        let front = PhoneAdvertisement(localName: "front", serviceUUIDs: [0x180D])
        let back = PhoneAdvertisement(localName: "back", serviceUUIDs: [Self.appService])
        let composed = AdvertisingComposer.compose([(front, .foreground), (back, .background)])
        #expect(composed?.localName == "front")
        #expect(composed?.serviceUUIDs == [0x180D])
        #expect(composed.map { OverflowArea.contains(Self.appService, in: $0) } == true)
        #expect(AdvertisingComposer.compose([(back, .off)]) == nil)
        let onlyBack = AdvertisingComposer.compose([(back, .background)])
        #expect(onlyBack?.localName == nil && onlyBack?.serviceUUIDs.isEmpty == true)
    }
}
