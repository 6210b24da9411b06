/// What is wrong with a path the project reads or writes, said plainly: every file goes through
/// `FileAccess`, which turns the C library's answer into one of these.
public enum FileAccessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What a path that is not a regular file is instead.
    public enum Kind: String, Sendable, Hashable {
        case directory
        case fifo = "named pipe (FIFO)"
        case characterDevice = "character device"
        case blockDevice = "block device"
        case socket
        case unknown = "special file"
    }

    /// Nothing exists at the path (or a folder on the way to it is missing).
    case missing(path: String)
    /// The path names something other than a regular file: a directory, a FIFO, a device, a
    /// socket.
    case notRegularFile(path: String, kind: Kind)
    /// The process may not open it (or search a folder on the way).
    case permissionDenied(path: String)
    /// Symbolic links on the way form a loop, or are too many to follow.
    case symlinkLoop(path: String)
    /// A component of the path is a file, not a folder.
    case notADirectory(path: String)
    /// The file is larger than the reader takes.
    case tooLarge(path: String, size: Int, limit: Int)
    /// The file could not be read: an I/O error, with the system's words.
    case unreadable(path: String, reason: String)
    /// The file could not be written (disk full, read-only file system …), with the system's
    /// words; the file as it was before is untouched.
    case unwritable(path: String, reason: String)

    public var path: String {
        switch self {
        case .missing(let path), .notRegularFile(let path, _), .permissionDenied(let path), .symlinkLoop(let path),
            .notADirectory(let path), .tooLarge(let path, _, _), .unreadable(let path, _), .unwritable(let path, _):
            path
        }
    }

    /// What is wrong, without the path.
    public var reason: String {
        switch self {
        case .missing: "no such file"
        case .notRegularFile(_, .directory): "is a directory, not a file"
        case .notRegularFile(_, let kind): "is a \(kind.rawValue), not a regular file"
        case .permissionDenied: "permission denied"
        case .symlinkLoop: "too many levels of symbolic links (a loop?)"
        case .notADirectory: "a component of the path is not a directory"
        case .tooLarge(_, let size, let limit): "\(size) octets, more than the \(limit) accepted"
        case .unreadable(_, let reason): "cannot be read: \(reason)"
        case .unwritable(_, let reason): "cannot be written: \(reason)"
        }
    }

    public var description: String { "\(path): \(reason)" }
}
