import BLE

/// A Nordic DFU package (nrfutil's "pkg generate"): a zip holding manifest.json and the images
/// it names — { "manifest": { "application" | "softdevice" | "bootloader" |
/// "softdevice_bootloader": { "bin_file": NAME, "dat_file": NAME, … } } } — each image a
/// binary with its init packet (.dat).
public struct NordicDFUPackage: Sendable, Hashable {
    /// The manifest's image kinds, in the order nrfutil installs them.
    public enum ImageKind: String, Sendable, Hashable, CaseIterable {
        case softdeviceBootloader = "softdevice_bootloader"
        case softdevice
        case bootloader
        case application
    }

    /// One image the manifest names, read and CRC-checked from the archive.
    public struct Image: Sendable, Hashable {
        public var kind: ImageKind
        public var binFile: String
        public var bin: [UInt8]
        public var datFile: String?
        public var initPacket: [UInt8]?
        /// The init packet decoded, when it is Secure DFU's protocol-buffers message.
        public var decodedInitPacket: NordicInitPacket?
        /// Whether the init packet's SHA-256 was compared with `bin` (and matched: a mismatch is
        /// an error).
        public var initPacketHashChecked = false
    }

    /// The images in installation order.
    public var images: [Image]
    /// The archive's entries, by name, as listed.
    public var entryNames: [String]
    /// Entries whose CRC-32 was checked (manifest and the named files).
    public var checkedEntries: Int {
        1 + images.count + images.filter { $0.datFile != nil }.count
    }

    /// The image the headset takes: the application, or the only image there is.
    public var payload: Image? {
        images.first { $0.kind == .application } ?? (images.count == 1 ? images.first : nil)
    }

    public init(decoding bytes: [UInt8]) throws(FirmwareFileError) {
        var archive: ZipArchive
        do {
            archive = try ZipArchive(bytes: bytes)
        } catch {
            throw .zip(error)
        }
        guard let manifestEntry = archive.entry(named: "manifest.json") else { throw .dfuPackage(.noManifest) }
        let manifestBytes: [UInt8]
        do {
            manifestBytes = try archive.extract(manifestEntry)
        } catch {
            throw .zip(error)
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(manifestBytes)
        } catch {
            throw .dfuPackage(.manifestNotJSON("\(error)"))
        }
        guard case .object(let root) = json else {
            throw .dfuPackage(.manifestShape(path: "the document", expected: "an object"))
        }
        guard case .object(let manifest)? = root["manifest"] else {
            throw .dfuPackage(.manifestShape(path: "manifest", expected: "an object"))
        }
        var images: [Image] = []
        for kind in ImageKind.allCases {
            guard let value = manifest[kind.rawValue] else { continue }
            let path = "manifest.\(kind.rawValue)"
            guard case .object(let entry) = value else {
                throw .dfuPackage(.manifestShape(path: path, expected: "an object"))
            }
            guard case .string(let binFile)? = entry["bin_file"] else {
                throw .dfuPackage(.manifestShape(path: path + ".bin_file", expected: "a file name"))
            }
            let bin = try Self.read(binFile, namedBy: path + ".bin_file", from: &archive)
            var image = Image(kind: kind, binFile: binFile, bin: bin)
            if let datValue = entry["dat_file"] {
                guard case .string(let datFile) = datValue else {
                    throw .dfuPackage(.manifestShape(path: path + ".dat_file", expected: "a file name"))
                }
                let dat = try Self.read(datFile, namedBy: path + ".dat_file", from: &archive)
                image.datFile = datFile
                image.initPacket = dat
                image.decodedInitPacket = NordicInitPacket(decoding: dat)
                if let packet = image.decodedInitPacket {
                    try Self.check(packet, against: bin, kind: kind, datFile: datFile)
                    // `check` compares only a SHA-256 the packet carries.
                    image.initPacketHashChecked = packet.hashType == NordicInitPacket.sha256HashType && packet.hash != nil
                }
            }
            images.append(image)
        }
        guard !images.isEmpty else { throw .dfuPackage(.noImages) }
        self.images = images
        self.entryNames = archive.entries.map(\.name)
    }

    /// The init packet's application size and SHA-256 must describe the binary beside it (the
    /// bootloader refuses the update otherwise).
    private static func check(_ packet: NordicInitPacket, against bin: [UInt8], kind: ImageKind, datFile: String)
        throws(FirmwareFileError)
    {
        if kind == .application, let size = packet.applicationSize, Int(size) != bin.count {
            throw .dfuPackage(.initPacketDisagrees(datFile, "app_size \(size), the binary is \(bin.count) bytes"))
        }
        if packet.hashType == NordicInitPacket.sha256HashType, let hash = packet.hash {
            // nrfutil writes the digest least significant byte first; either order is accepted.
            let digest = FirmwareDigest.sha256(bin)
            guard hash == digest.reversed() || hash == digest else {
                throw .dfuPackage(.initPacketDisagrees(datFile, "its SHA-256 does not match the binary"))
            }
        }
    }

    private static func read(_ name: String, namedBy path: String, from archive: inout ZipArchive)
        throws(FirmwareFileError)
        -> [UInt8]
    {
        guard let entry = archive.entry(named: name) else { throw .dfuPackage(.missingFile(name, namedBy: path)) }
        do {
            return try archive.extract(entry)
        } catch {
            throw .zip(error)
        }
    }
}
