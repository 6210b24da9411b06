import BLEWire

/// A zip archive read from memory (PKWARE APPNOTE.TXT §4.3): the end of central directory
/// record, the central directory's entries, and each entry's local header and data, stored or
/// deflated, checked against its CRC-32. Untrusted input: every damage is a `ZipError`, and the
/// caps below bound what a hostile archive can make us allocate.
struct ZipArchive: Sendable {
    /// One file of the archive as the central directory describes it.
    struct Entry: Sendable, Hashable {
        var name: String
        /// APPNOTE §4.4.5: 0 stored, 8 deflated (others refused when extracted).
        var method: UInt16
        var flags: UInt16
        var crc32: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        var localHeaderOffset: Int
    }

    /// At most this many entries (a firmware package has a handful).
    static let maximumEntries = 256
    /// At most this many bytes from one entry and from all extracted entries together.
    static let maximumUncompressedSize = 64 * 1024 * 1024

    let bytes: [UInt8]
    let entries: [Entry]
    /// Bytes extracted so far, against `maximumUncompressedSize`.
    private(set) var extracted = 0

    /// Whether `bytes` starts as a zip does: a local file header, or the end record of an
    /// empty archive (APPNOTE §4.3.7, §4.3.16).
    static func looksLikeZip(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06])
    }

    init(bytes: [UInt8]) throws(ZipError) {
        self.bytes = bytes
        let end = try Self.endRecord(in: bytes)
        var reader = ByteReader(bytes[end...])
        let directory: (count: Int, size: Int, offset: Int)
        do {
            try reader.skip(4, "signature")
            let disk = try reader.u16("number of this disk")
            let directoryDisk = try reader.u16("disk with the central directory")
            let countOnDisk = try reader.u16("entries on this disk")
            let count = try reader.u16("total entries")
            let size = try reader.u32("central directory size")
            let offset = try reader.u32("central directory offset")
            if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF { throw ZipError.zip64 }
            guard disk == 0, directoryDisk == 0, countOnDisk == count else { throw ZipError.multipleDisks }
            directory = (Int(count), Int(size), Int(offset))
        } catch let error as ZipError {
            throw error
        } catch {
            throw .truncated("the end of central directory record")
        }
        guard directory.count <= Self.maximumEntries else {
            throw .tooManyEntries(directory.count, limit: Self.maximumEntries)
        }
        guard directory.offset <= end, directory.size <= end - directory.offset else {
            throw .truncated("the central directory")
        }
        var entries: [Entry] = []
        var cursor = ByteReader(bytes[directory.offset..<directory.offset + directory.size])
        for index in 0..<directory.count {
            entries.append(try Self.centralEntry(&cursor, index: index))
        }
        self.entries = entries
    }

    /// The end of central directory record: the last signature 0x06054b50 within the final
    /// 22 + 65,535 bytes (its comment may be up to 65,535 bytes, APPNOTE §4.3.16).
    private static func endRecord(in bytes: [UInt8]) throws(ZipError) -> Int {
        guard bytes.count >= 22 else { throw .truncated("the end of central directory record") }
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        var index = bytes.count - 22
        while index >= lowest {
            if bytes[index] == 0x50, bytes[index + 1] == 0x4B, bytes[index + 2] == 0x05, bytes[index + 3] == 0x06 {
                return index
            }
            index -= 1
        }
        throw .noEndRecord
    }

    /// One central directory file header (APPNOTE §4.3.12).
    private static func centralEntry(_ reader: inout ByteReader, index: Int) throws(ZipError) -> Entry {
        do {
            guard try reader.u32("signature") == 0x0201_4B50 else {
                throw ZipError.badSignature("central directory entry \(index)")
            }
            try reader.skip(4, "versions")
            let flags = try reader.u16("flags")
            let method = try reader.u16("method")
            try reader.skip(4, "time and date")
            let crc = try reader.u32("crc-32")
            let compressed = try reader.u32("compressed size")
            let uncompressed = try reader.u32("uncompressed size")
            let nameLength = Int(try reader.u16("name length"))
            let extraLength = Int(try reader.u16("extra length"))
            let commentLength = Int(try reader.u16("comment length"))
            try reader.skip(8, "disk, attributes")
            let offset = try reader.u32("local header offset")
            let name = try reader.take(nameLength, "name")
            try reader.skip(extraLength + commentLength, "extra and comment")
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
                throw ZipError.zip64
            }
            return Entry(
                name: String(decoding: name, as: UTF8.self), method: method, flags: flags, crc32: crc,
                compressedSize: Int(compressed), uncompressedSize: Int(uncompressed), localHeaderOffset: Int(offset))
        } catch let error as ZipError {
            throw error
        } catch {
            throw .truncated("central directory entry \(index)")
        }
    }

    func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// The entry's bytes: located by its local header (APPNOTE §4.3.7), inflated when deflated,
    /// and checked against the central directory's size and CRC-32.
    mutating func extract(_ entry: Entry) throws(ZipError) -> [UInt8] {
        guard entry.flags & 0x0001 == 0 else { throw .encrypted(entry.name) }
        let budget = Self.maximumUncompressedSize - extracted
        guard entry.uncompressedSize <= budget else { throw .tooLarge(entry.name, limit: Self.maximumUncompressedSize) }
        let dataStart: Int
        do {
            guard entry.localHeaderOffset <= bytes.count else {
                throw ZipError.truncated("the local header of \(entry.name)")
            }
            var reader = ByteReader(bytes[entry.localHeaderOffset...])
            guard try reader.u32("signature") == 0x0403_4B50 else {
                throw ZipError.badSignature("local header of \(entry.name)")
            }
            try reader.skip(22, "fixed fields")
            let nameLength = Int(try reader.u16("name length"))
            let extraLength = Int(try reader.u16("extra length"))
            try reader.skip(nameLength + extraLength, "name and extra")
            dataStart = reader.index
        } catch let error as ZipError {
            throw error
        } catch {
            throw .truncated("the local header of \(entry.name)")
        }
        guard entry.compressedSize <= bytes.count - dataStart else { throw .truncated("the data of \(entry.name)") }
        let data = bytes[dataStart..<dataStart + entry.compressedSize]
        let contents: [UInt8]
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.uncompressedSize else {
                throw .sizeMismatch(entry.name, declared: entry.uncompressedSize, actual: entry.compressedSize)
            }
            contents = Array(data)
        case 8:
            do {
                // One byte past the declared size is enough to catch a size that lies.
                contents = try Inflate.decompress(data, limit: min(budget, entry.uncompressedSize + 1))
            } catch .tooLarge where entry.uncompressedSize < budget {
                throw .sizeMismatch(entry.name, declared: entry.uncompressedSize, actual: entry.uncompressedSize + 1)
            } catch {
                throw .badDeflate(entry.name, error)
            }
            guard contents.count == entry.uncompressedSize else {
                throw .sizeMismatch(entry.name, declared: entry.uncompressedSize, actual: contents.count)
            }
        default:
            throw .unsupportedMethod(entry.name, method: entry.method)
        }
        let crc = CRC32.checksum(contents)
        guard crc == entry.crc32 else { throw .crcMismatch(entry.name, expected: entry.crc32, actual: crc) }
        extracted += contents.count
        return contents
    }
}
