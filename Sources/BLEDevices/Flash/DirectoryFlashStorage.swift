import BLETransport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Flash as files in a state directory, so a device process that is killed resumes its update
/// when it starts again. Records are replaced by writing a temporary file, syncing it, renaming
/// it over the old one and syncing the directory: a crash at any point leaves the old or the new
/// record, never a torn one.
///
/// Every file goes through `FileAccess`: a record that is there but cannot be read (a symbolic
/// link loop, no permission, a directory or FIFO in its place, an I/O error) is an error, never
/// taken for a record not written yet — which would make the store start afresh over it.
public final class DirectoryFlashStorage: FlashStorage {
    public let directory: URL

    /// Uses (and creates) `directory`.
    public init(directory: URL) throws(FlashStorageError) {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create \(directory.path): \(error)")
        }
    }

    private func url(_ record: FlashRecord) -> URL {
        directory.appendingPathComponent(record.fileName)
    }

    public func read(_ record: FlashRecord) throws(FlashStorageError) -> [UInt8]? {
        do {
            return try FileAccess.readIfPresent(url(record).path)
        } catch {
            throw .file(error)
        }
    }

    public func replace(_ record: FlashRecord, with bytes: [UInt8]) throws(FlashStorageError) {
        do {
            try FileAccess.writeAtomically(bytes, to: url(record).path)
        } catch {
            throw .file(error)
        }
    }

    public func append(_ bytes: [UInt8], to record: FlashRecord) throws(FlashStorageError) {
        let path = url(record).path
        let descriptor = try openRegular(path)
        defer { close(descriptor) }
        guard lseek(descriptor, 0, SEEK_END) >= 0 else { throw .io("seek \(path): errno \(errno)") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress.map { $0 + written }, bytes.count - written)
            }
            guard count > 0 else { throw .io("write \(path): errno \(errno)") }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw .io("fsync \(path): errno \(errno)") }
    }

    public func truncate(_ record: FlashRecord, to length: Int) throws(FlashStorageError) {
        let path = url(record).path
        guard FileAccess.entryExists(path) else { return }
        let descriptor = try openRegular(path)
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(max(0, length))) == 0, fsync(descriptor) == 0 else {
            throw .io("truncate \(path): errno \(errno)")
        }
    }

    public func remove(_ record: FlashRecord) throws(FlashStorageError) {
        let path = url(record).path
        guard unlink(path) == 0 || errno == ENOENT else { throw .io("unlink \(path): errno \(errno)") }
        try syncDirectory()
    }

    /// The regular file at `path` opened for writing (created when absent), never a FIFO or
    /// device in its place.
    private func openRegular(_ path: String) throws(FlashStorageError) -> Int32 {
        do {
            return try FileAccess.openForWriting(path, truncate: false)
        } catch {
            throw .file(error)
        }
    }

    /// Makes a rename or unlink durable (the directory entry itself is data).
    private func syncDirectory() throws(FlashStorageError) {
        let descriptor = open(directory.path, O_RDONLY)
        guard descriptor >= 0 else { throw .io("open \(directory.path): errno \(errno)") }
        defer { close(descriptor) }
        // Some file systems refuse fsync on a directory; the rename is still atomic there.
        _ = fsync(descriptor)
    }
}
