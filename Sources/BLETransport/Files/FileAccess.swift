#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way the project reads and writes files (GATT descriptions, btsnoop captures, OTA
/// images, device state): each failure is a `FileAccessError` that says what is wrong with the
/// path, and nothing blocks — a FIFO is opened with `O_NONBLOCK` and refused as what it is, a
/// device is never read or written as if it were a file.
///
/// Writes that replace a file go through a temporary file in the same folder and `rename(2)`, so
/// a crash or a full disk leaves the old file or the new one, never a torn one.
public enum FileAccess {
    /// The largest file `read` takes unless told otherwise (64 MiB).
    public static let defaultLimit = 64 << 20

    /// The whole regular file at `path`, at most `limit` octets.
    public static func read(_ path: String, limit: Int = defaultLimit) throws(FileAccessError) -> [UInt8] {
        let descriptor = try openRegular(path, flags: O_RDONLY)
        defer { closeDescriptor(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, reason: errnoDescription()) }
        let size = Int(status.st_size)
        guard size <= limit else { throw .tooLarge(path: path, size: size, limit: limit) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { readDescriptor(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: errnoDescription())
            }
            if count == 0 { break }
            bytes += chunk[..<count]
            // The file grew while being read.
            guard bytes.count <= limit else { throw .tooLarge(path: path, size: bytes.count, limit: limit) }
        }
        return bytes
    }

    /// The file at `path`, or nil when nothing at all is there — the one case that means "not
    /// written yet". Anything else that keeps it from being read (a directory, a FIFO, no
    /// permission, a symbolic link loop or to nothing, an I/O error) is an error: a reader that
    /// took it for absence would start afresh and overwrite what is there.
    public static func readIfPresent(_ path: String, limit: Int = defaultLimit) throws(FileAccessError) -> [UInt8]? {
        do {
            return try read(path, limit: limit)
        } catch .missing where !entryExists(path) {
            return nil
        }
    }

    /// Whether anything at all (a dangling symbolic link included) is at `path`.
    public static func entryExists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Throws unless `path` is a regular file or nothing (then it may be created): what a writer
    /// checks before it replaces a file.
    public static func checkReplaceable(_ path: String) throws(FileAccessError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard kind(of: status.st_mode) == nil else {
                throw .notRegularFile(path: path, kind: kind(of: status.st_mode) ?? .unknown)
            }
            return
        }
        let code = errno
        if code == ENOENT, !entryExists(path) { return }
        throw error(code, path)
    }

    /// Replaces the file at `path` with `bytes` atomically: a temporary file in the same folder,
    /// written and flushed, then renamed over it. A `path` that is not a regular file is refused
    /// and left as it is.
    ///
    /// A symbolic link at `path` is written through, as editors do: the file it leads to is
    /// replaced (its temporary file beside it, so the rename stays on one file system) and the
    /// link survives. A link to nothing or in a loop is refused: creating a file wherever a
    /// dangling link points is how a planted link redirects a write.
    public static func writeAtomically(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o644)
        throws(FileAccessError)
    {
        let destination = try writeDestination(of: path)
        try checkReplaceable(destination)
        let temporary = "\(destination).tmp-\(getpid())"
        let descriptor = openFile(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode: mode)
        guard descriptor >= 0 else { throw unwritable(errno, path) }
        let contents = Array(bytes)
        if let reason = writeFully(descriptor, contents) {
            closeDescriptor(descriptor)
            unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
        guard fsync(descriptor) == 0 else {
            let reason = errnoDescription()
            closeDescriptor(descriptor)
            unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
        closeDescriptor(descriptor)
        guard rename(temporary, destination) == 0 else {
            let code = errno
            unlink(temporary)
            throw unwritable(code, path)
        }
        syncFolder(of: destination)
    }

    /// Where a write to `path` lands: `path` itself, or the file a symbolic link there leads to
    /// (every link on the way resolved).
    private static func writeDestination(of path: String) throws(FileAccessError) -> String {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return path }
        guard let resolved = realpath(path, nil) else {
            let code = errno
            switch code {
            case ENOENT: throw .unwritable(path: path, reason: "a symbolic link to nothing")
            case ELOOP: throw .symlinkLoop(path: path)
            default: throw unwritable(code, path)
            }
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Opens `path` for writing, creating it when absent, without blocking and without touching
    /// anything that is not a regular file (a FIFO, a device): the descriptor, positioned at the
    /// start, the file truncated when `truncate`.
    public static func openForWriting(_ path: String, truncate: Bool, mode: mode_t = 0o644) throws(FileAccessError)
        -> Int32
    {
        let descriptor = openFile(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, mode: mode)
        guard descriptor >= 0 else {
            let code = errno
            // A FIFO with no reader answers ENXIO to a non-blocking open for writing.
            if code == ENXIO { throw .notRegularFile(path: path, kind: .fifo) }
            throw error(code, path)
        }
        try requireRegular(descriptor, path) { .unwritable(path: path, reason: $0) }
        if truncate, ftruncate(descriptor, 0) != 0 {
            let reason = errnoDescription()
            closeDescriptor(descriptor)
            throw .unwritable(path: path, reason: reason)
        }
        return descriptor
    }

    // MARK: Plumbing

    /// A descriptor on the regular file at `path`: opened without blocking (a FIFO's open
    /// returns at once), then refused unless `fstat` says it is a regular file.
    private static func openRegular(_ path: String, flags: Int32) throws(FileAccessError) -> Int32 {
        let descriptor = openFile(path, flags | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(errno, path) }
        try requireRegular(descriptor, path) { .unreadable(path: path, reason: $0) }
        return descriptor
    }

    /// Closes `descriptor` and throws unless `fstat` says it is on a regular file (`failure`
    /// words an `fstat` that fails); then makes it blocking again: a regular file reads and
    /// writes the same either way, and blocking is the plain case.
    private static func requireRegular(
        _ descriptor: Int32, _ path: String, failure: (String) -> FileAccessError
    ) throws(FileAccessError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = errnoDescription()
            closeDescriptor(descriptor)
            throw failure(reason)
        }
        if let kind = kind(of: status.st_mode) {
            closeDescriptor(descriptor)
            throw .notRegularFile(path: path, kind: kind)
        }
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    }

    /// Nil for a regular file, else what it is.
    static func kind(of mode: mode_t) -> FileAccessError.Kind? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: .directory
        case S_IFIFO: .fifo
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        case S_IFSOCK: .socket
        default: .unknown
        }
    }

    /// The error an `open` or `stat` of `path` failed with.
    static func error(_ code: Int32, _ path: String) -> FileAccessError {
        switch code {
        case ENOENT:
            // A symbolic link that leads nowhere is there, but cannot be followed.
            entryExists(path) ? .unreadable(path: path, reason: "a symbolic link to nothing") : .missing(path: path)
        case EACCES, EPERM: .permissionDenied(path: path)
        case ELOOP: .symlinkLoop(path: path)
        case ENOTDIR: .notADirectory(path: path)
        case EISDIR: .notRegularFile(path: path, kind: .directory)
        case ENXIO, ENODEV: .notRegularFile(path: path, kind: .unknown)
        default: .unreadable(path: path, reason: errnoDescription(code))
        }
    }

    private static func unwritable(_ code: Int32, _ path: String) -> FileAccessError {
        switch code {
        case EACCES, EPERM: .permissionDenied(path: path)
        case ENOENT: .missing(path: path)
        case ELOOP: .symlinkLoop(path: path)
        case ENOTDIR: .notADirectory(path: path)
        case EISDIR: .notRegularFile(path: path, kind: .directory)
        default: .unwritable(path: path, reason: errnoDescription(code))
        }
    }

    /// Flushes the folder holding `path`, so that a rename in it survives a crash.
    private static func syncFolder(of path: String) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = openFile(folder.isEmpty ? "/" : folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        closeDescriptor(descriptor)
    }
}
