import BLEController
import BLEHost
import BLETransport
import BLEVirtualHCI
import BLEWire
import Foundation
import Testing

@testable import BLE

@Suite("Advertising options and extended advertising (Core 5.4 Vol 4 Part E §7.8.5, §7.8.53–§7.8.57)")
struct ExtendedAdvertisingTests {
    /// About 1,000 octets: four Service Data structures of 240 octets and the Flags.
    static let long = AdvertisementData(
        serviceData: [
            0x1801: Array(repeating: 1, count: 240), 0x1802: Array(repeating: 2, count: 240),
            0x1803: Array(repeating: 3, count: 240), 0x1804: Array(repeating: 4, count: 240),
        ],
        isConnectable: false)

    // MARK: The plan (a value: no controller)

    @Test("Data that fits 31 octets goes in legacy PDUs; the extended commands drive them when the controller has them")
    func legacyPDUsByDefault() throws {
        let plan = try AdvertisingPlan(
            Fixture.advertisement, options: AdvertisingOptions(), extendedCommands: true, maximumDataLength: 1650)
        #expect(plan.family == .extended)
        #expect(!plan.extendedPDUs)
        // ADV_IND through the extended commands (§7.8.53 Table 7.2: legacy, connectable, scannable).
        #expect(plan.eventProperties == [.legacy, .connectable, .scannable])
        #expect(plan.interval == 0x00A0...0x00A0)
        let legacy = try AdvertisingPlan(
            Fixture.advertisement, options: AdvertisingOptions(), extendedCommands: false, maximumDataLength: 1650)
        #expect(legacy.family == .legacy)
        #expect(legacy.legacyParameters(ownAddressType: .public).advertisingType == .connectableUndirected)
    }

    @Test("Data over 31 octets goes in extended PDUs, cut into operations of at most 251 octets (§7.8.54)")
    func extendedDataFragments() throws {
        let plan = try AdvertisingPlan(
            Self.long, options: AdvertisingOptions(), extendedCommands: true, maximumDataLength: 1650)
        #expect(plan.extendedPDUs)
        #expect(plan.eventProperties == [])
        let total = plan.data.encoded.count
        #expect(total == 3 + 4 * 244)
        let commands = plan.extendedDataCommands
        #expect(
            commands.map(\.operation) == [.firstFragment, .intermediateFragment, .intermediateFragment, .lastFragment])
        #expect(commands.map(\.advertisingData.count) == [251, 251, 251, total - 753])
        #expect(commands.flatMap { Array($0.advertisingData) } == plan.data.encoded)
        #expect(plan.extendedScanResponseCommands.isEmpty)
        // Data that fits one command is one Complete operation.
        #expect(AdvertisingPlan.fragments(of: [1, 2, 3]).map(\.operation) == [.completeData])
    }

    @Test(
        "Data over what the controller can send is refused with the builder's error at the controller's maximum (§7.8.57)"
    )
    func dataOverControllerMaximum() {
        #expect(throws: BLEError.self) {
            try AdvertisingPlan(
                Self.long, options: AdvertisingOptions(), extendedCommands: true, maximumDataLength: 500)
        }
        do {
            _ = try AdvertisingPlan(
                Self.long, options: AdvertisingOptions(), extendedCommands: true, maximumDataLength: 500)
        } catch {
            guard case .advertisingDataTooLong(.tooLong(let limit, let total, _, _)) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(limit == 500)
            #expect(total == 979)
        }
    }

    @Test(
        "A connectable extended advertisement is limited to one AUX_ADV_IND; a scannable one carries its data in the scan response"
    )
    func connectableAndScannableExtended() throws {
        var connectable = Self.long
        connectable.isConnectable = true
        #expect(throws: BLEError.self) {
            try AdvertisingPlan(
                connectable, options: AdvertisingOptions(), extendedCommands: true, maximumDataLength: 1650)
        }
        let short = AdvertisementData(serviceData: [0x1801: Array(repeating: 1, count: 100)])
        let plan = try AdvertisingPlan(
            short, options: AdvertisingOptions(format: .extended), extendedCommands: true, maximumDataLength: 1650)
        #expect(plan.eventProperties == [.connectable])
        let scannable = try AdvertisingPlan(
            Self.long, options: AdvertisingOptions(isScannable: true), extendedCommands: true, maximumDataLength: 1650)
        #expect(scannable.eventProperties == [.scannable])
        #expect(scannable.data.encoded.isEmpty)
        #expect(scannable.extendedDataCommands.isEmpty)
        #expect(scannable.extendedScanResponseCommands.count == 4)
    }

    @Test("Without LE Extended Advertising, long data is the legacy 31-octet error and .extended is refused")
    func noExtendedAdvertising() {
        #expect(throws: BLEError.featureUnsupported(.extendedAdvertising)) {
            try AdvertisingPlan(
                Fixture.advertisement, options: AdvertisingOptions(format: .extended), extendedCommands: false,
                maximumDataLength: 1650)
        }
        do {
            _ = try AdvertisingPlan(
                Self.long, options: AdvertisingOptions(), extendedCommands: false, maximumDataLength: 0)
            Issue.record("long data accepted without extended advertising")
        } catch {
            guard case .advertisingDataTooLong(.tooLong(let limit, _, _, _)) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(limit == 31)
        }
        // Asking for legacy PDUs keeps the 31-octet limit even when the controller has more.
        #expect(throws: BLEError.self) {
            try AdvertisingPlan(
                Self.long, options: AdvertisingOptions(format: .legacy), extendedCommands: true, maximumDataLength: 1650
            )
        }
    }

    @Test("The advertising interval is checked against §7.8.5's 20 ms–10.24 s (legacy) and §7.8.53's range (extended)")
    func intervalRange() throws {
        let legacyAllowed = Duration.milliseconds(20)...Duration.milliseconds(10_240)
        for options in [
            AdvertisingOptions(interval: .milliseconds(10)), AdvertisingOptions(interval: .seconds(11)),
            AdvertisingOptions(minimumInterval: .milliseconds(200), maximumInterval: .milliseconds(100)),
        ] {
            #expect(throws: BLEError.advertisingIntervalOutOfRange(allowed: legacyAllowed)) {
                try AdvertisingPlan(
                    Fixture.advertisement, options: options, extendedCommands: false, maximumDataLength: 0)
            }
        }
        let plan = try AdvertisingPlan(
            Fixture.advertisement,
            options: AdvertisingOptions(minimumInterval: .milliseconds(20), maximumInterval: .seconds(1)),
            extendedCommands: false, maximumDataLength: 0)
        #expect(plan.interval == 0x0020...0x0640)
        // 11 s is too long for the legacy command, not for the extended one.
        let slow = try AdvertisingPlan(
            Fixture.advertisement, options: AdvertisingOptions(interval: .seconds(11)), extendedCommands: true,
            maximumDataLength: 1650)
        #expect(slow.interval == 17_600...17_600)
    }

    // MARK: On the air

    @Test("A non-connectable legacy advertisement is scannable when asked (ADV_SCAN_IND) and its interval is kept")
    func legacyOptionsOnTheAir() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            var advertisement = Fixture.advertisement
            advertisement.isConnectable = false
            try await manager.startAdvertising(
                advertisement, options: AdvertisingOptions(interval: .milliseconds(500), isScannable: true))
            let central = devices.central
            let every = try await central.scanForPeripherals(options: ScanOptions(allowDuplicates: true))
            let all = try await devices.collect(every, for: .seconds(5)) { await central.stopScan() }
            // One advertising event every 500 ms (plus the 0–10 ms advDelay, Vol 6 Part B
            // §4.4.2.2.1): at most 10 in 5 s, where the 100 ms default makes 50.
            #expect((1...10).contains(all.count))
            #expect(all.allSatisfy { !$0.advertisementData.isConnectable })
            // A scan request was answered: the advertisement is scannable.
            #expect(all.allSatisfy { $0.advertisementData.scanResponseData != nil })
        }
    }

    @Test(
        "A long advertisement goes out in extended PDUs and a scanner using the extended commands gets it whole, reassembled from its chained reports (§7.7.65.13)"
    )
    func longAdvertisementArrivesWhole() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            #expect(await manager.supports(.extendedAdvertising))
            try await manager.startAdvertising(Self.long)
            #expect(await manager.isAdvertising)
            let sent = try #require(await manager.advertisement?.advertisingData)
            let advertiser = try #require(await manager.address)

            // A scanner on a host of its own, driven with the extended scanning commands
            // (Vol 4 Part E §7.8.64–§7.8.65), its reports joined by the central's scan session.
            let port = await devices.radio.addController(at: AirPosition(x: 0, y: 3, z: 0))
            let scanner = Host(
                transport: PipeTransport.attached(to: port), clock: devices.simulation.clock,
                executor: devices.simulation.executor, configuration: HostConfiguration())
            try await scanner.start()
            var events = scanner.events.makeAsyncIterator()
            try await scanner.send(
                HCI.LESetExtendedScanParameters(
                    ownAddressType: .public, le1M: .init(scanType: .passive, scanInterval: 0x0060, scanWindow: 0x0060)))
            try await scanner.send(HCI.LESetExtendedScanEnable(enable: true))
            var session = ScanSession(services: nil, options: ScanOptions(active: false))
            var partial = 0
            var found: ScanSession.Found?
            while found == nil, let event = await events.next() {
                guard case .extendedAdvertisingReport(let report) = event, report.address == advertiser else {
                    continue
                }
                if report.eventType.dataStatus == .incompleteMoreToCome { partial += 1 }
                found = session.receive(report).first
            }
            await scanner.stop()
            let discovered = try #require(found)
            // 979 octets in reports of at most 229 octets of data each: four "more to come".
            #expect(partial >= 4)
            #expect(discovered.advertisement.advertisingData == sent)
            #expect(discovered.advertisement.serviceData == Self.long.serviceData)
            #expect(!discovered.advertisement.isConnectable)
        }
    }

    @Test("The central manager, scanning with the extended commands, discovers a long advertisement whole")
    func centralDiscoversLongAdvertisement() async throws {
        try await TwoDevices.run { devices in
            try await devices.peripheralManager.startAdvertising(Self.long)
            #expect(await devices.central.usesExtendedCommands)
            let discovery = try await devices.discover(withServices: nil)
            #expect(discovery.advertisementData.serviceData == Self.long.serviceData)
            #expect(discovery.advertisementData.advertisingData.bytes.count == 979)
            #expect(!discovery.advertisementData.isConnectable)
        }
    }

    @Test(
        "A connectable extended advertisement (one AUX_ADV_IND) is discovered and connected to with LE Extended Create Connection (§7.8.66)"
    )
    func connectableExtendedAdvertisement() async throws {
        try await TwoDevices.run { devices in
            let medium = AdvertisementData(
                localName: "sensor", serviceUUIDs: [Fixture.serviceUUID],
                serviceData: [0x1801: Array(repeating: 9, count: 100)])
            try await devices.publish(advertising: medium)
            let manager = devices.peripheralManager
            #expect(await manager.advertisement?.advertisingData.bytes.count ?? 0 > 31)
            let discovery = try await devices.discover()
            #expect(discovery.advertisementData.isConnectable)
            #expect(discovery.advertisementData.serviceData[0x1801]?.count == 100)
            let peripheral = discovery.peripheral
            try await devices.central.connect(peripheral)
            let services = try await peripheral.discoverServices([Fixture.serviceUUID])
            let characteristics = try await peripheral.discoverCharacteristics(for: try #require(services.first))
            let stored = try #require(characteristics.first { $0.uuid == Fixture.storedUUID })
            #expect(try await peripheral.readValue(for: stored) == [1, 2, 3])
            #expect(await manager.connectedCentrals.count == 1)
            // Advertising goes on after the connection, as Core Bluetooth's does.
            #expect(await manager.isAdvertising)
        }
    }

    @Test(
        "A peripheral with a random static address advertises from it through its set (LE Set Advertising Set Random Address, §7.8.52) and is connected"
    )
    func randomStaticAddressThroughTheSet() async throws {
        let radio = VirtualRadio()
        var configuration = HostConfiguration()
        let random = BluetoothAddress(0xC6_05_04_03_02_01)
        configuration.randomStaticAddress = random
        let host = configuration
        try await radio.simulation.run {
            let manager = try await PeripheralManager(radio: .virtual(radio), configuration: host)
            let central = await CentralManager(radio: .virtual(radio, position: AirPosition(x: 2, y: 0, z: 0)))
            try await manager.powerOn()
            try await central.powerOn()
            try await manager.add(Fixture.includedService)
            try await manager.add(Fixture.service)
            try await manager.startAdvertising(Fixture.advertisement)
            #expect(await manager.advertising.running == .extended)
            let scan = try await central.scanForPeripherals(withServices: [Fixture.serviceUUID])
            var iterator = scan.makeAsyncIterator()
            let discovery = try #require(await iterator.next())
            await central.stopScan()
            #expect(discovery.peripheral.address == LEAddress(random, type: .random))
            try await central.connect(discovery.peripheral)
            #expect(await manager.connectedCentrals.count == 1)
            await central.close()
            await manager.close()
        }
    }

    @Test(
        "A controller without LE Extended Advertising refuses a long advertisement with the 31-octet error; .extended with featureUnsupported"
    )
    func controllerWithoutExtendedAdvertising() async throws {
        let radio = VirtualRadio()
        var configuration = VirtualController.Configuration()
        configuration.leFeatures.remove(.leExtendedAdvertising)
        let limited = configuration
        try await radio.simulation.run {
            let manager = try await PeripheralManager(radio: .virtual(radio, controller: limited))
            try await manager.powerOn()
            #expect(await manager.supports(.extendedAdvertising) == false)
            await #expect(throws: BLEError.featureUnsupported(.extendedAdvertising)) {
                try await manager.startAdvertising(
                    Fixture.advertisement, options: AdvertisingOptions(format: .extended))
            }
            do throws(BLEError) {
                try await manager.startAdvertising(Self.long)
                Issue.record("long data accepted")
            } catch {
                guard case .advertisingDataTooLong(.tooLong(let limit, _, _, _)) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(limit == 31)
            }
            // Legacy advertising still works there, with the legacy commands.
            try await manager.startAdvertising(Fixture.advertisement)
            #expect(await manager.advertising.running == .legacy)
            await manager.close()
        }
    }

    @Test("A controller whose maximum advertising data length is shorter refuses data over it, naming its limit")
    func controllerMaximumOnTheAir() async throws {
        let radio = VirtualRadio()
        let small = VirtualController.Configuration(maximumAdvertisingDataLength: 600)
        try await radio.simulation.run {
            let manager = try await PeripheralManager(radio: .virtual(radio, controller: small))
            try await manager.powerOn()
            do throws(BLEError) {
                try await manager.startAdvertising(Self.long)
                Issue.record("data over the controller's maximum accepted")
            } catch {
                guard case .advertisingDataTooLong(.tooLong(let limit, _, _, _)) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(limit == 600)
            }
            #expect(await manager.isAdvertising == false)
            await manager.close()
        }
    }
}
