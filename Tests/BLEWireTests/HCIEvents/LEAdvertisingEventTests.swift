import BLEWire
import Testing

@Suite("HCI LE Meta advertising subevents (Core 5.4 Vol 4 Part E §7.7.65)")
struct LEAdvertisingEventTests {
    typealias Legacy = LEMetaEvent.AdvertisingReport
    typealias Extended = LEMetaEvent.ExtendedAdvertisingReport

    static let advertiser = LEAddress(BluetoothAddress(0xC0_11_22_33_44_55), type: .random)
    static let target = LEAddress(BluetoothAddress(0x51_22_33_44_55_66), type: .random)

    static let extendedLegacy = Extended.Report(
        eventType: [.connectable, .scannable, .legacy], address: advertiser, rssi: -59,
        data: [0x02, 0x01, 0x06])
    static let extendedChained = Extended.Report(
        eventType: Extended.EventType(rawValue: 0x0021),
        address: LEAddress(advertiser.address, type: .public),
        primaryPHY: PHY.codedS8.hci, secondaryPHY: PHY.le2M.hci, advertisingSID: 0x05, txPower: 8, rssi: -75,
        periodicAdvertisingInterval: 0x0050, data: [0x01, 0x02])

    /// One value of every advertising-related subevent.
    static let events: [LEMetaEvent] = [
        .advertisingReport(.init(reports: [])),
        .advertisingReport(
            .init(reports: [
                .init(eventType: .advInd, address: advertiser, data: [0x02, 0x01, 0x06], rssi: -59),
                .init(eventType: .scanRsp, address: advertiser, data: [], rssi: 127),
                .init(
                    eventType: .other(0x07), address: advertiser,
                    data: ArraySlice(repeating: 0xAB, count: 31), rssi: 0),
            ])),
        .directedAdvertisingReport(
            .init(reports: [.init(address: advertiser, directAddress: target, rssi: -80)])),
        .extendedAdvertisingReport(.init(reports: [extendedLegacy, extendedChained])),
        .extendedAdvertisingReport(
            .init(reports: [
                .init(
                    eventType: [.directed], address: LEAddress(.zero, type: .other(0xFF)), rssi: 127,
                    directAddress: LEAddress(target.address, type: .other(0xFE)),
                    data: ArraySlice(repeating: 0x55, count: 200))
            ])),
        .advertisingSetTerminated(
            .init(advertisingHandle: 1, connectionHandle: 0x40, numCompletedExtendedAdvertisingEvents: 0)),
        .scanRequestReceived(.init(advertisingHandle: 0, scannerAddress: target)),
        .scanTimeout,
    ]

    @Test("Every advertising subevent round-trips inside an LE Meta event")
    func roundTrips() throws {
        for event in Self.events {
            try expectRoundTrip(event)
            try expectRoundTrip(HCIEvent.le(event))
        }
    }

    @Test("§7.7.65.2: LE Advertising Report of an iBeacon, from a real hcidump capture")
    func iBeaconReport() throws {
        // hcidump of a scan: "04 3E 2A 02 01 03 00 EC F8 00 EE F3 0C 1E 02 01 04 1A FF 4C 00 02
        // 15 …", ADV_NONCONN_IND from public 0C:F3:EE:00:F8:EC, 30 octets of data, RSSI −69.
        let bytes = hex(
            "3e 2a 02 01 03 00 ec f8 00 ee f3 0c 1e 02 01 04 1a ff 4c 00 02 15 8d ee fb b9 f7 38 42 97"
                + " 80 40 96 66 8b b4 42 81 13 88 0f 4e c1 bb")
        let event = try HCIEvent(decoding: bytes)
        guard case .le(.advertisingReport(let payload)) = event else {
            Issue.record("expected an advertising report, got \(event)")
            return
        }
        #expect(payload.reports.count == 1)
        let report = try #require(payload.reports.first)
        #expect(report.eventType == .advNonconnInd)
        #expect(report.address == LEAddress(BluetoothAddress(0x0C_F3_EE_00_F8_EC), type: .public))
        #expect(report.data.count == 30)
        #expect(Array(report.data.prefix(9)) == hex("02 01 04 1a ff 4c 00 02 15"))
        #expect(report.data.startIndex == 13)
        #expect(report.rssi == -69)
        #expect(report.rssiIfAvailable == -69)
        #expect(event.encoded == bytes)
    }

    @Test("§7.7.65.2: LE Advertising Report of an Eddystone beacon, from a real capture")
    func eddystoneReport() throws {
        // "04 3E 29 02 01 00 01 F5 53 E0 AA 15 E5 1D …": ADV_IND from random E5:15:AA:E0:53:F5.
        let bytes = hex(
            "3e 29 02 01 00 01 f5 53 e0 aa 15 e5 1d 02 01 06 03 03 aa fe 15 16 aa fe 00 df ed d1 eb ea"
                + " c0 4e 5d ef a0 17 e5 15 aa e0 53 f5 cb")
        let event = try HCIEvent(decoding: bytes)
        guard case .le(.advertisingReport(let payload)) = event, let report = payload.reports.first else {
            Issue.record("expected an advertising report, got \(event)")
            return
        }
        #expect(report.eventType == .advInd)
        #expect(report.address == LEAddress(BluetoothAddress(0xE5_15_AA_E0_53_F5), type: .random))
        #expect(report.address.kind == .randomStatic)
        #expect(report.data.count == 29)
        #expect(report.rssi == -53)
        #expect(event.encoded == bytes)
    }

    @Test("§7.7.65.2: several reports in one event, one after another")
    func severalReports() throws {
        let bytes = hex(
            "3e 19 02 02 00 01 55 44 33 22 11 c0 03 02 01 06 c5 04 01 55 44 33 22 11 c0 00 7f")
        let event = try HCIEvent(decoding: bytes)
        #expect(
            event
                == .le(
                    .advertisingReport(
                        .init(reports: [
                            .init(
                                eventType: .advInd, address: Self.advertiser, data: [0x02, 0x01, 0x06],
                                rssi: -59),
                            .init(eventType: .scanRsp, address: Self.advertiser, data: [], rssi: 127),
                        ]))))
        guard case .le(.advertisingReport(let payload)) = event else { return }
        #expect(Array(payload.reports)[1].rssiIfAvailable == nil)
        #expect(event.encoded == bytes)
    }

    @Test("§7.7.65.2: Num_Reports beyond the octets present is a typed error")
    func reportCountMismatch() {
        // Two reports announced, 13 octets present (at least 20 needed).
        expectDecodeError(
            HCIEvent.self, hex("3e 0f 02 02 00 01 55 44 33 22 11 c0 03 02 01 06 c5"),
            .truncated(needed: 20, available: 13), field: "Num_Reports")
        // Enough octets for the minimum, but the second report stops after its address.
        expectDecodeError(
            HCIEvent.self, hex("3e 17 02 02 00 01 55 44 33 22 11 c0 03 02 01 06 c5 04 01 55 44 33 22 11 c0"),
            .truncated(needed: 1, available: 0), field: "Data_Length")
    }

    @Test("§7.7.65.2: Data_Length above 31 or past the end is a typed error")
    func reportDataLength() {
        expectDecodeError(
            HCIEvent.self, hex("3e 0c 02 01 00 01 55 44 33 22 11 c0 20 c5"),
            .outOfRange(value: 32, allowed: 0...31), field: "Data_Length")
        expectDecodeError(
            HCIEvent.self, hex("3e 0c 02 01 00 01 55 44 33 22 11 c0 05 c5"),
            .truncated(needed: 5, available: 1), field: "Data")
        expectDecodeError(
            HCIEvent.self, hex("3e 0c 02 01 00 01 55 44 33 22 11 c0 01 02"),
            .truncated(needed: 1, available: 0), field: "RSSI")
    }

    @Test("§7.7.65.11: LE Directed Advertising Report, byte-exact; count checked")
    func directedReport() throws {
        let bytes = hex("3e 12 0b 01 01 01 55 44 33 22 11 c0 01 66 55 44 33 22 51 b0")
        let event = try HCIEvent(decoding: bytes)
        #expect(
            event
                == .le(
                    .directedAdvertisingReport(
                        .init(reports: [
                            .init(address: Self.advertiser, directAddress: Self.target, rssi: -80)
                        ]))))
        #expect(event.encoded == bytes)
        expectDecodeError(
            HCIEvent.self, hex("3e 12 0b 02 01 01 55 44 33 22 11 c0 01 66 55 44 33 22 51 b0"),
            .truncated(needed: 32, available: 16), field: "Num_Reports")
    }

    @Test("§7.7.65.13: LE Extended Advertising Report with a legacy and a chained report")
    func extendedReport() throws {
        let legacy = "13 00 01 55 44 33 22 11 c0 01 00 ff 7f c5 00 00 00 00 00 00 00 00 00 03 02 01 06"
        let chained = "21 00 00 55 44 33 22 11 c0 03 02 05 08 b5 50 00 00 00 00 00 00 00 00 02 01 02"
        let bytes = hex("3e 37 0d 02 " + legacy + " " + chained)
        let event = try HCIEvent(decoding: bytes)
        #expect(
            event
                == .le(
                    .extendedAdvertisingReport(.init(reports: [Self.extendedLegacy, Self.extendedChained]))))
        #expect(event.encoded == bytes)
        guard case .le(.extendedAdvertisingReport(let payload)) = event else { return }
        let first = Array(payload.reports)[0]
        #expect(first.eventType.legacyEventType == .advInd)
        #expect(first.eventType.dataStatus == .complete)
        #expect(first.secondaryPHY == nil)
        #expect(first.txPowerIfAvailable == nil)
        #expect(first.data.startIndex == 28)
        let second = Array(payload.reports)[1]
        #expect(second.eventType.contains(.connectable))
        #expect(!second.eventType.contains(.legacy))
        #expect(second.eventType.legacyEventType == nil)
        #expect(second.eventType.dataStatus == .incompleteMoreToCome)
        #expect(second.primaryPHY == PHY.codedS8.hci)
        #expect(second.secondaryPHY == PHY.le2M.hci)
        #expect(second.advertisingSID == 5)
        #expect(second.txPowerIfAvailable == 8)
        #expect(second.periodicAdvertisingIntervalMilliseconds == 100)
        #expect(!second.isAnonymous)
    }

    @Test("§7.7.65.13: the Event_Type bits: properties, data status, legacy PDU combinations")
    func extendedEventTypeBits() {
        var type: Extended.EventType = [.connectable, .scannable]
        type.dataStatus = .incompleteTruncated
        #expect(type.rawValue == 0b100_0011)
        type.dataStatus = .complete
        #expect(type.rawValue == 0b000_0011)
        #expect(Extended.EventType(rawValue: 0x0060).dataStatus == .reserved)
        #expect(Extended.EventType(rawValue: 0b001_0101).legacyEventType == .advDirectInd)
        #expect(Extended.EventType(rawValue: 0b001_0010).legacyEventType == .advScanInd)
        #expect(Extended.EventType(rawValue: 0b001_0000).legacyEventType == .advNonconnInd)
        #expect(Extended.EventType(rawValue: 0b001_1011).legacyEventType == .scanRsp)
        #expect(Extended.EventType(rawValue: 0b001_1010).legacyEventType == .scanRsp)
        #expect(Extended.EventType(rawValue: 0b000_0011).legacyEventType == nil)
        // Reserved bits are kept.
        #expect(Extended.EventType(rawValue: 0x8013).rawValue == 0x8013)
    }

    @Test("§7.7.65.13: report count and Data_Length are checked against the octets present")
    func extendedReportMalformed() {
        let report = "13 00 01 55 44 33 22 11 c0 01 00 ff 7f c5 00 00 00 00 00 00 00 00 00"
        expectDecodeError(
            HCIEvent.self, hex("3e 1d 0d 02 " + report + " 03 02 01 06"),
            .truncated(needed: 48, available: 27), field: "Num_Reports")
        expectDecodeError(
            HCIEvent.self, hex("3e 1a 0d 01 " + report + " e6"),
            .outOfRange(value: 230, allowed: 0...229), field: "Data_Length")
        expectDecodeError(
            HCIEvent.self, hex("3e 1c 0d 01 " + report + " 05 02 01"),
            .truncated(needed: 5, available: 2), field: "Data")
    }

    @Test("§7.7.65.18 and §7.7.65.19: advertising set terminated and scan request received")
    func advertisingSetEvents() throws {
        let terminated = try HCIEvent(decoding: hex("3e 06 12 00 01 40 00 00"))
        #expect(
            terminated
                == .le(
                    .advertisingSetTerminated(
                        .init(
                            advertisingHandle: 1, connectionHandle: 0x40,
                            numCompletedExtendedAdvertisingEvents: 0))))
        let timeout = try HCIEvent(decoding: hex("3e 06 12 3c 00 00 00 05"))
        guard case .le(.advertisingSetTerminated(let payload)) = timeout else {
            Issue.record("expected Advertising Set Terminated")
            return
        }
        #expect(payload.status == .advertisingTimeout)
        #expect(payload.numCompletedExtendedAdvertisingEvents == 5)
        let request = try HCIEvent(decoding: hex("3e 09 13 00 01 66 55 44 33 22 51"))
        #expect(
            request == .le(.scanRequestReceived(.init(advertisingHandle: 0, scannerAddress: Self.target))))
        expectDecodeError(
            HCIEvent.self, hex("3e 05 12 00 01 40 00"), .truncated(needed: 1, available: 0),
            field: "Num_Completed_Extended_Advertising_Events")
        expectDecodeError(
            HCIEvent.self, hex("3e 08 13 00 01 66 55 44 33 22"), .truncated(needed: 6, available: 5),
            field: "Scanner_Address")
    }

    @Test("Advertising reports render their event types and data")
    func rendering() throws {
        let event = try HCIEvent(decoding: hex("3e 0d 02 01 00 01 55 44 33 22 11 c0 01 02 c5"))
        #expect(event.description.hasPrefix("le.advertisingReport { reports: [{ eventType: ADV_IND, address: "))
        #expect(event.description.contains("data: 02, rssi: -59"))
        let extended = HCIEvent.le(.extendedAdvertisingReport(.init(reports: [Self.extendedChained])))
        #expect(extended.description.contains("eventType: connectable, incomplete, more to come (0x0021)"))
        #expect(extended.json.contains("\"type\":\"le.extendedAdvertisingReport\""))
    }
}
