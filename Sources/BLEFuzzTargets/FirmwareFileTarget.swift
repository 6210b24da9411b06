import BLECompanion

/// A firmware file as `ble ota --image` and an app handed a file read it (`FirmwareFile`):
/// raw, Intel HEX, MCUboot, a Nordic DFU zip (its inflate included).
///
/// Promises checked: any octets give a recognised file or a typed error. A recognised file sends
/// at least one byte; a raw one sends the input as it is, an MCUboot one the whole input (with a
/// verified SHA-256 unless encrypted); an Intel HEX image stays within its span limit. An Intel
/// HEX error names a line the input has.
enum FirmwareFileTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        let file: FirmwareFile
        do {
            file = try FirmwareFile.recognize(bytes: bytes, fileName: "fuzz-1.0.0.bin")
        } catch {
            if case .intelHex(let line, _) = error {
                let lines = bytes.count(where: { $0 == 0x0A }) + 1
                try require((1...lines).contains(line), "Intel HEX line \(line) of \(lines)")
            }
            _ = error.description
            return
        }
        try require(file.image.size > 0, "an empty image was recognised")
        _ = file.summary
        switch file.contents {
        case .raw:
            try require(file.image.bytes == bytes, "a raw file does not send its bytes")
        case .mcuboot(let image):
            try require(file.image.bytes == bytes, "an MCUboot file does not send its bytes")
            try require(image.hashVerified || image.isEncrypted, "an MCUboot image was accepted unverified")
        case .intelHex(let hex):
            try require(hex.bytes.count <= IntelHexImage.maximumSpan, "an Intel HEX image of \(hex.bytes.count) bytes")
        case .nordicDFUPackage(let package):
            try require(!package.images.isEmpty, "a DFU package with no image")
        }
    }
}
