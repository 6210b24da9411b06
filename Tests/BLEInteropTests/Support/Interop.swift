import BLE
import BLELocking
import BLETestSupport
import BLETransport
import BLEWire
import Foundation

/// What the interop suite runs: Bumble's Python (from `BLE_INTEROP_PYTHON`, which
/// `scripts/interop-setup` prints), our peer scripts in Tests/Interop, and the built `ble`.
enum Interop {
    /// The Python of the virtual environment with Bumble; nil disables the suite.
    static let python: String? = {
        guard let path = ProcessInfo.processInfo.environment["BLE_INTEROP_PYTHON"], !path.isEmpty else { return nil }
        return path
    }()

    static var isEnabled: Bool { python != nil }

    /// Tests/Interop, next to this target's folder.
    static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

    /// The `ble` binary SwiftPM builds beside the test runner.
    static var bleExecutable: URL {
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS"
            || folder.lastPathComponent == "Contents"
        {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("ble")
    }

    /// Starts one of our Bumble peer scripts.
    static func bumble(_ name: String, _ script: String, _ arguments: [String]) throws -> PeerProcess {
        try PeerProcess(
            name: name, executable: URL(fileURLWithPath: python ?? "python3"),
            arguments: [scripts.appendingPathComponent(script).path] + arguments, directory: scripts)
    }

    /// Starts `count` Bumble controllers on one link and returns them with their TCP ports.
    static func bumbleControllers(_ count: Int) async throws -> (PeerProcess, [Int]) {
        let process = try bumble("bumble controllers", "bumble_controllers.py", [String(count)])
        do {
            try await process.waitForEvent("ready")
        } catch {
            process.stop()
            throw error
        }
        let ports = process.events("controller").compactMap { $0["port"] as? Int }
        return (process, ports)
    }

    /// Starts `ble controller` with `count` controllers on free loopback ports.
    static func ourControllers(_ count: Int) async throws -> (PeerProcess, [Int]) {
        let listeners = Array(repeating: ["--listen", "tcp-server:127.0.0.1:0"], count: count).flatMap { $0 }
        let arguments = ["controller"] + listeners
        let process = try PeerProcess(name: "ble controller", executable: bleExecutable, arguments: arguments)
        var ports: [Int] = []
        do {
            for index in 1...count {
                let line = try await process.waitForLine("controller \(index) listening") {
                    $0.hasPrefix("controller \(index) listening on tcp-server:127.0.0.1:")
                }
                // "controller N listening on tcp-server:127.0.0.1:PORT, address …"
                let afterHost = line.split(separator: "127.0.0.1:", maxSplits: 1).last ?? ""
                guard let port = Int(afterHost.prefix { $0.isNumber }) else {
                    throw InteropFailure.unreadablePort(line)
                }
                ports.append(port)
            }
        } catch {
            process.stop()
            throw error
        }
        return (process, ports)
    }

    /// A host transport to the controller on `port` of loopback, opened by its moniker.
    static func transport(port: Int) async throws -> any HCITransport {
        try await TransportMoniker(parsing: "tcp-client:127.0.0.1:\(port)").openHostTransport()
    }

    /// A host configuration with its own random static address (Bumble's controllers all have
    /// the public address 00:00:00:00:00:00).
    static func configuration(address: UInt64) -> HostConfiguration {
        var configuration = HostConfiguration()
        configuration.randomStaticAddress = BluetoothAddress(address)
        configuration.commandTimeout = SanitizerAllowance.remoteControllerCommandTimeout
        return configuration
    }
}

enum InteropFailure: Error {
    case unreadablePort(String)
    case timedOut(String)
}

/// Runs `operation`, failing with `InteropFailure.timedOut` after `limit` — only so that a
/// broken peer cannot hang the suite; no test measures time with it.
func withLimit<T: Sendable>(
    _ what: String, _ limit: Duration = .seconds(30), _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw InteropFailure.timedOut(what)
        }
        group.cancelAll()
        return value
    }
}

/// The test service of Tests/Interop/interop_common.py (same UUIDs and values).
enum TestService {
    static let service = BluetoothUUID("C0DE0000-7B5A-4E3A-9C1B-53A0B1E0A000")!
    static let longRead = BluetoothUUID("C0DE0001-7B5A-4E3A-9C1B-53A0B1E0A000")!
    static let write = BluetoothUUID("C0DE0002-7B5A-4E3A-9C1B-53A0B1E0A000")!
    static let writeWithoutResponse = BluetoothUUID("C0DE0003-7B5A-4E3A-9C1B-53A0B1E0A000")!
    static let notify = BluetoothUUID("C0DE0004-7B5A-4E3A-9C1B-53A0B1E0A000")!
    static let indicate = BluetoothUUID("C0DE0005-7B5A-4E3A-9C1B-53A0B1E0A000")!

    static let longValue: [UInt8] = (0..<300).map { UInt8(($0 * 7 + 3) % 256) }
    static let updateCount = 3
    static func notificationValue(_ index: Int) -> [UInt8] { [0x4E, UInt8(index)] }
    static func indicationValue(_ index: Int) -> [UInt8] { [0x49, UInt8(index)] }
    static let manufacturerCompany: UInt16 = 0x05F1
    static let manufacturerData: [UInt8] = [0x49, 0x4F, 0x50]
    static let localName = "BumblePeer"
}

extension Array where Element == UInt8 {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// Events collected by a task as they come, for tests to wait on without owning the stream.
final class EventLog<Event: Sendable>: Sendable {
    private let events = Locked<[Event]>([])
    private let reader: Locked<Task<Void, Never>?> = Locked(nil)

    init<Events: AsyncSequence<Event, Never> & Sendable>(_ stream: Events) {
        let task = Task { [weak self] in
            for await event in stream { self?.events.withLock { $0.append(event) } }
        }
        reader.withLock { $0 = task }
    }

    var all: [Event] { events.withLock { $0 } }

    /// Waits until an event satisfies `predicate` and returns it (the limit only prevents hangs).
    @discardableResult
    func first<T>(_ what: String, limit: Duration = .seconds(30), _ predicate: (Event) -> T?) async throws -> T {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while true {
            if let found = all.lazy.compactMap(predicate).first { return found }
            guard ContinuousClock.now < deadline else { throw InteropFailure.timedOut(what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    deinit { reader.withLock { $0?.cancel() } }
}
