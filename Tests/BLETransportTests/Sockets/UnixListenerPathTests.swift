import BLEController
import BLEHost
import BLETestSupport
import BLEVirtualHCI
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import BLETransport

#if canImport(Glibc)
    import Glibc
#endif

/// A served controller's UNIX listener removes only a stale socket at its path (one nobody
/// listens on); a regular file, a directory, a symbolic link or a live socket is someone's, is
/// refused with a typed error and left as it was. Closing removes only the socket file it bound.
@Suite("Served controllers: what a UNIX listener may remove at its path", .timeLimit(.minutes(1)))
struct UnixListenerPathTests {
    /// A server with one controller, and what `listen` on `path` gave.
    static func listen(at path: String) async -> (VirtualControllerServer, Result<Void, TransportOpenError>) {
        let radio = VirtualRadio(pacing: .paced(rate: 1))
        let port = await radio.addController()
        let server = VirtualControllerServer()
        do throws(TransportOpenError) {
            try await server.listen(on: .unix(path: path), serving: port)
            return (server, .success(()))
        } catch {
            return (server, .failure(error))
        }
    }

    static func expectRefused(_ path: String, _ expected: UnixSocketPathError) async {
        let (server, result) = await listen(at: path)
        await server.close()
        guard case .failure(let error) = result else {
            Issue.record("listening on \(path) succeeded")
            return
        }
        #expect(error == .socketPath(.unix(path: path), expected))
    }

    static func kind(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    /// Connections a plain listener was offered.
    final class Counter: Sendable {
        let value = Atomic(0)
    }

    /// A plain NIO listener on `path`, counting the connections it is offered.
    static func plainListener(at path: String, accepted: Counter) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.value.wrappingAdd(1, ordering: .relaxed)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(unixDomainSocketPath: path).get()
    }

    /// A socket file nobody listens on, as a process that ended leaves it: bound and closed
    /// without removing the file (NIO removes its own on close).
    static func makeStaleSocket(at path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let octets = Array(path.utf8)
        try #require(octets.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: octets)
            buffer[octets.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        try #require(kind(path) == S_IFSOCK)
    }

    @Test("A regular file at the path: refused, its contents kept")
    func regularFile() async throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.missing("controller.sock")
        try FileAccess.writeAtomically([1, 2, 3], to: path)
        await Self.expectRefused(path, .regularFile(path: path))
        #expect(try FileAccess.read(path) == [1, 2, 3])
    }

    @Test("A directory at the path: refused, its contents kept")
    func directory() async throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.missing("controller.sock")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileAccess.writeAtomically([4], to: path + "/kept")
        await Self.expectRefused(path, .notASocket(path: path, kind: .directory))
        #expect(try FileAccess.read(path + "/kept") == [4])
    }

    @Test("A symbolic link at the path (to a file, to a stale socket): refused, the link and its target kept")
    func symbolicLink() async throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let file = paths.missing("file")
        try FileAccess.writeAtomically([5], to: file)
        let link = paths.missing("controller.sock")
        symlink(file, link)
        await Self.expectRefused(link, .symbolicLink(path: link))
        #expect(Self.kind(link) == S_IFLNK)
        #expect(try FileAccess.read(file) == [5])

        // A link to a socket nobody listens on is still not ours to remove.
        let stale = paths.missing("stale.sock")
        try Self.makeStaleSocket(at: stale)
        let socketLink = paths.missing("socket-link")
        symlink(stale, socketLink)
        await Self.expectRefused(socketLink, .symbolicLink(path: socketLink))
        #expect(Self.kind(socketLink) == S_IFLNK)
        #expect(Self.kind(stale) == S_IFSOCK)
    }

    @Test("A live socket at the path: refused without connecting to it; its listener keeps it")
    func liveSocket() async throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.missing("controller.sock")
        let accepted = Counter()
        let other = try await Self.plainListener(at: path, accepted: accepted)
        await Self.expectRefused(path, .inUse(path: path))
        #expect(Self.kind(path) == S_IFSOCK)
        // Found in the kernel's list of listeners, not by connecting (a served controller would
        // take a connection for a new host).
        #expect(accepted.value.load(ordering: .relaxed) == 0)
        // The other listener still has its socket: a client reaches it.
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path).get()
        try await client.close()
        try await other.close()
    }

    @Test("A stale socket at the path is replaced; closing removes the socket bound, and only it")
    func staleSocket() async throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let path = paths.missing("controller.sock")
        try Self.makeStaleSocket(at: path)
        let (server, result) = await Self.listen(at: path)
        #expect(throws: Never.self) { try result.get() }
        // The controller answers there: a host starts.
        var configuration = HostConfiguration()
        configuration.commandTimeout = SanitizerAllowance.remoteControllerCommandTimeout
        let host = Host(
            transport: try await TransportMoniker.unix(path: path).openHostTransport(), configuration: configuration)
        do {
            try await host.start()
        } catch {
            await host.stop()
            await server.close()
            throw error
        }
        await host.stop()
        await server.close()
        #expect(Self.kind(path) == nil)

        // A file put in the socket's place while it was served is not removed on close.
        let (second, again) = await Self.listen(at: path)
        #expect(throws: Never.self) { try again.get() }
        unlink(path)
        try FileAccess.writeAtomically([6], to: path)
        await second.close()
        #expect(try FileAccess.read(path) == [6])
    }
}
