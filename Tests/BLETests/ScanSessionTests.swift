import BLEWire
import Testing

@testable import BLE

/// The host's scan filter on scripted advertising reports (Core 5.4 Vol 4 Part E §7.7.65.2).
@Suite("Scan session: scan responses, lost responses, malformed data, filters")
struct ScanSessionTests {
    typealias Report = LEMetaEvent.AdvertisingReport.Report

    static let address = LEAddress(BluetoothAddress(0xC0FF_EE00_0001), type: .random)
    static let other = LEAddress(BluetoothAddress(0x0000_0000_0002), type: .public)
    static let advertising: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18]
    static let response: [UInt8] = [0x04, 0x09, 0x48, 0x52, 0x53]

    static func report(
        _ type: LEMetaEvent.AdvertisingReport.EventType, _ data: [UInt8], from address: LEAddress = address
    ) -> Report {
        Report(eventType: type, address: address, data: data[...], rssi: -50)
    }

    @Test("A scannable advertisement is reported with its scan response, merged (active scanning)")
    func merged() {
        var session = ScanSession(services: nil, options: ScanOptions())
        #expect(session.receive(Self.report(.advInd, Self.advertising)).isEmpty)
        let found = session.receive(Self.report(.scanRsp, Self.response))
        #expect(found.count == 1)
        #expect(found.first?.advertisement.localName == "HRS")
        #expect(found.first?.advertisement.serviceUUIDs == [0x180D])
        #expect(found.first?.advertisement.isConnectable == true)
        #expect(found.first?.advertisement.scanResponseData?.count == 1)
    }

    @Test("An advertisement whose scan response was lost is reported at the next advertisement")
    func lostResponse() {
        var session = ScanSession(services: nil, options: ScanOptions(allowDuplicates: true))
        #expect(session.receive(Self.report(.advScanInd, Self.advertising)).isEmpty)
        let found = session.receive(Self.report(.advScanInd, Self.advertising))
        #expect(found.count == 1)
        #expect(found.first?.advertisement.scanResponseData == nil)
        #expect(found.first?.advertisement.isConnectable == false)
        // A scan response nobody waits for is dropped.
        #expect(session.receive(Self.report(.scanRsp, Self.response, from: Self.other)).isEmpty)
    }

    @Test("Advertising data that does not decode as AD structures is dropped (CSS Part A)")
    func malformed() {
        var session = ScanSession(services: nil, options: ScanOptions())
        #expect(session.receive(Self.report(.advNonconnInd, [0x05, 0x09, 0x41])).isEmpty)
        // Kept for the manager to log, with the advertiser and why.
        #expect(session.undecodable?.address == Self.address)
        #expect(session.undecodable?.reason.isEmpty == false)
        session.undecodable = nil
        #expect(session.receive(Self.report(.advNonconnInd, Self.advertising)).count == 1)
        #expect(session.undecodable == nil)
    }

    @Test("Duplicates are dropped unless allowed; the service filter applies to the merged data")
    func filters() {
        var once = ScanSession(services: [0x180D], options: ScanOptions(active: false))
        #expect(once.receive(Self.report(.advInd, Self.advertising)).count == 1)
        #expect(once.receive(Self.report(.advInd, Self.advertising)).isEmpty)
        #expect(once.receive(Self.report(.advInd, Self.advertising, from: Self.other)).count == 1)
        var filtered = ScanSession(services: [0x180F], options: ScanOptions(active: false))
        #expect(filtered.receive(Self.report(.advInd, Self.advertising)).isEmpty)
        var directed = ScanSession(services: nil, options: ScanOptions())
        let found = directed.receive(Self.report(.advDirectInd, []))
        #expect(found.first?.advertisement.isConnectable == true)
    }
}

/// Extended advertising reports (Core 5.4 Vol 4 Part E §7.7.65.13), which some controllers
/// (Bumble's virtual one) send even to a legacy scan.
@Suite("Scan session: extended advertising reports to a legacy scan")
struct ExtendedReportScanTests {
    typealias Report = LEMetaEvent.ExtendedAdvertisingReport.Report
    typealias EventType = LEMetaEvent.ExtendedAdvertisingReport.EventType

    static let address = ScanSessionTests.address
    static let advertising = ScanSessionTests.advertising
    static let response = ScanSessionTests.response

    static func report(_ type: EventType, _ data: [UInt8], dataStatus: UInt16 = 0) -> Report {
        Report(
            eventType: EventType(rawValue: type.rawValue | dataStatus << 5), address: address, rssi: -50,
            data: data[...])
    }

    @Test("A legacy ADV_IND (0x13) and its scan response (0x1B) are merged as with legacy reports")
    func legacyPDUs() {
        var session = ScanSession(services: nil, options: ScanOptions())
        #expect(session.receive(Self.report(EventType(rawValue: 0x13), Self.advertising)).isEmpty)
        let found = session.receive(Self.report(EventType(rawValue: 0x1B), Self.response))
        #expect(found.count == 1)
        #expect(found.first?.advertisement.localName == "HRS")
        #expect(found.first?.advertisement.isConnectable == true)
    }

    @Test("A connectable, non-scannable extended advertisement is reported at once; a stray scan response is not")
    func connectableExtended() {
        var session = ScanSession(services: [0x180D], options: ScanOptions())
        let found = session.receive(Self.report(.connectable, Self.advertising))
        #expect(found.count == 1)
        #expect(found.first?.advertisement.serviceUUIDs == [0x180D])
        #expect(found.first?.advertisement.isConnectable == true)
        #expect(session.receive(Self.report(.scanResponse, Self.advertising)).isEmpty)
    }

    @Test("Fragments with Data_Status 'more to come' are joined before the advertisement is reported")
    func fragments() {
        var session = ScanSession(services: nil, options: ScanOptions())
        let whole = Self.advertising + Self.response
        #expect(session.receive(Self.report([], Array(whole.prefix(5)), dataStatus: 0b01)).isEmpty)
        let found = session.receive(Self.report([], Array(whole.dropFirst(5))))
        #expect(found.count == 1)
        #expect(found.first?.advertisement.localName == "HRS")
        #expect(found.first?.advertisement.serviceUUIDs == [0x180D])
        #expect(found.first?.advertisement.isConnectable == false)
    }
}
