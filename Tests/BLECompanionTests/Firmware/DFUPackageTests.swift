import BLECompanion
import Testing

/// Nordic DFU packages: a zip (PKWARE APPNOTE.TXT) with manifest.json naming each image's
/// bin_file and dat_file; entries stored or deflated (RFC 1951), CRC-32 checked.
@Suite("Firmware files: Nordic DFU packages, zip and inflate")
struct DFUPackageTests {
    typealias S = FirmwareSamples

    func recognize(_ bytes: [UInt8], name: String = "headset_dfu-2.2.0.zip") throws(FirmwareFileError) -> FirmwareFile {
        try FirmwareFile.recognize(bytes: bytes, fileName: name)
    }

    func expectError(_ bytes: [UInt8], _ error: FirmwareFileError, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: error, sourceLocation: sourceLocation) { try recognize(bytes) }
    }

    @Test("A package with a deflated application and a stored init packet sends the application")
    func application() throws {
        let app = S.payload(5000)
        let file = try recognize(S.dfuPackage(application: app))
        #expect(file.format == .nordicDFUPackage)
        #expect(file.image.bytes == app)
        #expect(file.image.version.description == "2.2.0")
        #expect(file.versionSource == .fileName)
        #expect(file.fileVersion == "fw_version 5")
        guard case .nordicDFUPackage(let package) = file.contents else { Issue.record("not a package"); return }
        #expect(package.images.map(\.kind) == [.application])
        #expect(package.images.first?.decodedInitPacket?.applicationSize == 5000)
        #expect(package.images.first?.decodedInitPacket?.isSigned == true)
        #expect(package.images.first?.initPacketHashChecked == true)
        #expect(package.checkedEntries == 3)
        #expect(file.checks.contains("zip structure and CRC-32 of 3 entries"))
        #expect(file.checks.contains("init packet SHA-256 matches headset_app.bin"))
    }

    @Test("The test's deflate encoder uses back-references (so the inflate under test copies them)")
    func compresses() {
        // Fixed-Huffman literals take 8 or 9 bits each: output shorter than the input needs matches.
        let data = S.payload(5000)
        #expect(S.deflate(data).count < data.count)
        let text = Array(String(repeating: "headset firmware ", count: 100).utf8)
        #expect(S.deflate(text).count < text.count / 10)
    }

    @Test("A softdevice+bootloader beside the application is listed, not sent")
    func combined() throws {
        let file = try recognize(
            S.dfuPackage(application: S.payload(800), softdeviceBootloader: S.payload(300, seed: 9)))
        guard case .nordicDFUPackage(let package) = file.contents else { Issue.record("not a package"); return }
        #expect(package.images.map(\.kind) == [.softdeviceBootloader, .application])
        #expect(file.image.bytes == S.payload(800))
        #expect(file.notes.contains("the package's softdevice_bootloader is not sent (the headset takes one image)"))
        // sd_bl.dat is not a protocol-buffers init packet: reported, not refused.
        #expect(package.images.first?.decodedInitPacket == nil)
    }

    @Test("A package with only a bootloader sends it; two images and no application are refused")
    func noApplication() throws {
        let manifest = #"{"manifest": {"bootloader": {"bin_file": "bl.bin"}, "softdevice": {"bin_file": "sd.bin"}}}"#
        let two = S.zip([
            .init(name: "manifest.json", contents: Array(manifest.utf8), deflated: false),
            .init(name: "bl.bin", contents: [1, 2, 3], deflated: false),
            .init(name: "sd.bin", contents: [4, 5, 6], deflated: true),
        ])
        expectError(two, .dfuPackage(.noApplication(["softdevice", "bootloader"])))
        let only = #"{"manifest": {"bootloader": {"bin_file": "bl.bin"}}}"#
        let one = S.zip([
            .init(name: "manifest.json", contents: Array(only.utf8), deflated: false),
            .init(name: "bl.bin", contents: [1, 2, 3], deflated: false),
        ])
        #expect(try recognize(one).image.bytes == [1, 2, 3])
    }

    @Test("A dynamic-Huffman deflate stream (made by zlib at level 9) inflates to its text")
    func dynamicHuffman() throws {
        let text = Array((0..<40).map { "packet \($0 * 7 % 53) of the image was acknowledged; " }.joined().utf8)
        let stream = Self.hexBytes(
            "8dd46d0a82401446e1addc25743fa68c5633e86d8a2c0505b7afd0023cbfe7c0858797996bffc9552e323d657da5bcbfb5a56c75"
                + "91e3e1376d630e2d8787ccffee063b0d189ad2b083a1171886d1f04e4f531dcaadd4dba8b7536fa7de41bd0bf5be521dea6dd4"
                + "dba8b753efa0de41bda9221dad526ea3dc4eb99d7207e52e949b8e5629b7526fa3de4ebd837a07febe6177bad91d")
        #expect(stream[0] >> 1 & 3 == 2, "the vector is a dynamic block")
        #expect(CRC32.checksum(text) == 3_068_669_481)
        let manifest = #"{"manifest": {"application": {"bin_file": "app.bin"}}}"#
        let zip = S.zip([
            .init(name: "manifest.json", contents: Array(manifest.utf8), deflated: true),
            .init(name: "app.bin", contents: text, deflated: true, precompressed: stream),
        ])
        #expect(try recognize(zip).image.bytes == text)
    }

    @Test("A stored deflate block inside a deflated entry is read as it is")
    func storedBlock() throws {
        let data: [UInt8] = [9, 8, 7, 6, 5]
        // BFINAL 1, BTYPE 00, aligned; LEN 5, NLEN ~5, then the bytes.
        let stream: [UInt8] = [0x01, 0x05, 0x00, 0xFA, 0xFF] + data
        let manifest = #"{"manifest": {"application": {"bin_file": "app.bin"}}}"#
        let zip = S.zip([
            .init(name: "manifest.json", contents: Array(manifest.utf8), deflated: false),
            .init(name: "app.bin", contents: data, deflated: true, precompressed: stream),
        ])
        #expect(try recognize(zip).image.bytes == data)
        var broken = stream
        broken[3] = 0xFB
        let bad = S.zip([
            .init(name: "manifest.json", contents: Array(manifest.utf8), deflated: false),
            .init(name: "app.bin", contents: data, deflated: true, precompressed: broken),
        ])
        expectError(bad, .zip(.badDeflate("app.bin", .storedLengthMismatch)))
    }

    static func app(_ entry: S.ZipEntry, manifest: String = #"{"manifest": {"application": {"bin_file": "app.bin"}}}"#)
        -> [UInt8]
    {
        S.zip([.init(name: "manifest.json", contents: Array(manifest.utf8), deflated: false), entry])
    }

    @Test("Every damaged archive is a typed zip error")
    func damagedZip() {
        let data = S.payload(2000)
        let good = Self.app(.init(name: "app.bin", contents: data, deflated: true))
        // Cut short: the end record is gone.
        expectError(Array(good.prefix(good.count - 10)), .zip(.noEndRecord))
        expectError([0x50, 0x4B, 0x03, 0x04, 0, 0], .zip(.truncated("the end of central directory record")))
        // A CRC that does not match, a method that is not 0 or 8, an encrypted entry.
        expectError(
            Self.app(.init(name: "app.bin", contents: data, deflated: false, crcOverride: 0x1234_5678)),
            .zip(.crcMismatch("app.bin", expected: 0x1234_5678, actual: CRC32.checksum(data))))
        expectError(
            Self.app(.init(name: "app.bin", contents: data, deflated: false, method: 14)),
            .zip(.unsupportedMethod("app.bin", method: 14)))
        // The central directory's size disagrees with the inflated data.
        expectError(
            Self.app(.init(name: "app.bin", contents: data, deflated: true, sizeOverride: 1999)),
            .zip(.sizeMismatch("app.bin", declared: 1999, actual: 2000)))
        expectError(
            Self.app(.init(name: "app.bin", contents: data, deflated: true, sizeOverride: 2001)),
            .zip(.sizeMismatch("app.bin", declared: 2001, actual: 2000)))
        expectError(
            Self.app(.init(name: "app.bin", contents: data, deflated: false, sizeOverride: 1000)),
            .zip(.sizeMismatch("app.bin", declared: 1000, actual: 2000)))
        // A deflate stream cut short, and one with the reserved block type.
        var cut = S.deflate(data)
        cut.removeLast(cut.count / 2)
        expectError(
            Self.app(.init(name: "app.bin", contents: data, deflated: true, precompressed: cut)),
            .zip(.badDeflate("app.bin", .truncated)))
        expectError(
            Self.app(.init(name: "app.bin", contents: data, deflated: true, precompressed: [0x07, 0, 0])),
            .zip(.badDeflate("app.bin", .reservedBlockType)))
        // A back-reference before the start of the output: fixed block, length symbol 257 (code
        // 0000001), distance code 0 → distance 1 with nothing written.
        expectError(
            Self.app(.init(name: "app.bin", contents: [0], deflated: true, precompressed: [0x03, 0x02, 0x00])),
            .zip(.badDeflate("app.bin", .distanceTooFar(distance: 1, available: 0))))
        // A local header whose signature is wrong.
        var local = good
        let offset = local.count - 22 - (46 + "app.bin".utf8.count)
        let appLocal = Int(local[offset + 42]) | Int(local[offset + 43]) << 8
        local[appLocal] = 0x51
        expectError(local, .zip(.badSignature("local header of app.bin")))
    }

    @Test("Encrypted entries, ZIP64, multi-disk archives and a damaged central directory are typed errors")
    func unsupportedArchives() {
        let data = S.payload(100)
        expectError(
            Self.app(.init(name: "app.bin", contents: data, deflated: false, flags: 1)), .zip(.encrypted("app.bin")))
        let good = Self.app(.init(name: "app.bin", contents: data, deflated: false))
        let end = good.count - 22
        // Entry counts of 0xFFFF say "look in the ZIP64 record".
        var zip64 = good
        zip64.replaceSubrange(end + 8..<end + 12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        expectError(zip64, .zip(.zip64))
        var disks = good
        disks[end + 4] = 1
        expectError(disks, .zip(.multipleDisks))
        // The first central directory entry's signature damaged.
        var central = good
        let directoryOffset = Int(good[end + 16]) | Int(good[end + 17]) << 8
        central[directoryOffset] = 0x00
        expectError(central, .zip(.badSignature("central directory entry 0")))
        // The directory said to lie past the end record.
        var past = good
        past[end + 12] = 0xFF
        past[end + 13] = 0xFF
        expectError(past, .zip(.truncated("the central directory")))
    }

    @Test("Zip bombs: entries past 64 MiB and directories past 256 entries are refused before inflating")
    func bombs() throws {
        // A 64 MiB + 1 entry declared: refused on its declared size.
        expectError(
            Self.app(.init(name: "app.bin", contents: [1], deflated: true, sizeOverride: 64 * 1024 * 1024 + 1)),
            .zip(.tooLarge("app.bin", limit: 64 * 1024 * 1024)))
        // 300 entries.
        var entries = [S.ZipEntry(name: "manifest.json", contents: Array("{}".utf8), deflated: false)]
        for index in 0..<299 { entries.append(.init(name: "f\(index)", contents: [], deflated: false)) }
        expectError(S.zip(entries), .zip(.tooManyEntries(300, limit: 256)))
        // A stream that claims a small size but expands further stops one byte past it.
        let large = [UInt8](repeating: 0, count: 100_000)
        expectError(
            Self.app(.init(name: "app.bin", contents: large, deflated: true, sizeOverride: 1000)),
            .zip(.sizeMismatch("app.bin", declared: 1000, actual: 1001)))
    }

    @Test("Every wrong manifest is a typed DFU package error")
    func manifests() {
        func package(_ manifest: String, files: [String] = ["app.bin"]) -> [UInt8] {
            S.zip(
                [.init(name: "manifest.json", contents: Array(manifest.utf8), deflated: true)]
                    + files.map { .init(name: $0, contents: [1, 2, 3], deflated: false) })
        }
        expectError(
            S.zip([.init(name: "app.bin", contents: [1], deflated: false)]), .dfuPackage(.noManifest))
        let notJSON = Self.error(package("{\"manifest\": "))
        if case .dfuPackage(.manifestNotJSON)? = notJSON {
        } else {
            Issue.record("not JSON gave \(String(describing: notJSON))")
        }
        expectError(package("[]"), .dfuPackage(.manifestShape(path: "the document", expected: "an object")))
        expectError(package(#"{"manifest": 3}"#), .dfuPackage(.manifestShape(path: "manifest", expected: "an object")))
        expectError(package(#"{"manifest": {}}"#), .dfuPackage(.noImages))
        expectError(
            package(#"{"manifest": {"application": "app.bin"}}"#),
            .dfuPackage(.manifestShape(path: "manifest.application", expected: "an object")))
        expectError(
            package(#"{"manifest": {"application": {"dat_file": "app.dat"}}}"#),
            .dfuPackage(.manifestShape(path: "manifest.application.bin_file", expected: "a file name")))
        expectError(
            package(#"{"manifest": {"application": {"bin_file": "missing.bin"}}}"#),
            .dfuPackage(.missingFile("missing.bin", namedBy: "manifest.application.bin_file")))
        expectError(
            package(#"{"manifest": {"application": {"bin_file": "app.bin", "dat_file": "app.dat"}}}"#),
            .dfuPackage(.missingFile("app.dat", namedBy: "manifest.application.dat_file")))
    }

    static func error(_ bytes: [UInt8]) -> FirmwareFileError? {
        do {
            _ = try FirmwareFile.recognize(bytes: bytes, fileName: "x-1.0.0.zip")
            return nil
        } catch {
            return error
        }
    }

    @Test("An init packet that describes another binary is refused")
    func initPacketDisagrees() {
        let app = S.payload(100)
        let manifest = #"{"manifest": {"application": {"bin_file": "a.bin", "dat_file": "a.dat"}}}"#
        func package(_ dat: [UInt8]) -> [UInt8] {
            S.zip([
                .init(name: "manifest.json", contents: Array(manifest.utf8), deflated: false),
                .init(name: "a.bin", contents: app, deflated: true),
                .init(name: "a.dat", contents: dat, deflated: false),
            ])
        }
        expectError(
            package(S.initPacket(for: app, appSize: 99)),
            .dfuPackage(.initPacketDisagrees("a.dat", "app_size 99, the binary is 100 bytes")))
        expectError(
            package(S.initPacket(for: app, hash: [UInt8](repeating: 0, count: 32))),
            .dfuPackage(.initPacketDisagrees("a.dat", "its SHA-256 does not match the binary")))
    }

    @Test("Names from the archive are escaped in error words")
    func terminalSafe() {
        let error = FirmwareFileError.zip(.crcMismatch("evil\u{1B}[2J.bin", expected: 1, actual: 2))
        #expect(error.description == "zip: evil\\u{1B}[2J.bin CRC-32 is 00000002, the directory says 00000001")
    }

    static func hexBytes(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
