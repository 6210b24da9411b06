import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A temporary folder holding one path per way a file can be damaged or replaced by something
/// that is not a file — what every reader and writer of the project's files is tested against.
package struct DamagedPaths {
    package enum Damage: String, CaseIterable, CustomStringConvertible {
        case directory
        case fifo
        case characterDevice
        case symlinkLoop
        case danglingSymlink
        case notADirectory

        package var description: String { rawValue }
    }

    package let folder: String

    package init() {
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("swift-ble-damage-\(UUID().uuidString)")
            .path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// A path in the folder where nothing is.
    package func missing(_ name: String = "missing") -> String { "\(folder)/\(name)" }

    /// Makes `path` (in the folder) the damage named; returns the path to use (for
    /// `.notADirectory`, a path below a regular file).
    @discardableResult
    package func make(_ damage: Damage, at path: String) -> String {
        switch damage {
        case .directory:
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        case .fifo:
            mkfifo(path, 0o644)
        case .characterDevice:
            symlink("/dev/null", path)
        case .symlinkLoop:
            symlink(path + ".other", path)
            symlink(path, path + ".other")
        case .danglingSymlink:
            symlink(path + ".nowhere", path)
        case .notADirectory:
            _ = FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3]))
            return path + "/child"
        }
        return path
    }

    package func remove() { try? FileManager.default.removeItem(atPath: folder) }
}
