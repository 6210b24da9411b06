import BLEWire
import Testing

@testable import BLEController

@Suite("Extended advertising and scanning (Core 5.4 Vol 4 Part E §7.8.53–§7.8.65, Vol 6 Part B §4.4.2.7)")
struct ExtendedAdvertisingTests {
    typealias Report = LEMetaEvent.ExtendedAdvertisingReport.Report

    static func setUp(
        _ host: TestHost, handle: UInt8 = 0, properties: HCI.AdvertisingEventProperties, sid: UInt8 = 3,
        secondaryPHY: PHY.HCIValue = PHY.le1M.hci, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let complete = host.complete(
            HCI.LESetExtendedAdvertisingParameters(
                advertisingHandle: handle, advertisingEventProperties: properties, primaryAdvertisingIntervalMin: 0x40,
                primaryAdvertisingIntervalMax: 0x40, secondaryAdvertisingPHY: secondaryPHY, advertisingSID: sid))
        #expect(complete.status == .success, sourceLocation: sourceLocation)
    }

    static func enable(_ host: TestHost, handle: UInt8 = 0, maxEvents: UInt8 = 0, duration: UInt16 = 0) -> HCIStatus? {
        host.complete(
            HCI.LESetExtendedAdvertisingEnable(
                enable: true,
                sets: [.init(advertisingHandle: handle, duration: duration, maxExtendedAdvertisingEvents: maxEvents)])
        ).status
    }

    static func scan(
        _ host: TestHost, active: Bool = false, filter: HCI.LESetExtendedScanEnable.DuplicateFilter = .disabled
    ) {
        host.expectSuccess(
            HCI.LESetExtendedScanParameters(
                le1M: .init(scanType: active ? .active : .passive, scanInterval: 0x20, scanWindow: 0x20)))
        host.expectSuccess(HCI.LESetExtendedScanEnable(enable: true, filterDuplicates: filter))
    }

    /// Sends `data` in fragments of at most 251 octets (§7.8.54).
    static func setData(_ host: TestHost, _ data: [UInt8], handle: UInt8 = 0) {
        var chunks: [[UInt8]] = []
        var rest = data[...]
        while !rest.isEmpty {
            chunks.append(Array(rest.prefix(251)))
            rest = rest.dropFirst(251)
        }
        for (index, chunk) in chunks.enumerated() {
            let operation: HCI.AdvertisingDataOperation =
                chunks.count == 1
                ? .completeData
                : index == 0 ? .firstFragment : index == chunks.count - 1 ? .lastFragment : .intermediateFragment
            host.expectSuccess(
                HCI.LESetExtendedAdvertisingData(
                    advertisingHandle: handle, operation: operation, advertisingData: chunk[...]))
        }
    }

    /// The data of the first complete sequence of reports from `address`.
    static func reassemble(_ reports: [Report], from address: BluetoothAddress, scanResponse: Bool = false) -> [UInt8]?
    {
        var data: [UInt8] = []
        for report in reports
        where report.address.address == address
            && report.eventType.contains(.scanResponse) == scanResponse
        {
            data += report.data
            switch report.eventType.dataStatus {
            case .complete: return data
            case .incompleteMoreToCome: continue
            case .incompleteTruncated, .reserved: data = []
            }
        }
        return nil
    }

    @Test("1650 octets in 251-octet fragments are reassembled at the scanner, in reports of at most 229 octets")
    func maximumData() throws {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 4))
        let data = (0..<1650).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(
            try advertiser.returnParameters(HCI.LEReadMaximumAdvertisingDataLength()).maxAdvertisingDataLength == 1650)
        Self.setUp(advertiser, properties: [])
        Self.setData(advertiser, data)
        #expect(Self.enable(advertiser) == .success)
        Self.scan(scanner)
        scanner.run(for: .seconds(1))
        let reports = scanner.extendedReports
        #expect(Self.reassemble(reports, from: advertiser.controller.publicAddress) == data)
        #expect(reports.allSatisfy { $0.data.count <= 229 })
        let first = try #require(reports.first)
        #expect(first.eventType.dataStatus == .incompleteMoreToCome)
        #expect(first.advertisingSID == 3)
        #expect(first.primaryPHY == PHY.le1M.hci && first.secondaryPHY == PHY.le1M.hci)
        #expect(first.rssi == -52)
        #expect(!first.eventType.contains(.legacy))
        // One more octet does not fit: the data is discarded with 0x07 (§7.8.54).
        let status = advertiser.complete(
            HCI.LESetExtendedAdvertisingData(
                advertisingHandle: 0, operation: .firstFragment, advertisingData: data.prefix(251)))
        #expect(status.status == .commandDisallowed)
    }

    @Test("Data fragments: limits and order (§7.8.54)")
    func fragmentRules() {
        let host = TestHost(air: VirtualAir())
        let fragment = [UInt8](repeating: 0xAB, count: 251)[...]
        #expect(
            host.complete(HCI.LESetExtendedAdvertisingData(advertisingHandle: 1, advertisingData: [1, 2])).status
                == .unknownAdvertisingIdentifier)
        Self.setUp(host, properties: [])
        #expect(
            host.complete(
                HCI.LESetExtendedAdvertisingData(
                    advertisingHandle: 0, operation: .lastFragment, advertisingData: fragment)
            )
            .status == .commandDisallowed)
        for operation: HCI.AdvertisingDataOperation in [.firstFragment]
            + Array(repeating: .intermediateFragment, count: 5)
        {
            host.expectSuccess(
                HCI.LESetExtendedAdvertisingData(advertisingHandle: 0, operation: operation, advertisingData: fragment))
        }
        // 6 × 251 = 1506; 145 more would make 1651.
        let tooMuch = [UInt8](repeating: 1, count: 145)[...]
        #expect(
            host.complete(
                HCI.LESetExtendedAdvertisingData(
                    advertisingHandle: 0, operation: .lastFragment, advertisingData: tooMuch)
            )
            .status == .memoryCapacityExceeded)
        // Incomplete data cannot be enabled.
        host.expectSuccess(
            HCI.LESetExtendedAdvertisingData(advertisingHandle: 0, operation: .firstFragment, advertisingData: fragment)
        )
        #expect(Self.enable(host) == .commandDisallowed)
        // Legacy sets take at most 31 octets, in one piece.
        Self.setUp(host, handle: 2, properties: [.legacy, .connectable, .scannable])
        #expect(
            host.complete(HCI.LESetExtendedAdvertisingData(advertisingHandle: 2, advertisingData: fragment.prefix(32)))
                .status
                == .invalidHCICommandParameters)
        #expect(Self.enable(host, handle: 7) == .unknownAdvertisingIdentifier)
    }

    @Test("Legacy PDUs are reported to an extended scanner with the legacy bit (§7.7.65.13)")
    func legacyPDUsAsExtendedReports() throws {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 1))
        Self.setUp(advertiser, properties: [.legacy, .connectable, .scannable])
        advertiser.expectSuccess(
            HCI.LESetExtendedAdvertisingData(advertisingHandle: 0, advertisingData: Scenario.advertisingData[...]))
        advertiser.expectSuccess(
            HCI.LESetExtendedScanResponseData(advertisingHandle: 0, scanResponseData: Scenario.scanResponseData[...]))
        #expect(Self.enable(advertiser) == .success)
        Self.scan(scanner, active: true)
        scanner.run(for: .seconds(1))
        let reports = scanner.extendedReports
        let advertising = try #require(reports.first { !$0.eventType.contains(.scanResponse) })
        #expect(advertising.eventType.legacyEventType == .advInd)
        #expect(advertising.eventType.dataStatus == .complete)
        #expect(Array(advertising.data) == Scenario.advertisingData)
        #expect(advertising.secondaryPHY == nil && advertising.advertisingSID == 0xFF)
        let response = try #require(reports.first { $0.eventType.contains(.scanResponse) })
        #expect(response.eventType.legacyEventType == .scanRsp)
        #expect(response.eventType.rawValue & 0x7F == 0b001_1011)
        #expect(Array(response.data) == Scenario.scanResponseData)
    }

    @Test("A legacy scanner does not see extended advertising PDUs")
    func legacyScannerIgnoresExtended() {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 1))
        Self.setUp(advertiser, properties: [])
        Self.setData(advertiser, [0x02, 0x01, 0x06])
        #expect(Self.enable(advertiser) == .success)
        Scenario.scan(scanner)
        scanner.run(for: .seconds(1))
        #expect(scanner.advertisingReports.isEmpty)
    }

    @Test("Scannable extended advertising: AUX_SCAN_REQ gets the chained scan response")
    func extendedScanResponse() {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 1))
        let response = (0..<600).map { UInt8(truncatingIfNeeded: $0) }
        Self.setUp(advertiser, properties: [.scannable], secondaryPHY: PHY.le2M.hci)
        #expect(
            advertiser.complete(HCI.LESetExtendedAdvertisingData(advertisingHandle: 0, advertisingData: [1, 2, 3]))
                .status
                == .invalidHCICommandParameters)
        #expect(Self.enable(advertiser) == .commandDisallowed)
        var rest = response[...]
        var first = true
        while !rest.isEmpty {
            let chunk = rest.prefix(251)
            rest = rest.dropFirst(251)
            let operation: HCI.AdvertisingDataOperation =
                first ? .firstFragment : (rest.isEmpty ? .lastFragment : .intermediateFragment)
            advertiser.expectSuccess(
                HCI.LESetExtendedScanResponseData(advertisingHandle: 0, operation: operation, scanResponseData: chunk))
            first = false
        }
        #expect(Self.enable(advertiser) == .success)
        Self.scan(scanner, active: true, filter: .enabled)
        scanner.run(for: .seconds(1))
        let reports = scanner.extendedReports
        #expect(Self.reassemble(reports, from: advertiser.controller.publicAddress, scanResponse: true) == response)
        #expect(reports.contains { $0.eventType.contains(.scannable) && !$0.eventType.contains(.scanResponse) })
        #expect(reports.allSatisfy { $0.secondaryPHY == PHY.le2M.hci })
        // Duplicate filtering by ADI: the advertisement and its response are reported once.
        #expect(reports.filter { $0.eventType.dataStatus == .complete }.count == 2)
    }

    @Test("Max_Extended_Advertising_Events ends the set with Advertising Set Terminated 0x43")
    func maximumEvents() throws {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        Self.setUp(advertiser, handle: 5, properties: [])
        Self.setData(advertiser, [0x02, 0x01, 0x06], handle: 5)
        #expect(Self.enable(advertiser, handle: 5, maxEvents: 3) == .success)
        let terminated = try #require(
            advertiser.waitForLE { event -> LEMetaEvent.AdvertisingSetTerminated? in
                if case .advertisingSetTerminated(let t) = event { t } else { nil }
            })
        #expect(terminated.status == .limitReached)
        #expect(terminated.advertisingHandle == 5)
        #expect(terminated.numCompletedExtendedAdvertisingEvents == 3)
        #expect(!advertiser.controller.isAdvertising)
    }

    @Test("Duration ends the set with 0x3C; extended scan Duration ends with LE Scan Timeout")
    func durations() throws {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 1))
        Self.setUp(advertiser, properties: [])
        #expect(Self.enable(advertiser, duration: 50) == .success)
        let start = air.now
        scanner.expectSuccess(HCI.LESetExtendedScanParameters(le1M: .init()))
        scanner.expectSuccess(HCI.LESetExtendedScanEnable(enable: true, duration: 30))
        let timeout = scanner.waitForLE { event -> Bool? in event == .scanTimeout ? true : nil }
        #expect(timeout == true)
        #expect(!scanner.controller.isScanning)
        let terminated = try #require(
            advertiser.waitForLE { event -> LEMetaEvent.AdvertisingSetTerminated? in
                if case .advertisingSetTerminated(let t) = event { t } else { nil }
            })
        #expect(terminated.status == .advertisingTimeout)
        #expect(start.duration(to: air.now) == .milliseconds(500))
    }

    @Test("Parameters: unknown sets, invalid combinations, and changes while enabled")
    func parameterRules() throws {
        let host = TestHost(air: VirtualAir())
        #expect(
            host.complete(
                HCI.LESetExtendedAdvertisingParameters(advertisingEventProperties: [.connectable, .scannable])
            )
            .status == .invalidHCICommandParameters)
        #expect(
            host.complete(
                HCI.LESetExtendedAdvertisingParameters(advertisingHandle: 0xF0, advertisingEventProperties: [])
            )
            .status == .invalidHCICommandParameters)
        let selected = try host.returnParameters(
            HCI.LESetExtendedAdvertisingParameters(advertisingEventProperties: [], advertisingTXPower: 40))
        #expect(selected.selectedTXPower == 10)
        #expect(Self.enable(host) == .success)
        #expect(
            host.complete(HCI.LESetExtendedAdvertisingParameters(advertisingEventProperties: [])).status
                == .commandDisallowed)
        #expect(host.complete(HCI.LERemoveAdvertisingSet(advertisingHandle: 0)).status == .commandDisallowed)
        host.expectSuccess(HCI.LESetExtendedAdvertisingEnable(enable: false, sets: []))
        host.expectSuccess(HCI.LERemoveAdvertisingSet(advertisingHandle: 0))
        #expect(host.complete(HCI.LERemoveAdvertisingSet(advertisingHandle: 0)).status == .unknownAdvertisingIdentifier)
        for handle in 0..<4 { Self.setUp(host, handle: UInt8(handle), properties: []) }
        #expect(
            host.complete(HCI.LESetExtendedAdvertisingParameters(advertisingHandle: 9, advertisingEventProperties: []))
                .status == .memoryCapacityExceeded)
        host.expectSuccess(HCI.LEClearAdvertisingSets())
        // A random own address needs the set's random address (§7.8.56).
        host.expectSuccess(
            HCI.LESetExtendedAdvertisingParameters(advertisingEventProperties: [], ownAddressType: .random))
        #expect(Self.enable(host) == .invalidHCICommandParameters)
        host.expectSuccess(
            HCI.LESetAdvertisingSetRandomAddress(
                advertisingHandle: 0, randomAddress: BluetoothAddress(0xC1_0000_0000_01)))
        #expect(Self.enable(host) == .success)
    }
}
