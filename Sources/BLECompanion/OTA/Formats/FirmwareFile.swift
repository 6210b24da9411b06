/// A firmware file as device makers ship it, recognised by its content (never by its name):
/// a Nordic DFU package (a zip: "PK\u{3}\u{4}"), an MCUboot image (IMAGE_MAGIC first), Intel HEX
/// (':' and hex digits), otherwise a raw binary. The result is the image to send, where its
/// version came from, and what was checked on the way; damage is a `FirmwareFileError`.
///
/// The one entry point for the CLI (`ble ota --image`) and for an app handed a file ("Open in…").
public struct FirmwareFile: Sendable, Hashable {
    /// The formats recognised.
    public enum Format: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case raw
        case intelHex
        case mcuboot
        case nordicDFUPackage

        public var description: String {
            switch self {
            case .raw: "raw binary"
            case .intelHex: "Intel HEX"
            case .mcuboot: "MCUboot image"
            case .nordicDFUPackage: "Nordic DFU package"
            }
        }
    }

    /// The decoded structure, per format.
    public enum Contents: Sendable, Hashable {
        case raw
        case intelHex(IntelHexImage)
        case mcuboot(MCUbootImage)
        case nordicDFUPackage(NordicDFUPackage)
    }

    /// Where the image's version came from.
    public enum VersionSource: Sendable, Hashable {
        /// The file's own (an MCUboot header).
        case file
        /// The X.Y.Z in the file's name.
        case fileName
        /// Given by the user (`--version`), overriding the others.
        case given
    }

    public let contents: Contents
    /// The image to send (its version resolved, its SHA-256 computed).
    public let image: FirmwareImage
    public let versionSource: VersionSource
    /// The version the file itself carries, as its format writes it (MCUboot "1.2.3+4"; a DFU
    /// init packet's fw_version as a number), if it has one.
    public let fileVersion: String?
    /// What was verified, one phrase each ("SHA-256 TLV matches header and image").
    public let checks: [String]
    /// The file's own version when a given one replaced it and they differ (the CLI warns).
    public let overriddenFileVersion: String?
    /// What the user should know that is not an error (a given version that disagrees with the
    /// file's, images of a package that are not sent, an encrypted hash left to the device).
    public let notes: [String]

    public var format: Format {
        switch contents {
        case .raw: .raw
        case .intelHex: .intelHex
        case .mcuboot: .mcuboot
        case .nordicDFUPackage: .nordicDFUPackage
        }
    }

    /// Recognises `bytes` by content. `fileName` supplies the version of a format without one
    /// (its X.Y.Z, as "headset-2.1.0.bin"); `version`, when given, overrides any other (a note
    /// says so when the file's own differs).
    public static func recognize(bytes: [UInt8], fileName: String, version given: FirmwareVersion? = nil)
        throws(FirmwareFileError) -> FirmwareFile
    {
        guard !bytes.isEmpty else { throw .empty }
        var checks: [String] = []
        var notes: [String] = []
        let contents: Contents
        let payload: [UInt8]
        var own: (text: String, version: FirmwareVersion?)?
        if ZipArchive.looksLikeZip(bytes) {
            let package = try NordicDFUPackage(decoding: bytes)
            guard let image = package.payload else {
                throw .dfuPackage(.noApplication(package.images.map(\.kind.rawValue)))
            }
            payload = image.bin
            checks.append("zip structure and CRC-32 of \(package.checkedEntries) entries")
            checks.append("manifest.json names \(package.images.map(\.kind.rawValue).joined(separator: ", "))")
            if let packet = image.decodedInitPacket {
                if image.initPacketHashChecked {
                    checks.append("init packet SHA-256 matches \(image.binFile.terminalSafe)")
                }
                if packet.applicationSize != nil, image.kind == .application {
                    checks.append("init packet app_size matches")
                }
                if let number = packet.firmwareVersion { own = ("fw_version \(number)", nil) }
            } else if let dat = image.datFile {
                notes.append("\(dat.terminalSafe) is not a Secure DFU init packet; the device checks it")
            }
            for other in package.images where other.kind != image.kind {
                notes.append("the package's \(other.kind.rawValue) is not sent (the headset takes one image)")
            }
            contents = .nordicDFUPackage(package)
        } else if MCUbootImage.looksLikeMCUboot(bytes) {
            let image: MCUbootImage
            do {
                image = try MCUbootImage(decoding: bytes)
            } catch {
                throw .mcuboot(error)
            }
            payload = bytes
            checks.append("header magic and sizes")
            checks.append("TLV areas (\(image.tlvs.count) entries)")
            if image.hashVerified {
                checks.append(
                    "SHA-256 TLV matches header, image" + (image.protectedTLVSize > 0 ? " and protected TLVs" : ""))
            } else {
                notes.append("encrypted image: its SHA-256 covers the plaintext, left to the device")
            }
            if image.trailingBytes > 0 {
                notes.append("\(image.trailingBytes) bytes after the TLV area are sent as they are")
            }
            own = (image.version.description, image.version.firmwareVersion)
            contents = .mcuboot(image)
        } else if IntelHexImage.looksLikeIntelHex(bytes) {
            let hex = try IntelHexImage(decoding: bytes)
            payload = hex.bytes
            checks.append("\(hex.recordCount) record checksums and lengths")
            if hex.dataByteCount < hex.bytes.count {
                notes.append("gaps of \(hex.bytes.count - hex.dataByteCount) bytes filled with 0xFF")
            }
            contents = .intelHex(hex)
        } else {
            payload = bytes
            contents = .raw
        }
        let version: FirmwareVersion
        let source: VersionSource
        var overridden: String?
        if let given {
            version = given
            source = .given
            if let own, own.version != given {
                overridden = own.text
                notes.append("the given version \(given) overrides the file's \(own.text)")
            }
        } else if let own, let fileVersion = own.version {
            version = fileVersion
            source = .file
        } else if let own, own.version == nil, case .mcuboot = contents {
            throw .versionDoesNotFit(own.text)
        } else if let named = FirmwareVersion(inFileName: fileName) {
            version = named
            source = .fileName
        } else {
            throw .noVersion(fileName: fileName)
        }
        let image: FirmwareImage
        do {
            image = try FirmwareImage(bytes: payload, version: version)
        } catch {
            throw .image(error)
        }
        return FirmwareFile(
            contents: contents, image: image, versionSource: source, fileVersion: own?.text,
            checks: checks, overriddenFileVersion: overridden, notes: notes)
    }

    /// What was recognised, a few lines for a person (the CLI prints them before sending).
    public var summary: [String] {
        var lines = ["format     \(format)", "version    \(image.version) (\(versionSourceText))"]
        let digest = FirmwareDigest.hex(image.sha256).prefix(16)
        lines.append("size       \(image.size) bytes to send, SHA-256 \(digest)…")
        switch contents {
        case .intelHex(let hex):
            lines.append("address    0x\(String(hex.baseAddress, radix: 16, uppercase: true)) (lowest written)")
        case .mcuboot(let mcuboot):
            let load = String(mcuboot.loadAddress, radix: 16, uppercase: true)
            lines.append("load addr  0x\(load), header \(mcuboot.headerSize) bytes, image \(mcuboot.imageSize) bytes")
        case .nordicDFUPackage(let package):
            if let payload = package.payload {
                lines.append("sends      \(payload.kind.rawValue): \(payload.binFile.terminalSafe)")
            }
        case .raw:
            break
        }
        lines.append(contentsOf: checks.map { "verified   \($0)" })
        lines.append(contentsOf: notes.map { "note       \($0)" })
        return lines
    }

    private var versionSourceText: String {
        switch versionSource {
        case .file: "from the file: \(fileVersion ?? "")"
        case .fileName: "from the file name"
        case .given: "given"
        }
    }
}

extension FirmwareVersion {
    /// The last MAJOR.MINOR.PATCH in a path's file name ("headset-2.1.0.bin" → 2.1.0), or nil.
    public init?(inFileName path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let parts = name.split(whereSeparator: { !("0"..."9").contains($0) && $0 != "." })
        for part in parts.reversed() {
            let numbers = part.split(separator: ".", omittingEmptySubsequences: false)
            for start in stride(from: numbers.count - 3, through: 0, by: -1) {
                let candidate = numbers[start..<start + 3].joined(separator: ".")
                if let version = try? FirmwareVersion(parsing: candidate) {
                    self = version
                    return
                }
            }
        }
        return nil
    }
}
