import BLECompanion
import BLETestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Known devices: a database path that is not a regular file is an error, left as it was")
struct KnownDevicesDamageTests {
    @Test(
        "Each damage (directory, FIFO, device, symbolic link loop or to nothing, a file as folder): cannotOpen, nothing blocks or changes",
        arguments: DamagedPaths.Damage.allCases)
    func damagedPath(_ damage: DamagedPaths.Damage) throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.make(damage, at: paths.missing("devices.sqlite"))
        var before = stat()
        let existed = lstat(path, &before) == 0
        #expect {
            _ = try KnownDevices(path: path)
        } throws: { error in
            guard case .cannotOpen(let failed, _) = error as? KnownDevicesError else { return false }
            return failed == path
        }
        var after = stat()
        #expect((lstat(path, &after) == 0) == existed)
        if existed { #expect(after.st_mode == before.st_mode && after.st_ino == before.st_ino) }
        // No database or journal was created beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: paths.folder)
        #expect(!names.contains { $0.hasSuffix("-journal") || $0.hasSuffix("-wal") })
    }
}
