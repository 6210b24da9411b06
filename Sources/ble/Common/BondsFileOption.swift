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

    private func open(_ path: String) throws -> SQLiteBondStore {
        do {
            return try SQLiteBondStore(path: path)
        } catch {
            throw CommandFailure(error.description)
        }
    }
}
