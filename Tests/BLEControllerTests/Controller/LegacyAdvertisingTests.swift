import BLESimulation
import BLEWire
import Testing

@testable import BLEController

@Suite("Legacy advertising and scanning (Core 5.4 Vol 6 Part B §4.4.2, §4.4.3)")
struct LegacyAdvertisingTests {
    @Test("LE Advertising Report carries the data, the advertiser's address and type, and the RSSI of the distance")
    func reportContents() throws {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 10))
        Scenario.advertise(advertiser, type: .nonConnectableUndirected)
        Scenario.scan(scanner)
        scanner.run(for: .seconds(1))
        let reports = scanner.advertisingReports
        let report = try #require(reports.first)
        #expect(report.eventType == .advNonconnInd)
        #expect(report.address == LEAddress(advertiser.controller.publicAddress, type: .public))
        #expect(Array(report.data) == Scenario.advertisingData)
        // Default model: 0 dBm, 40 dB at 1 m, exponent 2: −60 dBm at 10 m.
        #expect(report.rssi == -60)
        #expect(reports.allSatisfy { $0.rssi == -60 })
    }

    @Test("Every scanner in range gets the PDU, with the RSSI of its own distance and the sender's power")
    func severalScanners() {
        let air = VirtualAir(propagation: PropagationModel(maximumRange: 50))
        let advertiser = TestHost(air: air, configuration: .init(txPower: 8))
        let scanners = [1.0, 10, 40, 60].map { TestHost(air: air, at: AirPosition(x: $0)) }
        Scenario.advertise(advertiser, type: .nonConnectableUndirected)
        for scanner in scanners { Scenario.scan(scanner) }
        advertiser.run(for: .seconds(1))
        #expect(scanners.map { $0.advertisingReports.first?.rssi } == [-32, -52, -64, nil])
    }

    @Test("A random own address is reported as type random")
    func randomAddress() throws {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 3))
        let address = BluetoothAddress(0xC0_1122_3344_55)
        advertiser.expectSuccess(HCI.LESetRandomAddress(randomAddress: address))
        Scenario.advertise(advertiser, type: .scannableUndirected, ownAddressType: .random)
        Scenario.scan(scanner)
        scanner.run(for: .milliseconds(500))
        let report = try #require(scanner.advertisingReports.first)
        #expect(report.address == LEAddress(address, type: .random))
        #expect(report.eventType == .advScanInd)
    }

    @Test("Advertising events: interval plus advDelay of 0–10 ms, three PDUs on 37, 38, 39 (§4.4.2.2.1)")
    func advertisingTiming() {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        var starts: [(VirtualInstant, UInt8)] = []
        final class Probe: AirRadio {
            var onPacket: (AirTransmission) -> Void = { _ in }
            func isListening(to transmission: AirTransmission) -> Bool {
                onPacket(transmission)
                return false
            }
            func receive(_ transmission: AirTransmission, rssi: Int8) {}
        }
        let probe = Probe()
        probe.onPacket = { starts.append(($0.start, $0.channel)) }
        _ = air.attach(probe, at: AirPosition(x: 1))
        Scenario.advertise(advertiser, type: .nonConnectableUndirected, interval: 0x00A0)  // 100 ms
        advertiser.run(for: .seconds(3))
        #expect(starts.count >= 3 * 25)
        let events = stride(from: 0, to: starts.count - 2, by: 3).map { starts[$0] }
        #expect(starts.prefix(6).map(\.1) == [37, 38, 39, 37, 38, 39])
        var delays: [Int64] = []
        for (a, b) in zip(events, events.dropFirst()) {
            let gap = a.0.duration(to: b.0).nanosecondsClamped / 1000
            #expect(gap >= 100_000 && gap <= 110_000)
            delays.append(gap - 100_000)
        }
        // advDelay is random, not constant.
        #expect(Set(delays).count > 5)
        // PDUs of one event: ADV_NONCONN_IND with 9 octets of data is 15 octets, 200 µs, then T_IFS.
        #expect(starts[0].0.duration(to: starts[1].0) == .microseconds(350))
    }

    @Test("Active scanning: SCAN_REQ gets the advertiser's real scan response data")
    func activeScan() throws {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 2))
        Scenario.advertise(advertiser)
        Scenario.scan(scanner, active: true)
        scanner.run(for: .seconds(1))
        let responses = scanner.advertisingReports.filter { $0.eventType == .scanRsp }
        let response = try #require(responses.first)
        #expect(Array(response.data) == Scenario.scanResponseData)
        #expect(response.address.address == advertiser.controller.publicAddress)
        #expect(scanner.advertisingReports.contains { $0.eventType == .advInd })
    }

    @Test("Passive scanning sends no scan request; ADV_NONCONN_IND is never answered")
    func noScanResponse() {
        let air = VirtualAir()
        let a = TestHost(air: air)
        let b = TestHost(air: air, at: AirPosition(x: 1))
        let passive = TestHost(air: air, at: AirPosition(x: 2))
        let active = TestHost(air: air, at: AirPosition(x: 3))
        Scenario.advertise(a)
        Scenario.advertise(b, type: .nonConnectableUndirected)
        Scenario.scan(passive)
        Scenario.scan(active, active: true)
        active.run(for: .seconds(1))
        #expect(!passive.advertisingReports.contains { $0.eventType == .scanRsp })
        #expect(!passive.advertisingReports.isEmpty)
        let responders = Set(active.advertisingReports.filter { $0.eventType == .scanRsp }.map(\.address.address))
        #expect(responders == [a.controller.publicAddress])
    }

    @Test("Duplicate filtering reports each advertiser's PDU type once")
    func duplicateFiltering() {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let filtering = TestHost(air: air, at: AirPosition(x: 1))
        let unfiltered = TestHost(air: air, at: AirPosition(x: 1, y: 1))
        Scenario.advertise(advertiser)
        Scenario.scan(filtering, active: true, filterDuplicates: true)
        Scenario.scan(unfiltered)
        filtering.run(for: .seconds(2))
        #expect(filtering.advertisingReports.map(\.eventType) == [.advInd, .scanRsp])
        #expect(unfiltered.advertisingReports.count > 10)
        // Disabling and enabling scanning starts a fresh filter.
        filtering.expectSuccess(HCI.LESetScanEnable(leScanEnable: false))
        filtering.expectSuccess(HCI.LESetScanEnable(leScanEnable: true, filterDuplicates: true))
        filtering.run(for: .seconds(1))
        #expect(filtering.advertisingReports.count == 4)
    }

    @Test("ADV_DIRECT_IND is reported only by the device it targets")
    func directedAdvertising() {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let target = TestHost(air: air, at: AirPosition(x: 1))
        let bystander = TestHost(air: air, at: AirPosition(x: 2))
        Scenario.advertise(
            advertiser, type: .connectableDirectedLowDutyCycle,
            peer: LEAddress(target.controller.publicAddress, type: .public))
        Scenario.scan(target)
        Scenario.scan(bystander)
        target.run(for: .seconds(1))
        #expect(target.advertisingReports.contains { $0.eventType == .advDirectInd })
        #expect(bystander.advertisingReports.isEmpty)
    }

    @Test("Scanners out of range hear nothing; moving into range they do")
    func range() {
        let air = VirtualAir(propagation: PropagationModel(maximumRange: 20))
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 50))
        Scenario.advertise(advertiser, type: .nonConnectableUndirected)
        Scenario.scan(scanner)
        scanner.run(for: .seconds(1))
        #expect(scanner.advertisingReports.isEmpty)
        scanner.controller.position = AirPosition(x: 5)
        scanner.run(for: .seconds(1))
        #expect(scanner.advertisingReports.first?.rssi == -54)
    }

    @Test("Changing advertising parameters while advertising is disallowed: 0x0C; bad values: 0x12")
    func parameterRules() {
        let host = TestHost(air: VirtualAir())
        #expect(
            host.complete(HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0x10)).status
                == .invalidHCICommandParameters)
        #expect(
            host.complete(HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0x40, advertisingIntervalMax: 0x30))
                .status == .invalidHCICommandParameters)
        #expect(
            host.complete(HCI.LESetAdvertisingParameters(advertisingChannelMap: [])).status
                == .invalidHCICommandParameters)
        Scenario.advertise(host)
        #expect(host.complete(HCI.LESetAdvertisingParameters()).status == .commandDisallowed)
        #expect(
            host.complete(HCI.LESetRandomAddress(randomAddress: BluetoothAddress(0xC0_0000_0000_01))).status
                == .commandDisallowed)
        // Scan parameters while scanning, too.
        Scenario.scan(host)
        #expect(host.complete(HCI.LESetScanParameters()).status == .commandDisallowed)
        #expect(host.complete(HCI.LESetScanEnable(leScanEnable: false)).status == .success)
        #expect(
            host.complete(HCI.LESetScanParameters(leScanInterval: 0x10, leScanWindow: 0x20)).status
                == .invalidHCICommandParameters)
    }

    @Test("High duty cycle directed advertising stops after 1.28 s with 0x3C Advertising Timeout")
    func highDutyCycleTimeout() throws {
        let air = VirtualAir()
        let host = TestHost(air: air)
        let start = air.now
        Scenario.advertise(
            host, type: .connectableDirectedHighDutyCycle,
            peer: LEAddress(BluetoothAddress(0x0011_2233_4455), type: .public))
        let complete = try #require(
            host.waitForLE { event -> LEMetaEvent.ConnectionComplete? in
                if case .connectionComplete(let c) = event { c } else { nil }
            })
        #expect(complete.status == .advertisingTimeout)
        #expect(start.duration(to: air.now) == .milliseconds(1280))
        #expect(!host.controller.isAdvertising)
    }
}
