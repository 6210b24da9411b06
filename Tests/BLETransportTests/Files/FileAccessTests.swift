import BLETestSupport
import Foundation
import Testing

@testable import BLETransport

#if canImport(Glibc)
    import Glibc
#endif

@Suite("FileAccess: every file read and written through one helper that says what is wrong with the path")
struct FileAccessTests {
    /// The error each damage gives a reader, by kind.
    static func expectedReadError(_ damage: DamagedPaths.Damage, _ path: String) -> FileAccessError {
        switch damage {
        case .directory: .notRegularFile(path: path, kind: .directory)
        case .fifo: .notRegularFile(path: path, kind: .fifo)
        case .characterDevice: .notRegularFile(path: path, kind: .characterDevice)
        case .symlinkLoop: .symlinkLoop(path: path)
        case .danglingSymlink: .unreadable(path: path, reason: "a symbolic link to nothing")
        case .notADirectory: .notADirectory(path: path)
        }
    }

    @Test(
        "Reading: every damage is its own typed error (and a FIFO does not block)",
        arguments: DamagedPaths.Damage.allCases)
    func readDamage(_ damage: DamagedPaths.Damage) throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.make(damage, at: paths.missing("target"))
        #expect(throws: Self.expectedReadError(damage, path)) { try FileAccess.read(path) }
        // Only nothing at all is "absent"; every damage stays an error.
        #expect(throws: Self.expectedReadError(damage, path)) { try FileAccess.readIfPresent(path) }
    }

    @Test("Reading: a missing file is .missing, and readIfPresent's nil")
    func readMissing() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        #expect(throws: FileAccessError.missing(path: paths.missing())) { try FileAccess.read(paths.missing()) }
        #expect(try FileAccess.readIfPresent(paths.missing()) == nil)
    }

    @Test("Reading: a regular file, a symbolic link to one, and the size limit")
    func readRegular() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.missing("file")
        _ = FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3, 4]))
        symlink(path, path + ".link")
        #expect(try FileAccess.read(path) == [1, 2, 3, 4])
        #expect(try FileAccess.read(path + ".link") == [1, 2, 3, 4])
        #expect(try FileAccess.read(path, limit: 4) == [1, 2, 3, 4])
        #expect(throws: FileAccessError.tooLarge(path: path, size: 4, limit: 3)) { try FileAccess.read(path, limit: 3) }
    }

    @Test("Errors name the system's failure in the project's words (permission denied, loops, missing folders)")
    func errnoMapping() {
        #expect(FileAccess.error(EACCES, "/p") == .permissionDenied(path: "/p"))
        #expect(FileAccess.error(EPERM, "/p") == .permissionDenied(path: "/p"))
        #expect(FileAccess.error(ELOOP, "/p") == .symlinkLoop(path: "/p"))
        #expect(FileAccess.error(ENOTDIR, "/p") == .notADirectory(path: "/p"))
        #expect(FileAccess.error(EISDIR, "/p") == .notRegularFile(path: "/p", kind: .directory))
        #expect(FileAccess.error(ENOENT, "/nonexistent-swift-ble") == .missing(path: "/nonexistent-swift-ble"))
        #expect(FileAccessError.permissionDenied(path: "/p").description == "/p: permission denied")
        #expect(
            FileAccessError.notRegularFile(path: "/dev/null", kind: .characterDevice).description
                == "/dev/null: is a character device, not a regular file")
    }

    @Test("Atomic replacement refuses every damage and leaves it as it was", arguments: DamagedPaths.Damage.allCases)
    func writeDamage(_ damage: DamagedPaths.Damage) throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.make(damage, at: paths.missing("target"))
        var before = stat()
        let existed = lstat(path, &before) == 0
        #expect(throws: FileAccessError.self) { try FileAccess.writeAtomically([9, 9], to: path) }
        var after = stat()
        #expect((lstat(path, &after) == 0) == existed)
        if existed { #expect(after.st_mode == before.st_mode && after.st_ino == before.st_ino) }
        // No temporary file is left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: paths.folder).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty)
    }

    @Test("Atomic replacement of a regular file, or of nothing, writes the new bytes")
    func writeRegular() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.missing("file")
        try FileAccess.writeAtomically([1, 2], to: path)
        #expect(try FileAccess.read(path) == [1, 2])
        try FileAccess.writeAtomically([3], to: path)
        #expect(try FileAccess.read(path) == [3])
    }

    @Test(
        "Opening for writing refuses a FIFO (without blocking), a device and a directory",
        arguments: [
            DamagedPaths.Damage.fifo, .characterDevice, .directory, .symlinkLoop,
        ])
    func openForWritingDamage(_ damage: DamagedPaths.Damage) throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.make(damage, at: paths.missing("target"))
        #expect(throws: FileAccessError.self) { try FileAccess.openForWriting(path, truncate: true) }
    }

    @Test(
        "A capture is never written into a FIFO or a device: cannotCreate, nothing blocks",
        arguments: [
            DamagedPaths.Damage.fifo, .characterDevice, .directory,
        ])
    func captureRefusesNonRegular(_ damage: DamagedPaths.Damage) throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.make(damage, at: paths.missing("capture.btsnoop"))
        #expect(throws: PacketCaptureError.self) { try PacketCapture(path: path) }
    }
}
