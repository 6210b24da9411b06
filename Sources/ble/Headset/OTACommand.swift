import ArgumentParser
import BLE
import BLECompanion
import BLETransport
import Foundation
import Logging

/// `ble ota --image FILE ADDRESS`: updates a headset's firmware over the air (headset protocol
/// v1) with the OTA engine: resends, resume after a link loss, progress, summary.
struct OTACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ota",
        abstract: "Update a headset's firmware over the air (headset protocol v1).",
        discussion: """
            Connects to the headset at ADDRESS, sends the image in packets sized to the link \
            (written without response, under flow control), resends from the packet the headset \
            names, reconnects and resumes after a link loss, and has the headset verify the SHA-256 \
            and swap slots. A killed run resumes on the next one. Draws a progress bar with rate \
            and ETA on a terminal (plain lines otherwise) and prints a summary; a failure exits \
            non-zero with the reason. On the virtual radio the neighbourhood's headset is at \
            00:00:5E:00:53:40.

            The image may be a raw binary, Intel HEX, an MCUboot image or a Nordic DFU package \
            (.zip); the content picks the format, and what was recognised and verified is \
            printed before anything is sent. A damaged file fails before connecting \
            (docs/firmware-files.md).

            Example: ble ota --image firmware-2.0.0.bin 00:00:5E:00:53:40
            """)

    @Option(
        help: ArgumentHelp(
            "The firmware file: raw binary, Intel HEX, MCUboot image or Nordic DFU package.", valueName: "file"))
    var image: String

    @Option(
        help: ArgumentHelp(
            "The image's version, MAJOR.MINOR.PATCH (default: the file's own, as an MCUboot header's, "
                + "else the X.Y.Z in the file's name); overrides the file's own with a warning.",
            valueName: "X.Y.Z"))
    var version: String?

    @OptionGroup var device: DeviceArguments

    func run() async throws {
        let firmware = try loadImage()
        let address = try device.deviceAddress()
        let timeout = device.timeout
        let bar = OTAProgressBar(totalBytes: firmware.size)
        let outcome = try await device.radio.withRadio { session in
            let central = await CentralManager(radio: session.radio, configuration: session.hostConfiguration)
            do {
                try await attempt("powering on") { try await central.powerOn() }
                let connect: HeadsetOTATarget.Reconnect = {
                    try await Self.connect(address, central: central, session: session, timeout: timeout)
                }
                let link = try await connect()
                let target = HeadsetOTATarget(link: link, taskExecutor: session.executor, reconnect: connect)
                let outcome = await Self.update(
                    firmware, target: target, clock: session.clock, session: session, bar: bar)
                target.close()
                await central.cancelPeripheralConnection(target.link.peripheral)
                await central.close()
                return outcome
            } catch {
                await central.close()
                throw error
            }
        }
        switch outcome {
        case .succeeded(let summary):
            Console.out(Self.summary(summary, version: firmware.version, address: address))
        case .failed(let failure, let summary):
            Console.err(Self.summary(summary, version: firmware.version, address: address, failed: true))
            throw CommandFailure("update of \(address) failed: \(failure)")
        }
    }

    /// Runs the engine on `clock` (the radio's: virtual time on the virtual radio), drawing its
    /// progress.
    static func update<C: Clock<Duration>>(
        _ image: FirmwareImage, target: HeadsetOTATarget, clock: C, session: RadioSession, bar: OTAProgressBar
    ) async -> OTAOutcome {
        let engine = OTAEngine(image: image, target: target, clock: clock, logger: session.logger("ble.ota"))
        let drawing = session.spawn {
            for await progress in engine.progress { bar.draw(progress) }
        }
        let outcome = await engine.run()
        await drawing.value
        bar.finish()
        return outcome
    }

    /// Reads the image file, recognises its format by content (`FirmwareFile`) and prints what
    /// it found before anything is sent (on standard error, with the progress: standard output
    /// keeps the result); a damaged file fails here, before connecting.
    func loadImage() throws -> FirmwareImage {
        let file = try Self.recognize(image, version: version)
        Console.err("image      \(image)")
        for line in file.summary { Console.err(line) }
        if let overridden = file.overriddenFileVersion {
            Console.err("warning: --version \(file.image.version) overrides the file's own version \(overridden)")
        }
        return file.image
    }

    /// The firmware file at `path`, recognised; `version` (X.Y.Z) overrides the file's own.
    /// Failures start with `prefix` (the option that named the file).
    static func recognize(_ path: String, version: String?, prefix: String = "--image ") throws -> FirmwareFile {
        let given: FirmwareVersion?
        do {
            given = try version.map { text throws(FirmwareImageError) in try FirmwareVersion(parsing: text) }
        } catch {
            throw CommandFailure("--version \(error)")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileAccess.read(path)
        } catch {
            throw CommandFailure("\(prefix)\(error)")
        }
        do {
            return try FirmwareFile.recognize(bytes: bytes, fileName: path, version: given)
        } catch {
            throw CommandFailure("\(prefix)\(path): \(error)")
        }
    }

    /// Finds the headset by its address, connects and opens the protocol link.
    static func connect(
        _ address: BluetoothAddress, central: CentralManager, session: RadioSession, timeout: Double
    ) async throws -> DeviceLink<HeadsetProtocol> {
        let peripheral = try await DeviceArguments.find(address, central: central, session: session, timeout: timeout)
        try await attempt("connecting to \(address)") {
            try await central.connect(peripheral, options: .atTerminal)
        }
        do {
            return try await DeviceLink.open(
                peripheral, speaking: HeadsetProtocol.self,
                configuration: DeviceLinkConfiguration(
                    clock: session.clock, taskExecutor: session.executor, logger: session.logger("ble.device-link")))
        } catch {
            await central.cancelPeripheralConnection(peripheral)
            throw CommandFailure("\(address) does not speak the headset protocol: \(error)")
        }
    }

    static func summary(
        _ summary: OTASummary, version: FirmwareVersion, address: BluetoothAddress, failed: Bool = false
    ) -> String {
        let seconds = OTAProgressBar.seconds(summary.elapsed)
        let fresh = summary.imageSize - (summary.resumedFromPacket ?? 0) * summary.packetSize
        let goodput = seconds > 0 ? Double(max(0, fresh)) / seconds : 0
        var lines = [
            failed ? "update of \(address) to \(version) failed after:" : "updated \(address) to \(version)",
            "  image      \(summary.imageSize) bytes in \(summary.packetCount) packets of \(summary.packetSize)",
            "  time       \(String(format: "%.3f", seconds)) s",
            "  goodput    \(OTAProgressBar.rate(goodput))",
            "  sent       \(summary.packetsSent) packets (\(summary.bytesTransmitted) bytes), "
                + "\(summary.packetsResent) resent, \(summary.rewinds) rewinds, \(summary.recoveries) recoveries",
        ]
        if let resumed = summary.resumedFromPacket, resumed > 0 { lines.append("  resumed    from packet \(resumed)") }
        if summary.alreadyInstalled { lines.append("  note       the headset already ran this image") }
        return lines.joined(separator: "\n")
    }
}
