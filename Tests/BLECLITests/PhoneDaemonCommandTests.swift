import Foundation
import Testing

/// `ble phone daemon`: the headset's phone app as a Linux process over `ble controller`, its
/// restoration record in --state-dir — stopped with SIGTERM or killed with SIGKILL, then
/// restarted: the new process restores the record (willRestoreState with the headset),
/// reconnects and resubscribes, and the heartbeats flow again.
@Suite("ble phone daemon: the headset app killed and restarted over ble controller")
struct PhoneDaemonCommandTests {
    /// `ble controller` with the headset's controller and the phone's, and `ble headset` on
    /// the first; its address.
    static func headsetAndController() throws -> (controller: BackgroundProcess, headset: BackgroundProcess, ports: [String], address: String) {
        let (controller, ports) = try OTAResumeCommandTests.twoControllers()
        do {
            let headset = try BackgroundProcess(["headset", "--transport", "tcp-client:127.0.0.1:\(ports[0])"])
            do {
                let address = try OTAResumeCommandTests.address(try headset.lines(1)[0])
                return (controller, headset, ports, address)
            } catch {
                headset.stop()
                throw error
            }
        } catch {
            controller.stop()
            throw error
        }
    }

    static func daemon(port: String, state: URL, headset address: String) -> [String] {
        [
            "phone", "daemon", "--transport", "tcp-client:127.0.0.1:\(port)", "--state-dir", state.path,
            "--headset-mac", address, "--heartbeats-per-line", "2",
        ]
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ble-daemon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static let savedConnected =
        "saved the restoration record: central 'headset-central': 1 peripheral(s) (1 connected), 1 subscription(s)"

    /// Waits until the daemon connected, subscribed, saved that in its record and handled
    /// heartbeats.
    static func waitUntilRunning(_ daemon: BackgroundProcess) throws {
        try daemon.waitUntil("the subscription saved and heartbeats") { out, _ in
            out.contains("app: subscribed to the headset") && out.contains(savedConnected)
                && out.contains("heartbeats: ")
        }
    }

    /// The restarted daemon: launched for restoration with the headset, connected and
    /// subscribed again, heartbeats flowing.
    static func checkRestart(_ arguments: [String], headset: BackgroundProcess, connectionsBefore: Int) throws {
        let restarted = try BackgroundProcess(arguments)
        defer { restarted.stop() }
        try restarted.waitUntil("the restored app's heartbeats") { out, _ in
            out.contains("app: subscribed to the headset") && out.contains("heartbeats: ")
        }
        let out = restarted.standardOutput
        #expect(out.contains("(a saved record to restore)"))
        #expect(out.contains("restoring the saved record: central 'headset-central': 1 peripheral(s)"))
        #expect(out.contains("launched again (the process restarted) to restore 'headset-central'"))
        #expect(out.contains("restored 'headset-central': 0 connected, 1 pending"))
        #expect(out.contains("app: restored 1 peripheral(s)"))
        #expect(!out.contains("launched by the user"))
        // Restoration comes before the app's own connection and subscription.
        let restoredAt = try #require(out.range(of: "app: restored 1 peripheral(s)"))
        let subscribedAt = try #require(out.range(of: "app: subscribed to the headset"))
        #expect(restoredAt.lowerBound < subscribedAt.lowerBound)
        // The headset saw the new process connect.
        try headset.waitUntil("a new connection") { out, _ in
            out.components(separatedBy: "connected: ").count - 1 > connectionsBefore
        }
        #expect(restarted.stop() == 0, "\(restarted.standardError)")
    }

    @Test("SIGTERM: willTerminate, the record saved, exit 0; the restarted process restores, reconnects, resubscribes")
    func stoppedAndRestarted() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (controller, headset, ports, address) = try Self.headsetAndController()
        defer { controller.stop() }
        defer { headset.stop() }
        let arguments = Self.daemon(port: ports[1], state: folder.appendingPathComponent("state"), headset: address)

        let first = try BackgroundProcess(arguments)
        defer { first.stop() }
        try Self.waitUntilRunning(first)
        #expect(first.standardOutput.contains("launched by the user"))
        #expect(first.stop() == 0, "\(first.standardError)")
        let out = first.standardOutput
        #expect(first.standardError.contains("received SIGTERM"))
        #expect(out.contains("stopping: ending the app (grace period 5 s)"))
        #expect(out.contains("willTerminate begins"))
        #expect(out.contains("killed: the daemon's process was stopped"))
        #expect(
            out.contains(
                "saved the restoration record at shutdown: central 'headset-central': 1 peripheral(s) (1 connected), 1 subscription(s)"
            ))
        #expect(out.hasSuffix("stopped: record saved, transport closed\n"))
        // The links end with the transport: no event of theirs relaunches the ended app.
        #expect(!out.contains("launched in the background"))
        #expect(!out.contains("launched again"))
        let willTerminate = try #require(out.range(of: "willTerminate begins"))
        let saved = try #require(out.range(of: "saved the restoration record at shutdown"))
        #expect(willTerminate.lowerBound < saved.lowerBound)
        try headset.waitUntil("the stopped daemon's disconnection") { out, _ in out.contains("disconnected: ") }

        try Self.checkRestart(arguments, headset: headset, connectionsBefore: 1)
        #expect(headset.stop() == 0)
        #expect(controller.stop() == 0)
    }

    @Test("SIGKILL: the record saved at its last change restores the killed process's headset")
    func killedAndRestarted() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (controller, headset, ports, address) = try Self.headsetAndController()
        defer { controller.stop() }
        defer { headset.stop() }
        let arguments = Self.daemon(port: ports[1], state: folder.appendingPathComponent("state"), headset: address)

        let first = try BackgroundProcess(arguments)
        defer { first.stop() }
        try Self.waitUntilRunning(first)
        first.killAbruptly()
        #expect(first.terminationReason == .uncaughtSignal)
        #expect(!first.standardOutput.contains("willTerminate"))
        #expect(!first.standardOutput.contains("at shutdown"))
        try headset.waitUntil("the killed daemon's disconnection") { out, _ in out.contains("disconnected: ") }

        try Self.checkRestart(arguments, headset: headset, connectionsBefore: 1)
        #expect(headset.stop() == 0)
        #expect(controller.stop() == 0)
    }

    @Test("A damaged record file: a typed error naming it, exit 1, the file untouched and no radio opened")
    func damagedStateFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = folder.appendingPathComponent("restoration.sqlite")
        let garbage = Data("these are not the records you are looking for\n".utf8) + Data(repeating: 0x5A, count: 2048)
        try garbage.write(to: record)
        // Nothing listens on port 1: had the daemon opened its transport first, the error would be the transport's.
        let result = try CLI.run([
            "phone", "daemon", "--transport", "tcp-client:127.0.0.1:1", "--state-dir", folder.path,
        ])
        #expect(result.status == 1)
        #expect(result.standardError.contains("\(record.path) is not a restoration store"), "\(result.standardError)")
        #expect(!result.standardError.contains("--transport"))
        #expect(try Data(contentsOf: record) == garbage)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["restoration.sqlite"])
    }

    @Test("The daemon runs on a transport: --transport virtual is refused, as a bad --grace")
    func refusesVirtual() throws {
        let virtual = try CLI.run(["phone", "daemon", "--transport", "virtual", "--state-dir", "/tmp/unused"])
        #expect(virtual.status != 0)
        #expect(virtual.standardError.contains("ble phone run"))
        let grace = try CLI.run([
            "phone", "daemon", "--transport", "tcp-client:127.0.0.1:1", "--state-dir", "/tmp/unused", "--grace", "0",
        ])
        #expect(grace.status != 0)
        #expect(grace.standardError.contains("--grace"))
    }
}
