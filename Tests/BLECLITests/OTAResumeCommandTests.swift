import Foundation
import Testing

/// A killed `ble ota` (or a killed `ble headset`) and the next run, as separate processes over
/// `ble controller`: the app's process keeps no state of its own, so what the next run resumes
/// from is what the headset reports it holds (docs/headset-protocol.md, OTA start).
@Suite("ble ota and ble headset killed mid-transfer, across processes over ble controller")
struct OTAResumeCommandTests {
    /// A 256 KiB image: long enough over the wall-clock-paced controllers to be killed midway.
    static let imageSize = 256 * 1024

    /// A fresh temporary folder holding `headset-2.0.0.bin`.
    static func folderWithImage() throws -> (folder: URL, image: URL) {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("ble-ota-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let image = folder.appendingPathComponent("headset-2.0.0.bin")
        let bytes = (0..<imageSize).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        try Data(bytes).write(to: image)
        return (folder, image)
    }

    /// The port in "controller N listening on tcp-server:127.0.0.1:PORT, address ADDRESS".
    static func port(_ line: String) throws -> String {
        let moniker = try #require(line.components(separatedBy: ", address ").first)
        return try #require(moniker.components(separatedBy: ":").last)
    }

    /// The address in "headset ADDRESS advertising "HEADSET", firmware X.Y.Z".
    static func address(_ line: String) throws -> String {
        let words = line.split(separator: " ")
        try #require(words.count > 2 && words[0] == "headset" && words[2] == "advertising", "\(line)")
        return String(words[1])
    }

    /// The highest percentage among `ble ota`'s plain progress lines ("  20 %  52440/262144 bytes  …").
    static func percentReached(_ progress: String) -> Int {
        progress.split(separator: "\n").compactMap { line -> Int? in
            let parts = line.components(separatedBy: " %  ")
            guard parts.count > 1, parts[1].contains(" bytes") else { return nil }
            return Int(parts[0].trimmingCharacters(in: .whitespaces))
        }.max() ?? -1
    }

    /// N in the summary's "  resumed    from packet N".
    static func resumedPacket(_ summary: String) -> Int? {
        let prefix = "  resumed    from packet "
        guard let line = summary.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return Int(line.dropFirst(prefix.count))
    }

    /// N in the headset's "OTA start: … → resuming at packet N".
    static func headsetResumedPacket(_ activity: String) -> Int? {
        let marker = "→ resuming at packet "
        guard let line = activity.split(separator: "\n").first(where: { $0.contains(marker) }) else { return nil }
        return line.components(separatedBy: marker).last.flatMap { Int($0) }
    }

    /// `ble controller` serving two controllers on one virtual air over TCP (the headset's and
    /// the app's), and their ports.
    static func twoControllers() throws -> (BackgroundProcess, [String]) {
        let controller = try BackgroundProcess([
            "controller", "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
        ])
        do {
            return (controller, try controller.lines(2).map(port))
        } catch {
            controller.stop()
            throw error
        }
    }

    /// The `ble headset` arguments on the controller at `port`, its state kept in `folder`.
    static func headset(port: String, stateIn folder: URL) -> [String] {
        [
            "headset", "--transport", "tcp-client:127.0.0.1:\(port)",
            "--state-dir", folder.appendingPathComponent("headset-state").path,
        ]
    }

    /// The `ble ota` arguments for the image, the headset's address and the app's controller.
    static func ota(_ image: URL, _ address: String, port: String) -> [String] {
        ["ota", "--image", image.path, "--version", "2.0.0", address, "--transport", "tcp-client:127.0.0.1:\(port)"]
    }

    /// Starts `ble ota` in the background and kills it with SIGKILL once it has printed progress
    /// of at least 20 % (killing `device` first, if given); returns the percentage it had printed.
    static func killMidTransfer(_ arguments: [String], afterKilling device: BackgroundProcess? = nil) throws -> Int {
        let ota = try BackgroundProcess(arguments)
        defer { ota.stop() }
        try ota.waitUntil("progress of 20 % or more") { _, progress in percentReached(progress) >= 20 }
        if let device {
            device.killAbruptly()
            #expect(device.terminationReason == .uncaughtSignal)
        }
        ota.killAbruptly()
        #expect(ota.terminationReason == .uncaughtSignal, "\(ota.standardError)")
        // Killed before the end: no summary, no swap.
        #expect(!ota.standardOutput.contains("updated "))
        #expect(!ota.standardError.contains("verifying and swapping"))
        return percentReached(ota.standardError)
    }

    @Test("A killed ble ota resumes on the next run from the packet the headset reports")
    func killedOTAResumes() throws {
        let (folder, image) = try Self.folderWithImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (controller, ports) = try Self.twoControllers()
        defer { controller.stop() }
        let headset = try BackgroundProcess(["headset", "--transport", "tcp-client:127.0.0.1:\(ports[0])"])
        defer { headset.stop() }
        let address = try Self.address(try headset.lines(1)[0])
        #expect(headset.standardOutput.hasSuffix("firmware 1.0.0\n"))
        let ota = Self.ota(image, address, port: ports[1])

        let reached = try Self.killMidTransfer(ota)
        #expect((20..<100).contains(reached))
        // The killed host's socket closes, its controller resets and the headset loses the link.
        try headset.waitUntil("the loss of the killed app's link") { out, _ in out.contains("disconnected: ") }

        let resumed = try CLI.run(ota)
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardOutput.hasPrefix("updated \(address) to 2.0.0\n"))
        let packet = try #require(Self.resumedPacket(resumed.standardOutput), "\(resumed.standardOutput)")
        #expect(packet > 0)
        #expect(headset.standardOutput.contains("version 2.0.0, packets of "))
        #expect(headset.standardOutput.contains("→ resuming at packet \(packet)\n"))
        #expect(headset.standardOutput.contains("OTA commit: verified, slots swapped"))
        #expect(resumed.standardError.contains("100 %  \(Self.imageSize)/\(Self.imageSize) bytes"))

        // The headset now runs the image: a third run finds it installed and sends nothing.
        let again = try CLI.run(ota)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("note       the headset already ran this image"))
        #expect(again.standardOutput.contains("  sent       0 packets (0 bytes)"))
        #expect(headset.standardOutput.contains("→ already installed"))

        #expect(headset.stop() == 0)
        #expect(controller.stop() == 0)
    }

    @Test("A headset killed mid-transfer restarts on its --state-dir and the next ble ota resumes from it")
    func killedHeadsetResumes() throws {
        let (folder, image) = try Self.folderWithImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (controller, ports) = try Self.twoControllers()
        defer { controller.stop() }
        let headsetArguments = Self.headset(port: ports[0], stateIn: folder)
        let crashed = try BackgroundProcess(headsetArguments)
        defer { crashed.stop() }
        let started = try crashed.lines(1)[0]
        let address = try Self.address(started)
        #expect(started.hasSuffix("firmware 1.0.0"))
        let ota = Self.ota(image, address, port: ports[1])

        // The headset dies while packets stream in; then the app too, so that only the state
        // directory carries the progress to the next runs.
        let reached = try Self.killMidTransfer(ota, afterKilling: crashed)
        #expect((20..<100).contains(reached))
        #expect(!crashed.standardOutput.contains("OTA commit"))

        let restarted = try BackgroundProcess(headsetArguments)
        defer { restarted.stop() }
        #expect(try restarted.lines(1)[0] == started)
        let resumed = try CLI.run(ota)
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardOutput.hasPrefix("updated \(address) to 2.0.0\n"))
        let packet = try #require(Self.resumedPacket(resumed.standardOutput), "\(resumed.standardOutput)")
        #expect(packet > 0)
        #expect(restarted.standardOutput.contains("→ resuming at packet \(packet)\n"))
        #expect(restarted.standardOutput.contains("OTA commit: verified, slots swapped"))
        #expect(restarted.stop() == 0)

        // The swap is on disk too: the next start runs 2.0.0.
        let updated = try BackgroundProcess(headsetArguments)
        defer { updated.stop() }
        #expect(try updated.lines(1)[0] == "headset \(address) advertising \"HEADSET\", firmware 2.0.0")
        #expect(updated.stop() == 0)
        #expect(controller.stop() == 0)
    }

    @Test("A running ble ota rides out a headset killed and restarted on its --state-dir, resuming from its record")
    func otaRecoversFromHeadsetRestart() throws {
        let (folder, image) = try Self.folderWithImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (controller, ports) = try Self.twoControllers()
        defer { controller.stop() }
        let headsetArguments = Self.headset(port: ports[0], stateIn: folder)
        let crashed = try BackgroundProcess(headsetArguments)
        defer { crashed.stop() }
        let address = try Self.address(try crashed.lines(1)[0])

        let ota = try BackgroundProcess(Self.ota(image, address, port: ports[1]))
        defer { ota.stop() }
        try ota.waitUntil("progress of 20 % or more") { _, progress in Self.percentReached(progress) >= 20 }
        crashed.killAbruptly()
        #expect(crashed.terminationReason == .uncaughtSignal)
        let restarted = try BackgroundProcess(headsetArguments)
        defer { restarted.stop() }
        _ = try restarted.lines(1)

        // The app loses the link, finds the headset again and asks where it stands: the
        // restarted process answers from its state directory.
        #expect(ota.waitForExit() == 0, "\(ota.standardError)")
        #expect(ota.standardOutput.hasPrefix("updated \(address) to 2.0.0\n"))
        #expect(ota.standardError.contains("reconnecting"))
        #expect(!ota.standardOutput.contains(" 0 recoveries"))
        let packet = try #require(Self.headsetResumedPacket(restarted.standardOutput), "\(restarted.standardOutput)")
        #expect(packet > 0)
        #expect(restarted.standardOutput.contains("OTA commit: verified, slots swapped"))
        #expect(restarted.stop() == 0)
        #expect(controller.stop() == 0)
    }
}
