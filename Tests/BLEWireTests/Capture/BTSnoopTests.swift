import BLEWire
import PropertyBased
import Testing

@Suite("btsnoop capture files (btmon / Android snoop log format, datalink 1002 H4)")
struct BTSnoopTests {
    static let reset = H4Packet(type: .command, payload: hex("03 0c 00"))
    static let resetComplete = H4Packet(type: .event, payload: hex("0e 04 01 03 0c 00"))
    static let exchangeMTU = H4Packet(type: .acl, payload: hex("40 00 07 00 03 00 04 00 02 f7 00"))

    /// The file header and one record: HCI_Reset sent at the Unix epoch, written out by hand
    /// from the format's definition (big-endian lengths, flags 2 = command, host → controller,
    /// timestamp 0x00E03AB44A676000 µs = 1970-01-01 from year 0).
    static let resetAtEpoch = hex(
        """
        62 74 73 6e 6f 6f 70 00  00 00 00 01  00 00 03 ea
        00 00 00 04  00 00 00 04  00 00 00 02  00 00 00 00  00 e0 3a b4 4a 67 60 00
        01 03 0c 00
        """)

    static func file(_ packets: [(H4Packet, BTSnoopDirection)], datalink: BTSnoopDatalink = .h4) -> [UInt8] {
        var writer = BTSnoopWriter(datalink: datalink)
        for (index, (packet, direction)) in packets.enumerated() {
            writer.append(
                packet, direction: direction,
                timestamp: BTSnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000 + Int64(index) * 1250))
        }
        return writer.bytes
    }

    static func readAll(_ bytes: [UInt8]) throws(DecodeError) -> (BTSnoopDatalink, [BTSnoopRecord]) {
        var reader = try BTSnoopReader(bytes)
        var records: [BTSnoopRecord] = []
        while let record = try reader.next() { records.append(record) }
        return (reader.datalink, records)
    }

    @Test("Writer output is byte-exact: header 'btsnoop\\0', version 1, datalink 1002, big-endian record")
    func byteExactVector() throws {
        var writer = BTSnoopWriter()
        writer.append(Self.reset, direction: .sent, timestamp: BTSnoopTimestamp(unixMicroseconds: 0))
        #expect(writer.bytes == Self.resetAtEpoch)
        let (datalink, records) = try Self.readAll(Self.resetAtEpoch)
        #expect(datalink == .h4)
        #expect(records.count == 1)
        #expect(records[0].timestamp.microsecondsSinceYearZero == 0x00E0_3AB4_4A67_6000)
        #expect(records[0].timestamp.unixMicroseconds == 0)
        #expect(records[0].timestamp.description == "1970-01-01 00:00:00.000000")
        #expect(try records[0].packet(datalink: .h4) == Self.reset)
    }

    @Test("Round trip: every packet type, both directions, flags, drops and time stamps survive")
    func roundTrip() throws {
        let packets: [(H4Packet, BTSnoopDirection)] = [
            (Self.reset, .sent), (Self.resetComplete, .received), (Self.exchangeMTU, .sent),
            (Self.exchangeMTU, .received), (H4Packet(type: .sco, payload: hex("01 10 03 aa bb cc")), .received),
            (H4Packet(type: .acl, payload: hex("40 20 00 00")), .sent),
        ]
        let (datalink, records) = try Self.readAll(Self.file(packets))
        #expect(datalink == .h4)
        #expect(records.count == packets.count)
        for (index, record) in records.enumerated() {
            #expect(try record.packet(datalink: .h4) == packets[index].0)
            #expect(record.direction == packets[index].1)
            // Bit 1: commands and events, not data.
            let type = packets[index].0.type
            #expect(record.isCommandOrEvent == (type == .command || type == .event))
            #expect(record.flags == (record.direction == .received ? 1 : 0) | (record.isCommandOrEvent ? 2 : 0))
            #expect(record.timestamp.unixMicroseconds == 1_700_000_000_000_000 + Int64(index) * 1250)
            #expect(!record.isSnapped)
        }
        #expect(records[0].timestamp.description == "2023-11-14 22:13:20.000000")
        let dropped = BTSnoopRecord(
            originalLength: 10, direction: .received, isCommandOrEvent: false, cumulativeDrops: 7,
            timestamp: BTSnoopTimestamp(microsecondsSinceYearZero: -5), data: hex("02 40 00")[...])
        var writer = BTSnoopWriter()
        writer.append(dropped)
        let (_, again) = try Self.readAll(writer.bytes)
        #expect(again == [dropped])
        #expect(again[0].isSnapped)
    }

    @Test("Datalink 1001 (unframed HCI): the flags give the packet type; round trip drops the indicator")
    func unframedDatalink() throws {
        let packets: [(H4Packet, BTSnoopDirection)] = [
            (Self.reset, .sent), (Self.resetComplete, .received), (Self.exchangeMTU, .received),
        ]
        let bytes = Self.file(packets, datalink: .hciUnframed)
        #expect(bytes[12..<16] == [0x00, 0x00, 0x03, 0xE9])
        let (datalink, records) = try Self.readAll(bytes)
        #expect(datalink == .hciUnframed)
        #expect(records.map(\.data.count) == [3, 6, 11])
        #expect(try records.map { try $0.packet(datalink: .hciUnframed) } == packets.map(\.0))
    }

    @Test("A wrong identification pattern is refused with the field and the octets found")
    func badMagic() {
        var bytes = Self.resetAtEpoch
        bytes[0] = 0x42
        #expect(
            throws: DecodeError(
                context: "btsnoop file header", field: "Identification Pattern", offset: 0,
                reason: .invalidValue(0x4274_736E_6F6F_7000))
        ) { try BTSnoopReader(bytes) }
        #expect(
            throws: DecodeError(
                context: "btsnoop file header", field: "Identification Pattern", offset: 0,
                reason: .truncated(needed: 8, available: 5))
        ) { try BTSnoopReader(Array(bytes.prefix(5))) }
    }

    @Test("Version other than 1 and datalinks other than 1001/1002 are refused")
    func unsupportedHeader() {
        var version2 = Self.resetAtEpoch
        version2[11] = 2
        #expect(
            throws: DecodeError(
                context: "btsnoop file header", field: "Version Number", offset: 8, reason: .invalidValue(2))
        ) {
            try BTSnoopReader(version2)
        }
        var datalink = Self.resetAtEpoch
        datalink[14] = 0x03
        datalink[15] = 0xEB  // 1003
        #expect(
            throws: DecodeError(
                context: "btsnoop file header", field: "Datalink Type", offset: 12, reason: .invalidValue(1003))
        ) {
            try BTSnoopReader(datalink)
        }
        #expect(
            throws: DecodeError(
                context: "btsnoop file header", field: "Datalink Type", offset: 12,
                reason: .truncated(needed: 4, available: 2))
        ) { try BTSnoopReader(Array(Self.resetAtEpoch.prefix(14))) }
    }

    @Test("A header alone is an empty capture")
    func emptyCapture() throws {
        let (_, records) = try Self.readAll(BTSnoopWriter().bytes)
        #expect(records.isEmpty)
    }

    @Test("A record cut short fails after the records before it were returned, at the record's offset")
    func truncatedRecord() throws {
        let whole = Self.file([(Self.reset, .sent), (Self.resetComplete, .received)])
        let secondStart = 16 + 24 + 4
        // Cut in the record header, then in the packet data.
        let cuts: [(cut: Int, field: StaticString, offset: Int, needed: Int, available: Int)] = [
            (secondStart + 10, "Packet Flags", secondStart + 8, 4, 2),
            (whole.count - 1, "Packet Data", secondStart + 24, 7, 6),
        ]
        for (cut, field, offset, needed, available) in cuts {
            var reader = try BTSnoopReader(Array(whole.prefix(cut)))
            #expect(try reader.next()?.data == Self.reset.encoded[...])
            #expect(reader.offset == secondStart)
            #expect(
                throws: DecodeError(
                    context: "btsnoop record", field: field, offset: offset,
                    reason: .truncated(needed: needed, available: available))
            ) { try reader.next() }
            // The reader stays at the damaged record's start.
            #expect(reader.offset == secondStart)
            #expect(reader.recordCount == 1)
        }
    }

    @Test("A record keeping more octets than the packet had (included > original) is refused")
    func includedLongerThanOriginal() throws {
        var bytes = Self.resetAtEpoch
        bytes[19] = 3  // original 3, included 4
        var reader = try BTSnoopReader(bytes)
        #expect(
            throws: DecodeError(
                context: "btsnoop record", field: "Included Length", offset: 20,
                reason: .outOfRange(value: 4, allowed: 0...3))
        ) { try reader.next() }
    }

    @Test("An included length of 4 GiB is a truncation error, not an allocation")
    func hugeIncludedLength() throws {
        var bytes = Self.resetAtEpoch
        bytes.replaceSubrange(16..<24, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        var reader = try BTSnoopReader(bytes)
        #expect(
            throws: DecodeError(
                context: "btsnoop record", field: "Packet Data", offset: 40,
                reason: .truncated(needed: 0xFFFF_FFFF, available: 4))
        ) { try reader.next() }
    }

    @Test("Time stamps far from today saturate and still print")
    func extremeTimestamps() {
        for raw in [Int64.min, -1, 0, Int64.max] {
            let stamp = BTSnoopTimestamp(microsecondsSinceYearZero: raw)
            #expect(!stamp.description.isEmpty)
        }
        #expect(BTSnoopTimestamp(microsecondsSinceYearZero: .min).unixMicroseconds == .min)
        #expect(BTSnoopTimestamp(unixMicroseconds: .max).microsecondsSinceYearZero == .max)
    }

    @Test("Random bytes after a valid header, and random headers, never trap the reader")
    func randomBytesNeverTrap() async {
        let header = BTSnoopWriter.fileHeader(datalink: .h4)
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...120), Gen.bool) { tail, withHeader in
            var bytes = withHeader ? header + tail : tail
            if withHeader, bytes.count > 19 { bytes[16...19] = [0, 0, 0, 0x40] }  // some plausible lengths
            guard var reader = try? BTSnoopReader(bytes) else { return }
            var records = 0
            while let record = try? reader.next() {
                records += 1
                _ = try? record.packet(datalink: reader.datalink)
                _ = record.timestamp.description
                if records > bytes.count { Issue.record("reader does not advance") }
            }
        }
    }
}
