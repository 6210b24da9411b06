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
        let path = url(record).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .io("cannot read \(path)") }
        return [UInt8](data)
    }

    public func replace(_ record: FlashRecord, with bytes: [UInt8]) throws(FlashStorageError) {
        let target = url(record)
        let temporary = directory.appendingPathComponent(record.fileName + ".tmp")
        try writeSynced(bytes, to: temporary.path, flags: O_WRONLY | O_CREAT | O_TRUNC)
        guard rename(temporary.path, target.path) == 0 else { throw .io("rename to \(target.path): errno \(errno)") }
        try syncDirectory()
    }

    public func append(_ bytes: [UInt8], to record: FlashRecord) throws(FlashStorageError) {
        try writeSynced(bytes, to: url(record).path, flags: O_WRONLY | O_CREAT | O_APPEND)
    }

    public func truncate(_ record: FlashRecord, to length: Int) throws(FlashStorageError) {
        let path = url(record).path
        guard FileManager.default.fileExists(atPath: path) else { return }
        let descriptor = open(path, O_WRONLY)
        guard descriptor >= 0 else { throw .io("open \(path): errno \(errno)") }
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

    private func writeSynced(_ bytes: [UInt8], to path: String, flags: Int32) throws(FlashStorageError) {
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw .io("open \(path): errno \(errno)") }
        defer { close(descriptor) }
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

    /// Makes a rename or unlink durable (the directory entry itself is data).
    private func syncDirectory() throws(FlashStorageError) {
        let descriptor = open(directory.path, O_RDONLY)
        guard descriptor >= 0 else { throw .io("open \(directory.path): errno \(errno)") }
        defer { close(descriptor) }
        // Some file systems refuse fsync on a directory; the rename is still atomic there.
        _ = fsync(descriptor)
    }
}
