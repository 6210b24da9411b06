#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a UNIX socket path cannot be listened on: something that is not ours to remove is there.
public enum UnixSocketPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A regular file.
    case regularFile(path: String)
    /// A directory, a FIFO, a device.
    case notASocket(path: String, kind: FileAccessError.Kind)
    /// A symbolic link (never followed nor removed: what it leads to belongs to someone).
    case symbolicLink(path: String)
    /// A socket some process listens on.
    case inUse(path: String)
    /// The path could not be examined or the stale socket not removed, with the system's words.
    case inaccessible(path: String, reason: String)

    public var path: String {
        switch self {
        case .regularFile(let path), .notASocket(let path, _), .symbolicLink(let path), .inUse(let path), .inaccessible(let path, _): path
        }
    }

    public var description: String {
        switch self {
        case .regularFile(let path): "\(path) is a regular file, not a socket; it is left as it is"
        case .notASocket(let path, .directory): "\(path) is a directory; choose a path for the socket"
        case .notASocket(let path, let kind): "\(path) is a \(kind.rawValue), not a socket; it is left as it is"
        case .symbolicLink(let path): "\(path) is a symbolic link; it is left as it is"
        case .inUse(let path): "\(path) is a socket another process listens on"
        case .inaccessible(let path, let reason): "\(path): \(reason)"
        }
    }
}

/// The path of a UNIX socket a listener binds: what may be removed before binding and after
/// closing, and nothing else.
package enum UnixSocketPath {
    /// The file's identity (device and inode), to recognise the socket a listener bound.
    package struct Identity: Sendable, Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// Makes `path` free to bind: nothing there, or a stale socket — one nobody listens on, left
    /// by a process that ended — which is removed. Anything else is left untouched and named in
    /// the error: a regular file, a directory, a FIFO or device, a symbolic link, a live socket.
    package static func prepareForListening(_ path: String) throws(UnixSocketPathError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw .inaccessible(path: path, reason: errnoDescription(code))
        }
        switch status.st_mode & S_IFMT {
        case S_IFSOCK: break
        case S_IFLNK: throw .symbolicLink(path: path)
        case S_IFREG: throw .regularFile(path: path)
        default: throw .notASocket(path: path, kind: FileAccess.kind(of: status.st_mode) ?? .unknown)
        }
        if try isListenedOn(path) { throw .inUse(path: path) }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .inaccessible(path: path, reason: "cannot remove the stale socket: \(errnoDescription())")
        }
    }

    /// The identity of the socket file at `path`, or nil when no socket is there.
    package static func identity(of path: String) -> Identity? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Removes the socket file a listener bound, if it is still the one at `path` (another
    /// process may have replaced it since).
    package static func remove(_ path: String, boundAs identity: Identity) {
        guard self.identity(of: path) == identity else { return }
        unlink(path)
    }

    /// Whether a process listens on the socket at `path`.
    ///
    /// Linux lists listening sockets in /proc/net/unix; one bound to this very file says so
    /// without touching it. Otherwise a connection is attempted, the authority: refused means
    /// stale. (The list is asked first because a listener — `ble controller` among them — may
    /// act on a connection, e.g. hand its controller to the newest client.)
    private static func isListenedOn(_ path: String) throws(UnixSocketPathError) -> Bool {
        if let identity = identity(of: path), listedListeners().contains(where: { Self.identity(of: $0) == identity }) {
            return true
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .inaccessible(path: path, reason: errnoDescription()) }
        defer { closeDescriptor(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let octets = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard octets.count < capacity else {
            throw .inaccessible(path: path, reason: "longer than a socket address holds (\(capacity - 1) octets)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: octets)
            buffer[octets.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return true }
        let code = errno
        switch code {
        case ECONNREFUSED: return false
        // A listener whose backlog is full is a listener.
        case EAGAIN: return true
        default: throw .inaccessible(path: path, reason: "cannot tell whether it is in use: \(errnoDescription(code))")
        }
    }

    /// Paths of the listening sockets Linux lists (/proc/net/unix: flag __SO_ACCEPTCON,
    /// 0x10000); relative ones as they were bound, which `lstat` reads against our folder.
    private static func listedListeners() -> [String] {
        guard let bytes = try? FileAccess.read("/proc/net/unix", limit: 16 << 20) else { return [] }
        var paths: [String] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", maxSplits: 7, omittingEmptySubsequences: true)
            guard fields.count == 8, let flags = UInt32(fields[3], radix: 16), flags & 0x10000 != 0,
                !fields[7].hasPrefix("@")
            else { continue }
            paths.append(String(fields[7]))
        }
        return paths
    }
}
