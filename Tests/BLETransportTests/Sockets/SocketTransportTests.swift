import BLEWire
import Testing

@testable import BLETransport

/// The host-side socket transports against each other on loopback: one plays the controller by
/// writing raw octets.
@Suite("Socket transports (H4 over TCP, Core 5.4 Vol 4 Part A §2)", .timeLimit(.minutes(1)))
struct SocketTransportTests {
    /// A listening transport and a client connected to it; both closed by `close()`.
    struct Pair {
        let server: TCPServerTransport
        let client: TCPClientTransport

        static func make() async throws -> Pair {
            let server = try await TCPServerTransport.listen(host: "127.0.0.1", port: 0)
            do {
                let client = try await TCPClientTransport.connect(host: "127.0.0.1", port: server.boundPort)
                try await server.waitForController()
                return Pair(server: server, client: client)
            } catch {
                await server.close()
                throw error
            }
        }

        func close() async {
            await client.close()
            await server.close()
        }
    }

    static let commandComplete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    static let acl: [UInt8] = [0x02, 0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]

    @Test("Packets are framed whatever the chunking: octet by octet, and several packets in one write")
    func arbitraryChunking() async throws {
        let pair = try await Pair.make()
        var received = pair.server.packets.makeAsyncIterator()
        // Octet by octet: the packet straddles many reads.
        for octet in Self.commandComplete { try await pair.client.write(raw: [octet]) }
        // Two packets and the start of a third in one write, the rest in another.
        try await pair.client.write(raw: Self.acl + Self.commandComplete + Self.acl.prefix(3))
        try await pair.client.write(raw: Array(Self.acl.dropFirst(3)))
        var packets: [H4Packet] = []
        while packets.count < 4, let packet = try await received.next() { packets.append(packet) }
        #expect(packets.map(\.encoded) == [Self.commandComplete, Self.acl, Self.commandComplete, Self.acl])
        #expect(packets.map(\.type) == [.event, .acl, .event, .acl])
        await pair.close()
    }

    @Test("send writes the packet indicator and the HCI packet; the other side reads the same packet")
    func sendRoundTrip() async throws {
        let pair = try await Pair.make()
        let command = H4Packet(command: HCI.Reset().packet)
        try await pair.server.send(command)
        var received = pair.client.packets.makeAsyncIterator()
        let packet = try await received.next()
        #expect(packet?.encoded == [0x01, 0x03, 0x0C, 0x00])
        await pair.close()
    }

    @Test("A stream that cannot be framed fails the transport with malformedStream and closes the socket")
    func garbageFailsTheReader() async throws {
        let pair = try await Pair.make()
        try await pair.client.write(raw: Self.commandComplete + [0xFF, 0x00, 0x01])
        var received = pair.server.packets.makeAsyncIterator()
        // The packet before the garbage still arrives.
        #expect(try await received.next()?.encoded == Self.commandComplete)
        let failure = await Self.ending(of: &received)
        guard case .malformedStream(let reason) = failure as? HCITransportError else {
            Issue.record("expected malformedStream, got \(String(describing: failure))")
            await pair.close()
            return
        }
        #expect(reason.contains("unknown packet type 0xFF at offset 7"))
        // The socket is closed: the other side sees the peer hang up, and sending fails.
        var clientSide = pair.client.packets.makeAsyncIterator()
        #expect(await Self.ending(of: &clientSide) as? HCITransportError == .closed)
        await #expect(throws: HCITransportError.closed) {
            try await pair.server.send(H4Packet(command: HCI.Reset().packet))
        }
        await pair.close()
    }

    @Test("Garbage from the controller side fails the client transport the same way")
    func garbageFailsTheClient() async throws {
        let pair = try await Pair.make()
        // 0x00 is no packet indicator.
        try await pair.server.write(raw: [0x00])
        var received = pair.client.packets.makeAsyncIterator()
        let failure = await Self.ending(of: &received)
        guard case .malformedStream = failure as? HCITransportError else {
            Issue.record("expected malformedStream, got \(String(describing: failure))")
            await pair.close()
            return
        }
        await #expect(throws: HCITransportError.closed) {
            try await pair.client.send(H4Packet(command: HCI.Reset().packet))
        }
        await pair.close()
    }

    @Test("close() finishes the packet stream without an error; later sends throw closed")
    func closeFinishesQuietly() async throws {
        let pair = try await Pair.make()
        await pair.client.close()
        var received = pair.client.packets.makeAsyncIterator()
        #expect(await Self.ending(of: &received) == nil)
        await #expect(throws: HCITransportError.closed) {
            try await pair.client.send(H4Packet(command: HCI.Reset().packet))
        }
        await pair.close()
    }

    @Test("A second controller connecting to a host's tcp-server transport is turned away")
    func serverTransportTakesOneController() async throws {
        let pair = try await Pair.make()
        let second = try await TCPClientTransport.connect(host: "127.0.0.1", port: pair.server.boundPort)
        var received = second.packets.makeAsyncIterator()
        #expect(await Self.ending(of: &received) as? HCITransportError == .closed)
        await second.close()
        await pair.close()
    }

    @Test("Opening fails with a typed error: nobody listening, no socket file")
    func openFailures() async throws {
        // A port that was just free: listen, note it, close.
        let probe = try await TCPServerTransport.listen(host: "127.0.0.1", port: 0)
        let port = probe.boundPort
        await probe.close()
        let refused = TransportMoniker.tcpClient(host: "127.0.0.1", port: port)
        await #expect {
            _ = try await refused.openHostTransport()
        } throws: { error in
            guard case .connectionFailed(let moniker, _) = error as? TransportOpenError else { return false }
            return moniker == refused
        }
        let missing = TransportMoniker.unix(path: "/nonexistent-directory/controller.sock")
        await #expect {
            _ = try await missing.openHostTransport()
        } throws: { error in
            guard case .connectionFailed(let moniker, _) = error as? TransportOpenError else { return false }
            return moniker == missing
        }
    }

    @Test("tcp-server moniker opens a listening host transport on the port the system picks")
    func openTCPServerByMoniker() async throws {
        let transport = try await TransportMoniker.tcpServer(host: "127.0.0.1", port: 0).openHostTransport()
        let server = try #require(transport as? TCPServerTransport)
        #expect(server.boundPort != 0)
        await server.close()
        // Closed before any controller connected: sending fails, the stream is over.
        await #expect(throws: HCITransportError.closed) { try await server.send(H4Packet(command: HCI.Reset().packet)) }
    }

    /// Reads until the stream ends; the error it ended with, or nil for a quiet finish.
    static func ending(of iterator: inout AsyncThrowingStream<H4Packet, any Error>.Iterator) async -> (any Error)? {
        do {
            while try await iterator.next() != nil {}
            return nil
        } catch {
            return error
        }
    }
}
