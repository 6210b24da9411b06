import BLECompanion
import Testing

/// Intel HEX ("Hexadecimal Object File Format Specification", Intel 1988): records 00–05, each
/// with its byte count and checksum; the flat image from the lowest address, gaps 0xFF.
@Suite("Firmware files: Intel HEX")
struct IntelHexTests {
    typealias S = FirmwareSamples

    func recognize(_ text: String, name: String = "headset-2.1.0.hex") throws(FirmwareFileError) -> FirmwareFile {
        try FirmwareFile.recognize(bytes: Array(text.utf8), fileName: name)
    }

    func expectError(
        _ text: String, line: Int, _ problem: IntelHexProblem, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(throws: FirmwareFileError.intelHex(line: line, problem), sourceLocation: sourceLocation) {
            try recognize(text)
        }
    }

    @Test(
        "A HEX file with extended linear addresses across a 64 KiB boundary gives the flat image from its lowest address"
    )
    func flatImage() throws {
        let data = S.payload(3000)
        let file = try recognize(S.intelHex(data, at: 0x0000_FC00))
        #expect(file.format == .intelHex)
        #expect(file.image.bytes == data)
        #expect(file.image.version.description == "2.1.0")
        #expect(file.versionSource == .fileName)
        guard case .intelHex(let hex) = file.contents else { Issue.record("not Intel HEX"); return }
        #expect(hex.baseAddress == 0xFC00)
        #expect(hex.startAddress == 0xFC00)
        #expect(hex.recordCount == 188 + 2 + 2)  // 188 data records, two 04 records, 05, 01
        #expect(file.checks.contains("192 record checksums and lengths"))
        #expect(file.notes.isEmpty)
    }

    @Test("CRLF line endings, lower-case digits and blank lines are accepted")
    func lenientText() throws {
        let data = S.payload(40)
        let text = "\r\n" + S.intelHex(data, at: 0x1000, lineEnding: "\r\n").lowercased() + "\r\n\r\n"
        #expect(try recognize(text).image.bytes == data)
    }

    @Test("Extended segment addresses (02) move the base by 16 × segment; a start segment address (03) is kept")
    func segments() throws {
        let text = [
            S.hexRecord(0x02, [0x10, 0x00]), S.hexRecord(0x00, address: 0x0004, [1, 2, 3, 4]),
            S.hexRecord(0x03, [0x10, 0x00, 0x00, 0x04]), S.hexRecord(0x01),
        ].joined(separator: "\n")
        let file = try recognize(text)
        guard case .intelHex(let hex) = file.contents else { Issue.record("not Intel HEX"); return }
        #expect(hex.baseAddress == 0x10004)
        #expect(hex.startAddress == 0x1000_0004)
        #expect(file.image.bytes == [1, 2, 3, 4])
    }

    @Test("Gaps between records are filled with 0xFF, as erased flash reads, and noted")
    func gaps() throws {
        let text = [
            S.hexRecord(0x00, address: 0x0100, [1, 2]), S.hexRecord(0x00, address: 0x0106, [3]),
            S.hexRecord(0x01),
        ].joined(separator: "\n")
        let file = try recognize(text)
        #expect(file.image.bytes == [1, 2, 0xFF, 0xFF, 0xFF, 0xFF, 3])
        #expect(file.notes == ["gaps of 4 bytes filled with 0xFF"])
    }

    @Test("Records out of address order are placed by address")
    func outOfOrder() throws {
        let text = [
            S.hexRecord(0x00, address: 0x0010, [9, 9]), S.hexRecord(0x00, address: 0x0000, [1]), S.hexRecord(0x01),
        ].joined(separator: "\n")
        let file = try recognize(text)
        #expect(file.image.bytes.count == 0x12)
        #expect(file.image.bytes.first == 1 && file.image.bytes.suffix(2) == [9, 9])
    }

    @Test("Every damaged line is a typed error naming its line")
    func damagedLines() {
        let good = S.hexRecord(0x00, address: 0, [1, 2, 3])
        let eof = S.hexRecord(0x01)
        // A wrong checksum: the record's bytes plus the checksum must sum to zero.
        expectError(
            good + "\n" + S.hexRecord(0x00, address: 3, [4], checksum: 0x00) + "\n" + eof, line: 2,
            .checksum(expected: 0 &- (1 &+ 0 &+ 3 &+ 0 &+ 4), actual: 0x00))
        // The byte count says 3, the line holds 2.
        expectError(good + "\n:0300050001029F\n" + eof, line: 2, .lengthMismatch(declared: 3, actual: 2))
        expectError(good + "\n:03000G00010203F7\n" + eof, line: 2, .notHex(column: 7))
        expectError(good + "\n:0300\n" + eof, line: 2, .tooShort)
        expectError(good + "\n:03000000010203F\n" + eof, line: 2, .tooShort)
        expectError(good + "\n0300000001020300\n" + eof, line: 2, .noStartCode)
        expectError(good + "\n" + S.hexRecord(0x06, [1]) + "\n" + eof, line: 2, .unknownRecordType(6))
        expectError(good + "\n" + S.hexRecord(0x04, [1]) + "\n" + eof, line: 2, .malformedRecord(type: 4))
        expectError(
            good + "\n" + S.hexRecord(0x02, address: 2, [0, 1]) + "\n" + eof, line: 2, .malformedRecord(type: 2))
        expectError(good + "\n" + S.hexRecord(0x05, [0, 0, 1]) + "\n" + eof, line: 2, .malformedRecord(type: 5))
        expectError(good + "\n" + S.hexRecord(0x01, [0]), line: 2, .malformedRecord(type: 1))
        expectError(good + "\n" + eof + "\n" + good, line: 3, .afterEndOfFile)
        expectError(good + "\n" + good, line: 2, .noEndOfFile)
        expectError(S.hexRecord(0x04, [0, 1]) + "\n" + eof, line: 2, .noData)
        // Line 3 writes 0x0002 again, which line 1 wrote.
        expectError(
            good + "\n" + S.hexRecord(0x00, address: 0x10, [7]) + "\n" + S.hexRecord(0x00, address: 2, [5]) + "\n"
                + eof,
            line: 3, .overlap(address: 2))
        // 0x0000 and 0x0800_0000: a 128 MiB span is refused, not allocated.
        expectError(
            good + "\n" + S.hexRecord(0x04, [0x08, 0x00]) + "\n" + S.hexRecord(0x00, address: 0, [1]) + "\n" + eof,
            line: 3, .spanTooLarge(span: 0x0800_0001, limit: IntelHexImage.maximumSpan))
    }

    @Test("An error's description names the line and the problem")
    func errorWords() {
        let error = FirmwareFileError.intelHex(line: 12, .checksum(expected: 0xF7, actual: 0x00))
        #expect(error.description == "Intel HEX line 12: checksum 00 does not match the record (expected F7)")
    }
}

@Suite("Intel HEX writing")
struct IntelHexEncodingTests {
    @Test("IntelHexImage.encoded round-trips through the decoder, across a 64 KiB boundary, and matches the test writer")
    func roundTrip() throws {
        let data = FirmwareSamples.payload(70_000, seed: 3)
        let text = IntelHexImage.encoded(data, at: 0x0800_FF00)
        let image = try IntelHexImage(decoding: Array(text.utf8))
        #expect(image.baseAddress == 0x0800_FF00)
        #expect(image.bytes == data)
        #expect(image.startAddress == 0x0800_FF00)
        #expect(text == FirmwareSamples.intelHex(data, at: 0x0800_FF00))
    }
}
