import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every path the tool reads, damaged each way a path can be: the message says what is wrong,
/// the exit status is 1, and nothing blocks (a FIFO is refused, not waited on).
@Suite("File errors say what is wrong with the path (serve --gatt, decode --btsnoop, ota --image)")
struct FileErrorTests {
    /// (how to damage a path, what the message must say)
    static let damages: [(String, @Sendable (String) -> Void, String)] = [
        (
            "directory", { try? FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: true) },
            "is a directory, not a file"
        ),
        ("fifo", { mkfifo($0, 0o644) }, "is a named pipe (FIFO), not a regular file"),
        ("device", { symlink("/dev/null", $0) }, "is a character device, not a regular file"),
        (
            "symlink loop",
            { path in
                symlink(path + ".b", path)
                symlink(path, path + ".b")
            }, "too many levels of symbolic links"
        ),
        ("missing", { _ in }, "no such file"),
    ]

    static let commands: [(String, @Sendable (String) -> [String])] = [
        ("serve", { ["serve", "--gatt", $0] }),
        ("decode", { ["decode", "--btsnoop", $0] }),
        ("ota", { ["ota", "00:00:5E:00:53:40", "--image", $0] }),
    ]

    @Test("Each reading command × each damage: exit 1 and the path's problem in plain words")
    func everyCommandEveryDamage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ble-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (index, (name, damage, message)) in Self.damages.enumerated() {
            let path = folder.appendingPathComponent("input-\(index)-1.2.3.bin").path
            damage(path)
            for (command, arguments) in Self.commands {
                let result = try CLI.run(arguments(path))
                #expect(result.status != 0, "\(command) on a \(name)")
                #expect(result.standardError.contains(path), "\(command) on a \(name): \(result.standardError)")
                #expect(
                    result.standardError.contains(message), "\(command) on a \(name): \(result.standardError)")
                #expect(!result.standardError.contains("NSCocoaErrorDomain"))
            }
        }
    }
}
