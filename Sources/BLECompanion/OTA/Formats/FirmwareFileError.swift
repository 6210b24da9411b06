import BLEWire

/// Why a firmware file was refused: what was wrong and where (a line of an Intel HEX file, a
/// field of an MCUboot header, an entry of a zip). Descriptions are single lines; names that came
/// from the file are escaped for a terminal.
public enum FirmwareFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file has no bytes.
    case empty
    /// Nothing gives the version: the format has none, the file name holds no X.Y.Z, and none was
    /// given.
    case noVersion(fileName: String)
    /// The version the file carries does not fit the headset protocol's MAJOR.MINOR.PATCH, one
    /// byte each (an MCUboot revision above 255).
    case versionDoesNotFit(String)
    /// The image the file holds cannot be sent (see `FirmwareImageError`).
    case image(FirmwareImageError)
    /// An Intel HEX file is damaged at a line.
    case intelHex(line: Int, IntelHexProblem)
    /// An MCUboot image is damaged.
    case mcuboot(MCUbootProblem)
    /// A zip archive (a Nordic DFU package) is damaged.
    case zip(ZipError)
    /// A Nordic DFU package's manifest or contents are wrong.
    case dfuPackage(DFUPackageProblem)

    public var description: String {
        switch self {
        case .empty: "the file is empty"
        case .noVersion(let name):
            "no version: \(TerminalText.escaped(name)) has no X.Y.Z in its name and its format carries none; give one"
        case .versionDoesNotFit(let version):
            "the file's version \(version) does not fit MAJOR.MINOR.PATCH with parts 0–255; give one"
        case .image(let error): "\(error)"
        case .intelHex(let line, let problem): "Intel HEX line \(line): \(problem)"
        case .mcuboot(let problem): "MCUboot image: \(problem)"
        case .zip(let error): "zip: \(error)"
        case .dfuPackage(let problem): "Nordic DFU package: \(problem)"
        }
    }
}

/// What is wrong with one line of an Intel HEX file.
public enum IntelHexProblem: Sendable, Hashable, CustomStringConvertible {
    /// The line does not start with ':'.
    case noStartCode
    /// A character that is not a hexadecimal digit, at a column (1-based).
    case notHex(column: Int)
    /// An odd number of hex digits, or fewer than a record's 5 fixed bytes.
    case tooShort
    /// The byte count says one length, the line holds another.
    case lengthMismatch(declared: Int, actual: Int)
    /// The record's checksum byte does not make its bytes sum to zero.
    case checksum(expected: UInt8, actual: UInt8)
    /// A record type outside 00–05.
    case unknownRecordType(UInt8)
    /// An address record (02–05) or end of file (01) whose length or address field is wrong.
    case malformedRecord(type: UInt8)
    /// Data for an address already written by an earlier record.
    case overlap(address: UInt32)
    /// A record after the end-of-file record.
    case afterEndOfFile
    /// The file ends without an end-of-file record.
    case noEndOfFile
    /// No data records at all.
    case noData
    /// The data spans more than the limit from its lowest to its highest address.
    case spanTooLarge(span: UInt64, limit: Int)

    public var description: String {
        switch self {
        case .noStartCode: "the record does not start with ':'"
        case .notHex(let column): "column \(column) is not a hexadecimal digit"
        case .tooShort: "the record is too short or has an odd number of digits"
        case .lengthMismatch(let declared, let actual):
            "the byte count says \(declared) data bytes, the line holds \(actual)"
        case .checksum(let expected, let actual):
            "checksum \(hex(actual)) does not match the record (expected \(hex(expected)))"
        case .unknownRecordType(let type): "unknown record type \(hex(type))"
        case .malformedRecord(let type): "record type \(hex(type)) has the wrong length or address"
        case .overlap(let address): "data at 0x\(String(address, radix: 16, uppercase: true)) was already written"
        case .afterEndOfFile: "a record follows the end-of-file record"
        case .noEndOfFile: "the file ends without an end-of-file record (type 01)"
        case .noData: "the file has no data records"
        case .spanTooLarge(let span, let limit): "the data spans \(span) bytes, more than \(limit)"
        }
    }
}

/// What is wrong with an MCUboot image (MCUboot's "Image format", docs/design.md).
public enum MCUbootProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file ends inside a part of the image.
    case truncated(String)
    /// A magic number that is not the expected one.
    case badMagic(String, expected: UInt32, actual: UInt32)
    /// A header field out of range.
    case sizeOutOfRange(String, value: Int)
    /// A TLV entry runs past its area, or the area's entries do not fill its declared size.
    case badTLV(String)
    /// No SHA-256 TLV (type 0x10).
    case missingHash
    /// A SHA-256 TLV that is not 32 bytes.
    case badHashLength(Int)
    /// The SHA-256 TLV does not match header, image and protected TLVs.
    case hashMismatch(expected: [UInt8], actual: [UInt8])

    public var description: String {
        switch self {
        case .truncated(let part): "the file ends inside \(part)"
        case .badMagic(let what, let expected, let actual):
            "\(what) magic is 0x\(String(actual, radix: 16)), expected 0x\(String(expected, radix: 16))"
        case .sizeOutOfRange(let field, let value): "\(field) \(value) is out of range"
        case .badTLV(let why): "bad TLV area: \(why)"
        case .missingHash: "no SHA-256 TLV (type 0x10)"
        case .badHashLength(let length): "the SHA-256 TLV is \(length) bytes, not 32"
        case .hashMismatch(let expected, let actual):
            "SHA-256 mismatch: the TLV says \(FirmwareDigest.hex(expected).prefix(16))…, "
                + "the image hashes to \(FirmwareDigest.hex(actual).prefix(16))…"
        }
    }
}

/// What is wrong with a zip archive.
public enum ZipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No end of central directory record: not a zip, or cut short.
    case noEndRecord
    /// The archive ends inside a structure.
    case truncated(String)
    /// A structure whose signature is wrong.
    case badSignature(String)
    /// A ZIP64 archive (sizes or counts past the 32-bit fields), not supported.
    case zip64
    /// A multi-disk (spanned) archive, not supported.
    case multipleDisks
    /// More entries than the cap.
    case tooManyEntries(Int, limit: Int)
    /// An entry, or all entries together, past the uncompressed size cap.
    case tooLarge(String, limit: Int)
    /// An encrypted entry.
    case encrypted(String)
    /// A compression method other than stored (0) or deflated (8).
    case unsupportedMethod(String, method: UInt16)
    /// The entry's data is not the size the directory says.
    case sizeMismatch(String, declared: Int, actual: Int)
    /// The entry's deflate stream is damaged.
    case badDeflate(String, InflateError)
    /// The entry's CRC-32 does not match its data.
    case crcMismatch(String, expected: UInt32, actual: UInt32)

    public var description: String {
        switch self {
        case .noEndRecord: "no end of central directory record (not a zip, or cut short)"
        case .truncated(let part): "the archive ends inside \(part.terminalSafe)"
        case .badSignature(let part): "\(part.terminalSafe) has a bad signature"
        case .zip64: "ZIP64 archives are not supported"
        case .multipleDisks: "multi-disk archives are not supported"
        case .tooManyEntries(let count, let limit): "\(count) entries, more than \(limit)"
        case .tooLarge(let name, let limit): "\(name.terminalSafe) expands past the \(limit)-byte limit"
        case .encrypted(let name): "\(name.terminalSafe) is encrypted"
        case .unsupportedMethod(let name, let method):
            "\(name.terminalSafe) uses compression method \(method) (only 0 and 8)"
        case .sizeMismatch(let name, let declared, let actual):
            "\(name.terminalSafe) is \(actual) bytes, the directory says \(declared)"
        case .badDeflate(let name, let error): "\(name.terminalSafe): \(error)"
        case .crcMismatch(let name, let expected, let actual):
            "\(name.terminalSafe) CRC-32 is \(Self.hex(actual)), the directory says \(Self.hex(expected))"
        }
    }

    static func hex(_ value: UInt32) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }
}

/// What is wrong with a Nordic DFU package beyond its zip.
public enum DFUPackageProblem: Sendable, Hashable, CustomStringConvertible {
    /// No manifest.json in the archive.
    case noManifest
    /// manifest.json is not JSON.
    case manifestNotJSON(String)
    /// manifest.json is JSON of the wrong shape at a path.
    case manifestShape(path: String, expected: String)
    /// The manifest names no image.
    case noImages
    /// The manifest names a file the archive lacks.
    case missingFile(String, namedBy: String)
    /// Several images and none is the application: the headset takes one image.
    case noApplication([String])
    /// An init packet (.dat) that describes another binary.
    case initPacketDisagrees(String, String)

    public var description: String {
        switch self {
        case .noManifest: "no manifest.json"
        case .manifestNotJSON(let why): "manifest.json is not JSON: \(why)"
        case .manifestShape(let path, let expected): "manifest.json: \(path.terminalSafe) should be \(expected)"
        case .noImages: "manifest.json names no image"
        case .missingFile(let name, let path):
            "manifest.json \(path) names \(name.terminalSafe), which the archive lacks"
        case .noApplication(let kinds):
            "the package holds \(kinds.joined(separator: ", ")) and no application; the headset takes one image"
        case .initPacketDisagrees(let name, let why): "init packet \(name.terminalSafe): \(why)"
        }
    }
}

extension String {
    /// The string with everything a terminal would act on escaped (`TerminalText`).
    var terminalSafe: String { TerminalText.escaped(self) }
}
