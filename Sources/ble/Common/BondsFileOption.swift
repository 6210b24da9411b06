import ArgumentParser
import BLE
import BLETransport
import Foundation

/// `--bonds FILE`: the SQLite file of bonds (`SQLiteBondStore`). By default
/// `$XDG_STATE_HOME/swift-ble/bonds.sqlite`, or `~/.local/state/swift-ble/bonds.sqlite` without
/// XDG_STATE_HOME — state a program keeps between runs, in the XDG Base Directory
/// Specification's place for it. The file is the user's alone (mode 0600).
struct BondsFileOption: ParsableArguments {
    @Option(
        name: .customLong("bonds"),
        help: ArgumentHelp(
            "The bonds file (default: $XDG_STATE_HOME/swift-ble/bonds.sqlite, else ~/.local/state/swift-ble/bonds.sqlite).",
            valueName: "FILE"))
    var path: String?

    /// The file named, or the default.
    var resolvedPath: String { path ?? Self.defaultPath }

    static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return state + "/swift-ble/bonds.sqlite"
    }

    /// The store, nil when there is no file yet (reading commands do not create one).
    func existingStore() throws -> SQLiteBondStore? {
        let path = resolvedPath
        guard FileAccess.entryExists(path) else { return nil }
        return try open(path)
    }

    /// The store, created (with its folder, mode 0700) when missing: for commands that bond.
    func store() throws -> SQLiteBondStore {
        let path = resolvedPath
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileAccess.entryExists(folder) {
            try? FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return try open(path)
    }

    /// This tool's identity kept in the bonds file: its IRK (made and saved on first use), and
    /// a random static address derived from it (Core 5.4 Vol 6 Part B §1.3.2.1). Each run of
    /// the tool is a new host on the controller; without a stable identity address, every bond
    /// — ours, keyed by our identity, and the peer's, keyed by our address — would be lost at
    /// the next run.
    func identity(of store: SQLiteBondStore) throws -> LocalIdentity {
        do {
            if let irk = try store.localIdentity() { return LocalIdentity(irk: irk) }
            var generator = SystemRandomNumberGenerator()
            let irk = SMPKey128(high: generator.next(), low: generator.next())
            try store.saveLocalIdentity(irk)
            return LocalIdentity(irk: irk)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// The IRK and the identity address made from it.
    struct LocalIdentity: Sendable {
        var irk: SMPKey128

        func apply(to configuration: inout HostConfiguration, store: SQLiteBondStore) {
            configuration.bondStore = store
            configuration.identityResolvingKey = irk
            if configuration.randomStaticAddress == nil {
                configuration.randomStaticAddress = BluetoothAddress.randomStatic(identifiedBy: irk)
            }
        }
    }

    private func open(_ path: String) throws -> SQLiteBondStore {
        do {
            return try SQLiteBondStore(path: path)
        } catch {
            throw CommandFailure(error.description)
        }
    }
}
