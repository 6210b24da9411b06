import BLEWire
import PropertyBased
import Testing

@Suite("HCI event decoders never trap on random input (Core 5.4 Vol 4 Part E §5.4.4, §7.7)")
struct HCIEventFuzzTests {
    /// Every event code with a typed decoder, and a vendor code.
    static let eventCodes: [UInt8] = [0x05, 0x08, 0x0C, 0x0E, 0x0F, 0x10, 0x13, 0x1A, 0x30, 0x3E, 0x59, 0xFF]
    /// Every LE subevent code with a typed decoder, and an unknown one.
    static let subeventCodes: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x11, 0x12, 0x13, 0x14,
        0x29, 0x3F,
    ]
    /// Decoders whose first parameter is a report or handle count.
    static let countedSubevents: Set<UInt8> = [0x02, 0x0B, 0x0D]

    @Test("§5.4.4: random bytes never trap HCIEvent, HCIEventPacket or LEMetaEvent")
    func randomBytesNeverTrap() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(HCIEvent.self, bytes)
            expectNoTrap(HCIEventPacket.self, bytes)
            expectNoTrap(LEMetaEvent.self, bytes)
        }
    }

    @Test("§7.7: random parameters under every known event code never trap, with a valid length")
    func everyEventDecoderFuzzed() async {
        await propertyCheck(
            count: 4000, input: Gen.int(in: 0...(Self.eventCodes.count - 1)), randomBytes,
            Gen.uint8(in: 0...3)
        ) { index, parameters, smallCount in
            var parameters = parameters
            let code = Self.eventCodes[index]
            // Often give Num_Handles a small value so the entries are decoded too.
            if code == 0x13, !parameters.isEmpty, smallCount < 3 { parameters[0] = smallCount }
            expectNoTrap(HCIEvent.self, [code, UInt8(parameters.count)] + parameters)
        }
    }

    @Test("§7.7.65: random parameters under every LE subevent code never trap, with a valid length")
    func everyLESubeventDecoderFuzzed() async {
        await propertyCheck(
            count: 6000, input: Gen.int(in: 0...(Self.subeventCodes.count - 1)), randomBytes,
            Gen.uint8(in: 0...3)
        ) { index, tail, smallCount in
            var parameters = [Self.subeventCodes[index]] + tail
            // Often give Num_Reports a small value so the reports themselves are decoded.
            if Self.countedSubevents.contains(parameters[0]), parameters.count > 1, smallCount < 3 {
                parameters[1] = smallCount
            }
            let packet = [0x3E, UInt8(parameters.count)] + parameters
            expectNoTrap(HCIEvent.self, packet)
            expectNoTrap(LEMetaEvent.self, parameters)
        }
    }

    @Test("§7.7.65.2 and §7.7.65.13: well-formed random reports always decode and round-trip")
    func wellFormedReports() async throws {
        await propertyCheck(
            count: 500, input: Gen.uint8(in: 0...31), Gen.int8(), Gen.uint64(in: 0...0xFFFF_FFFF_FFFF),
            Gen.uint8(in: 0...4)
        ) { length, rssi, address, eventType in
            let data = ArraySlice((0..<Int(length)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let report = LEMetaEvent.AdvertisingReport.Report(
                eventType: .init(rawValue: eventType),
                address: LEAddress(BluetoothAddress(address), type: .random), data: data, rssi: rssi)
            let legacy = HCIEvent.le(.advertisingReport(.init(reports: [report, report])))
            #expect((try? HCIEvent(decoding: legacy.encoded)) == legacy)
            let extended = HCIEvent.le(
                .extendedAdvertisingReport(
                    .init(reports: [
                        .init(
                            eventType: .init(rawValue: UInt16(eventType)),
                            address: LEAddress(BluetoothAddress(address), type: .public), rssi: rssi,
                            data: data)
                    ])))
            #expect((try? HCIEvent(decoding: extended.encoded)) == extended)
        }
    }
}
