import BLE
import Foundation
import Testing

@testable import BLEPhone

/// Scanning in the background (Core Bluetooth Programming Guide, "Core Bluetooth Background
/// Processing for iOS Apps"; phone-rules.md).
@Suite("Phone: background scan rules")
struct BackgroundScanTests {
    @Test(
        "bluetooth-central in the background: a scan without service UUIDs finds nothing (the system does not scan for it)"
    )
    func backgroundScanNeedsServices() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.central", modes: [.bluetoothCentral])
            let central = await context.centralManager()
            await bed.set(context, .background)
            try await central.scanForPeripherals(withServices: nil)
            try await bed.sleep(for: .seconds(3))
            #expect(bed.log.entries(of: context.app, .discovery).isEmpty)
            #expect(await bed.system.central.isScanning == false)
            // In front again, the same scan finds the device.
            await bed.set(context, .active)
            try await bed.sleep(for: .seconds(2))
            #expect(bed.log.entries(of: context.app, .discovery).count == 1)
        }
    }

    @Test("bluetooth-central in the background: allowDuplicates is ignored; in front it is not")
    func duplicatesIgnoredInBackground() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.central", modes: [.bluetoothCentral])
            let central = await context.centralManager()
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID], allowDuplicates: true)
            try await bed.sleep(for: .seconds(2))
            let inFront = bed.log.entries(of: context.app, .discovery).count
            #expect(inFront > 5)
            await bed.set(context, .background)
            // A new scan in the background: one report, however long it runs.
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID], allowDuplicates: true)
            try await bed.sleep(for: .seconds(10))
            #expect(bed.log.entries(of: context.app, .discovery).count == inFront + 1)
        }
    }

    @Test(
        "bluetooth-central in the background: discoveries coalesced until the scan restarts or the peripheral connects or disconnects"
    )
    func coalescedUntilRestartOrLinkChange() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.central", modes: [.bluetoothCentral])
            let central = await context.centralManager()
            await bed.set(context, .background)
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID])
            try await bed.sleep(for: .seconds(5))
            #expect(bed.log.entries(of: context.app, .discovery).count == 1)
            // Restarting the scan reports it again.
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID])
            try await bed.sleep(for: .seconds(5))
            #expect(bed.log.entries(of: context.app, .discovery).count == 2)
            // Another app connects it (the device goes on advertising): reported once more; and
            // again once it disconnects.
            let other = await bed.launch("com.example.other")
            let otherCentral = await other.centralManager()
            let (peripheral, _, _) = try await bed.connectToDevice(otherCentral)
            try await bed.sleep(for: .seconds(5))
            #expect(bed.log.entries(of: context.app, .discovery).count == 3)
            await otherCentral.cancelPeripheralConnection(peripheral)
            try await bed.sleep(for: .seconds(5))
            #expect(bed.log.entries(of: context.app, .discovery).count == 4)
        }
    }

    @Test("Foreground-only app: its scan is paused in the background (the system scan stops) and resumes in front")
    func foregroundOnlyScanPaused() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.plain")
            let central = await context.centralManager()
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID], allowDuplicates: true)
            try await bed.sleep(for: .seconds(1))
            #expect(!bed.log.entries(of: context.app, .discovery).isEmpty)
            await bed.set(context, .background)
            await bed.set(context, .suspended)
            let before = bed.log.entries(of: context.app, .discovery).count
            #expect(await bed.system.central.isScanning == false)
            try await bed.sleep(for: .seconds(30))
            #expect(bed.log.entries(of: context.app, .discovery).count == before)
            #expect(await central.isScanning)
            await bed.set(context, .active)
            try await bed.sleep(for: .seconds(1))
            #expect(bed.log.entries(of: context.app, .discovery).count > before)
        }
    }

    @Test(
        "Foreground-only app: a pending connect stays in the background, completes, and its event still goes to the phone"
    )
    func foregroundOnlyPendingConnect() async throws {
        try await BluetoothTestBed.run { bed in
            let context = await bed.launch("com.example.plain")
            let central = await context.centralManager()
            var events = central.events.makeAsyncIterator()
            try await central.scanForPeripherals(withServices: [BluetoothTestBed.serviceUUID])
            let peripheral = try await bed.next(&events) { event -> PhonePeripheral? in
                if case .discovered(let peripheral, _, _) = event { return peripheral }
                return nil
            }
            await central.stopScan()
            await bed.device.stopAdvertising()
            try await central.connect(peripheral)
            await bed.set(context, .background)
            await bed.set(context, .suspended)
            try await bed.sleep(for: .seconds(600))
            try await bed.device.startAdvertising(AdvertisementData(serviceUUIDs: [BluetoothTestBed.serviceUUID]))
            try await bed.sleep(for: .seconds(2))
            #expect(bed.log.entries(of: context.app, .connection).count == 1)
        }
    }
}

/// The scan rules as a value, one advertisement at a time.
@Suite("Phone: AppScan")
struct AppScanTests {
    let peripheral = UUID()
    let advertised = AdvertisementData(serviceUUIDs: [0xFFF0])

    @Test("Foreground: a service filter, duplicates as asked")
    func foreground() {
        var scan = AppScan(services: [0xFFF0], options: PhoneScanOptions(allowDuplicates: true))
        let other = AdvertisementData(serviceUUIDs: [0x180D])
        let duplicates = [
            scan.admit(peripheral, advertised, in: .foreground), scan.admit(peripheral, advertised, in: .foreground),
            scan.admit(peripheral, other, in: .foreground),
        ]
        #expect(duplicates == [true, true, false])
        var once = AppScan(services: nil, options: PhoneScanOptions())
        let single = [
            once.admit(peripheral, advertised, in: .foreground), once.admit(peripheral, advertised, in: .foreground),
        ]
        #expect(single == [true, false])
    }

    @Test("Background: UUIDs required, duplicates ignored, coalesced until forgotten; paused: nothing")
    func background() {
        var everything = AppScan(services: nil, options: PhoneScanOptions(allowDuplicates: true))
        #expect(!everything.needsRadio(in: .background))
        let withoutServices = everything.admit(peripheral, advertised, in: .background)
        #expect(!withoutServices)
        var scan = AppScan(services: [0xFFF0], options: PhoneScanOptions(allowDuplicates: true))
        #expect(scan.needsRadio(in: .background))
        var results = [
            scan.admit(peripheral, advertised, in: .background), scan.admit(peripheral, advertised, in: .background),
        ]
        scan.forget(peripheral)
        results.append(scan.admit(peripheral, advertised, in: .background))
        results.append(scan.admit(UUID(), advertised, in: .paused))
        #expect(results == [true, false, true, false])
        #expect(!scan.needsRadio(in: .paused))
    }
}
