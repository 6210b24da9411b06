import BLECompanion

/// Real-shaped firmware files built here, from the formats' specifications, for the tests: an
/// Intel HEX writer, an MCUboot image builder (header, protected and unprotected TLV areas,
/// SHA-256), a zip writer (stored and deflated entries, a fixed-Huffman deflate encoder with
/// LZ77 matches), a Secure DFU init packet writer and a Nordic DFU package builder.
enum FirmwareSamples {
    /// Test firmware: bytes with some repetition, so deflate finds matches.
    static func payload(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { index in UInt8(truncatingIfNeeded: (index / 7 + seed) &* 31 &+ index % 5) }
    }

    // MARK: Intel HEX

    /// One record line: ':' count, address, type, data, checksum (two's complement of the sum).
    static func hexRecord(_ type: UInt8, address: UInt16 = 0, _ data: [UInt8] = [], checksum: UInt8? = nil) -> String {
        let body = [UInt8(data.count), UInt8(address >> 8), UInt8(address & 0xFF), type] + data
        let sum = checksum ?? (0 &- body.reduce(0, &+))
        return ":" + (body + [sum]).map { hex($0) }.joined()
    }

    static func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "0" + text : text
    }

    /// `data` at `address` as an Intel HEX file: extended linear address records when the upper
    /// 16 bits change, 16-byte data records, a start linear address, end of file.
    static func intelHex(_ data: [UInt8], at address: UInt32, lineEnding: String = "\n") -> String {
        var lines: [String] = []
        var upper: UInt32?
        var offset = 0
        while offset < data.count {
            let current = address + UInt32(offset)
            if current >> 16 != upper {
                upper = current >> 16
                lines.append(hexRecord(0x04, [UInt8(current >> 24), UInt8((current >> 16) & 0xFF)]))
            }
            // A record does not cross a 64 KiB boundary.
            let room = Int(0x1_0000 - (current & 0xFFFF))
            let count = min(16, data.count - offset, room)
            lines.append(hexRecord(0x00, address: UInt16(current & 0xFFFF), Array(data[offset..<offset + count])))
            offset += count
        }
        lines.append(
            hexRecord(
                0x05,
                [
                    UInt8(address >> 24), UInt8((address >> 16) & 0xFF), UInt8((address >> 8) & 0xFF),
                    UInt8(address & 0xFF),
                ]))
        lines.append(hexRecord(0x01))
        return lines.joined(separator: lineEnding) + lineEnding
    }

    // MARK: MCUboot

    /// An MCUboot image as imgtool lays it out: the 32-byte header (padded to `headerSize`),
    /// the image, an optional protected TLV area, then the TLV area with the SHA-256 over
    /// header, image and protected area.
    struct MCUboot {
        var image: [UInt8] = FirmwareSamples.payload(3000)
        var headerSize = 0x200
        var loadAddress: UInt32 = 0
        var flags: UInt32 = 0
        var version = (major: UInt8(2), minor: UInt8(1), revision: UInt16(0), build: UInt32(7))
        /// Protected TLVs (type, value): imgtool puts the security counter (0x50) there.
        var protectedTLVs: [(UInt8, [UInt8])] = []
        /// Unprotected TLVs after the SHA-256 (a key hash 0x01, a signature 0x22…).
        var extraTLVs: [(UInt8, [UInt8])] = [(0x01, [UInt8](repeating: 0xAB, count: 32))]
        var includeHash = true
        /// Replaces the computed SHA-256 (for a mismatch).
        var hashOverride: [UInt8]?
        var trailing: [UInt8] = []

        static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
        static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

        static func area(_ magic: Int, _ entries: [(UInt8, [UInt8])]) -> [UInt8] {
            var body: [UInt8] = []
            for (type, value) in entries { body += [type, 0] + le16(value.count) + value }
            return le16(magic) + le16(4 + body.count) + body
        }

        var protectedArea: [UInt8] { protectedTLVs.isEmpty ? [] : Self.area(0x6908, protectedTLVs) }

        var header: [UInt8] {
            var bytes = Self.le32(0x96f3_b83d) + Self.le32(loadAddress) + Self.le16(headerSize)
            bytes += Self.le16(protectedArea.count) + Self.le32(UInt32(image.count)) + Self.le32(flags)
            bytes += [version.major, version.minor] + Self.le16(Int(version.revision)) + Self.le32(version.build)
            bytes += Self.le32(0)
            return bytes + [UInt8](repeating: 0, count: max(0, headerSize - 32))
        }

        var bytes: [UInt8] {
            let hashed = header + image + protectedArea
            var tlvs: [(UInt8, [UInt8])] = []
            if includeHash { tlvs.append((0x10, hashOverride ?? FirmwareDigest.sha256(hashed))) }
            tlvs += extraTLVs
            return hashed + Self.area(0x6907, tlvs) + trailing
        }
    }

    // MARK: Zip

    /// A zip entry to write: stored (method 0) or deflated (8) by the encoder below, or given
    /// already compressed.
    struct ZipEntry {
        var name: String
        var contents: [UInt8]
        var deflated: Bool
        /// Compressed bytes to write instead of encoding `contents` (a stream made elsewhere).
        var precompressed: [UInt8]? = nil
        var method: UInt16? = nil
        var crcOverride: UInt32? = nil
        var sizeOverride: Int? = nil
        /// General purpose flags (APPNOTE §4.4.4: bit 0 encrypted).
        var flags = 0
    }

    /// A zip archive (APPNOTE.TXT): local headers and data, the central directory, the end
    /// record.
    static func zip(_ entries: [ZipEntry], comment: [UInt8] = []) -> [UInt8] {
        typealias M = MCUboot
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            let data = entry.precompressed ?? (entry.deflated ? deflate(entry.contents) : entry.contents)
            let method = entry.method ?? (entry.deflated || entry.precompressed != nil ? 8 : 0)
            let crc = entry.crcOverride ?? CRC32.checksum(entry.contents)
            let size = entry.sizeOverride ?? entry.contents.count
            var common: [UInt8] = M.le16(20) + M.le16(entry.flags) + M.le16(Int(method)) + M.le16(0) + M.le16(0x21)
            common += M.le32(crc) + M.le32(UInt32(data.count)) + M.le32(UInt32(size)) + M.le16(name.count) + M.le16(0)
            let offset = out.count
            out += M.le32(0x0403_4B50) + common + name + data
            central += M.le32(0x0201_4B50) + M.le16(0x031E) + common
            central += M.le16(0) + M.le16(0) + M.le16(0) + M.le32(0) + M.le32(UInt32(offset)) + name
        }
        let directoryOffset = out.count
        out += central
        out += M.le32(0x0605_4B50) + M.le16(0) + M.le16(0) + M.le16(entries.count) + M.le16(entries.count)
        out += M.le32(UInt32(central.count)) + M.le32(UInt32(directoryOffset)) + M.le16(comment.count)
        out += comment
        return out
    }

    /// Raw DEFLATE with one fixed-Huffman block (RFC 1951 §3.2.6) and greedy LZ77 matches of
    /// 3–258 bytes within 32 KiB.
    static func deflate(_ input: [UInt8]) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, count: 1)  // BFINAL
        writer.write(1, count: 2)  // BTYPE 01: fixed Huffman
        var lastSeen: [Int: Int] = [:]
        var index = 0
        func key(_ at: Int) -> Int { Int(input[at]) << 16 | Int(input[at + 1]) << 8 | Int(input[at + 2]) }
        while index < input.count {
            var length = 0
            var distance = 0
            if index + 3 <= input.count, let candidate = lastSeen[key(index)], index - candidate <= 32768 {
                while length < 258, index + length < input.count, input[candidate + length] == input[index + length] {
                    length += 1
                }
                distance = index - candidate
            }
            if index + 3 <= input.count { lastSeen[key(index)] = index }
            if length >= 3 {
                writer.lengthAndDistance(length, distance)
                for skipped in index + 1..<index + length where skipped + 3 <= input.count {
                    lastSeen[key(skipped)] = skipped
                }
                index += length
            } else {
                writer.literal(Int(input[index]))
                index += 1
            }
        }
        writer.literal(256)
        return writer.finish()
    }

    /// Bits least significant first; Huffman codes most significant bit first (§3.1.1).
    struct BitWriter {
        var bytes: [UInt8] = []
        var buffer = 0
        var count = 0

        mutating func write(_ value: Int, count bits: Int) {
            buffer |= value << count
            count += bits
            while count >= 8 {
                bytes.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                count -= 8
            }
        }

        mutating func code(_ code: Int, length: Int) {
            var reversed = 0
            for bit in 0..<length where code & (1 << bit) != 0 { reversed |= 1 << (length - 1 - bit) }
            write(reversed, count: length)
        }

        /// The fixed literal/length code of §3.2.6.
        mutating func literal(_ symbol: Int) {
            switch symbol {
            case 0...143: code(0x30 + symbol, length: 8)
            case 144...255: code(0x190 + symbol - 144, length: 9)
            case 256...279: code(symbol - 256, length: 7)
            default: code(0xC0 + symbol - 280, length: 8)
            }
        }

        static let lengthBase = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
            227, 258,
        ]
        static let lengthExtra = [
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
        ]
        static let distanceBase = [
            1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
            6145, 8193, 12289, 16385, 24577,
        ]
        static let distanceExtra = [
            0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
        ]

        mutating func lengthAndDistance(_ length: Int, _ distance: Int) {
            let lengthIndex = Self.lengthBase.lastIndex { $0 <= length } ?? 0
            literal(257 + lengthIndex)
            write(length - Self.lengthBase[lengthIndex], count: Self.lengthExtra[lengthIndex])
            let distanceIndex = Self.distanceBase.lastIndex { $0 <= distance } ?? 0
            code(distanceIndex, length: 5)
            write(distance - Self.distanceBase[distanceIndex], count: Self.distanceExtra[distanceIndex])
        }

        mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(buffer & 0xFF)) }
            return bytes
        }
    }

    // MARK: Nordic DFU

    /// A Secure DFU init packet (dfu-cc.proto) for `bin`: signed_command { command { op_code
    /// INIT, init { fw_version, hw_version, sd_req, type, app_size, hash { SHA256, digest
    /// reversed as nrfutil writes it } } }, signature_type, signature }.
    static func initPacket(for bin: [UInt8], firmwareVersion: Int = 5, appSize: Int? = nil, hash: [UInt8]? = nil)
        -> [UInt8]
    {
        func varint(_ value: Int) -> [UInt8] {
            var value = UInt64(value)
            var out: [UInt8] = []
            repeat {
                let byte = UInt8(value & 0x7F)
                value >>= 7
                out.append(value == 0 ? byte : byte | 0x80)
            } while value != 0
            return out
        }
        func number(_ number: Int, _ value: Int) -> [UInt8] { varint(number << 3) + varint(value) }
        func bytes(_ number: Int, _ bytes: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(bytes.count) + bytes }
        let digest = hash ?? Array(FirmwareDigest.sha256(bin).reversed())
        let hashMessage = number(1, 3) + bytes(2, digest)
        var initCommand: [UInt8] = number(1, firmwareVersion) + number(2, 52) + bytes(3, varint(0x0100))
        initCommand += number(4, 0) + number(7, appSize ?? bin.count) + bytes(8, hashMessage)
        let command = number(1, 1) + bytes(2, initCommand)
        let signature = [UInt8](repeating: 0x5A, count: 64)
        let signed: [UInt8] = bytes(1, command) + number(2, 0) + bytes(3, signature)
        return bytes(2, signed)
    }

    /// A DFU package with an application (and optionally a softdevice+bootloader): manifest and
    /// .dat stored, the binaries deflated.
    static func dfuPackage(
        application: [UInt8]? = FirmwareSamples.payload(5000), softdeviceBootloader: [UInt8]? = nil,
        manifest: String? = nil, deflateManifest: Bool = true
    ) -> [UInt8] {
        var entries: [ZipEntry] = []
        var parts: [String] = []
        if let softdeviceBootloader {
            parts.append(
                #""softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat", "info_read_only_metadata": {"bl_size": 100, "sd_size": 200}}"#
            )
            entries.append(ZipEntry(name: "sd_bl.bin", contents: softdeviceBootloader, deflated: true))
            entries.append(ZipEntry(name: "sd_bl.dat", contents: [0x12, 0x00], deflated: false))
        }
        if let application {
            parts.append(#""application": {"bin_file": "headset_app.bin", "dat_file": "headset_app.dat"}"#)
            entries.append(ZipEntry(name: "headset_app.bin", contents: application, deflated: true))
            entries.append(ZipEntry(name: "headset_app.dat", contents: initPacket(for: application), deflated: false))
        }
        let text = manifest ?? "{\n  \"manifest\": {\n    " + parts.joined(separator: ",\n    ") + "\n  }\n}\n"
        entries.insert(ZipEntry(name: "manifest.json", contents: Array(text.utf8), deflated: deflateManifest), at: 0)
        return zip(entries)
    }
}
