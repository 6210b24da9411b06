import BLETestSupport
import Foundation
import Testing

@testable import BLETransport

#if canImport(Glibc)
    import Glibc
#endif

/// Atomic replacement at a path that is a symbolic link writes through to the file it leads to
/// (as editors do), so the link survives; what cannot be replaced is refused with a typed error
/// and loses nothing.
@Suite("FileAccess.writeAtomically: symbolic links written through, directories and FIFOs refused")
struct AtomicWriteThroughLinkTests {
    static func isSymlink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    static func link(of path: String) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    }

    @Test("An absolute link: the target gets the new bytes, the link stays a link to it")
    func absoluteLink() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let target = paths.missing("target")
        let link = paths.missing("link")
        try FileAccess.writeAtomically([1, 2, 3], to: target)
        symlink(target, link)
        try FileAccess.writeAtomically([4, 5], to: link)
        #expect(Self.isSymlink(link))
        #expect(Self.link(of: link) == target)
        #expect(try FileAccess.read(target) == [4, 5])
        #expect(try FileAccess.read(link) == [4, 5])
        let left = try FileManager.default.contentsOfDirectory(atPath: paths.folder).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty)
    }

    @Test("A relative link into another folder, through a chain of two links")
    func relativeChain() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let inner = paths.missing("inner")
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        let target = inner + "/state.bin"
        try FileAccess.writeAtomically([1], to: target)
        symlink("inner/state.bin", paths.missing("first"))
        symlink("first", paths.missing("second"))
        try FileAccess.writeAtomically([7, 7], to: paths.missing("second"))
        #expect(Self.link(of: paths.missing("second")) == "first")
        #expect(Self.link(of: paths.missing("first")) == "inner/state.bin")
        #expect(try FileAccess.read(target) == [7, 7])
        // The temporary file was beside the target, and is gone.
        let left = try FileManager.default.contentsOfDirectory(atPath: inner).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty)
    }

    @Test("A link to nothing is refused: no file is created where it points")
    func danglingLink() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let link = paths.missing("link")
        symlink(paths.missing("nowhere"), link)
        #expect(throws: FileAccessError.unwritable(path: link, reason: "a symbolic link to nothing")) {
            try FileAccess.writeAtomically([1], to: link)
        }
        #expect(!FileAccess.entryExists(paths.missing("nowhere")))
        #expect(Self.isSymlink(link))
    }

    @Test("A directory, and a link to one, are refused as directories; their contents stay")
    func directory() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let folder = paths.missing("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileAccess.writeAtomically([1, 2], to: folder + "/kept")
        symlink(folder, paths.missing("link"))
        #expect(throws: FileAccessError.notRegularFile(path: folder, kind: .directory)) {
            try FileAccess.writeAtomically([9], to: folder)
        }
        #expect(throws: FileAccessError.notRegularFile(path: folder, kind: .directory)) {
            try FileAccess.writeAtomically([9], to: paths.missing("link"))
        }
        #expect(try FileAccess.read(folder + "/kept") == [1, 2])
        #expect(Self.isSymlink(paths.missing("link")))
    }

    @Test("A FIFO is refused without blocking and stays a FIFO")
    func fifo() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.missing("fifo")
        mkfifo(path, 0o644)
        #expect(throws: FileAccessError.notRegularFile(path: path, kind: .fifo)) {
            try FileAccess.writeAtomically([9], to: path)
        }
        var status = stat()
        #expect(lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }
}
