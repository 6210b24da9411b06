import BLEController
import BLEVirtualHCI
import BLEWire
import Testing

@testable import BLETransport

/// One client per served controller, and no client ever sees another's traffic: a client that
/// takes over gets the controller only once the old client's input is cut off and the
/// controller reset (Core 5.4 Vol 4 Part E §7.3.2), whichever comes first — the old client
/// leaving or the new one arriving.
@Suite("Served controllers keep clients apart (one host per UART, Core 5.4 Vol 4 Part A §2)", .timeLimit(.minutes(1)))
struct ServedClientIsolationTests {
    static let reset = HCI.Reset.opcode.rawValue
    static let readVersion = HCI.ReadLocalVersionInformation.opcode.rawValue
    static let readBufferSize = HCI.LEReadBufferSize.opcode.rawValue

    static func connect(_ served: ServedControllers, _ index: Int) async throws -> TCPClientTransport {
        guard case .tcpClient(let host, let port) = served.clientMoniker(index) else {
            throw HCITransportError.closed
        }
        return try await TCPClientTransport.connect(host: host, port: port)
    }

    /// Sends Reset, Read Local Version and LE Read Buffer Size one at a time (one command
    /// credit, §4.4) and returns every packet received until the last one's completion.
    static func ownCommands(_ client: TCPClientTransport) async throws -> [H4Packet] {
        var packets = client.packets.makeAsyncIterator()
        var received: [H4Packet] = []
        let commands: [any HCICommand] = [HCI.Reset(), HCI.ReadLocalVersionInformation(), HCI.LEReadBufferSize()]
        for command in commands {
            try await client.send(H4Packet(command: command.packet))
            while let packet = try await packets.next() {
                received.append(packet)
                if answeredOpcode(packet) == command.packet.opcode.rawValue { break }
            }
        }
        return received
    }

    /// What a client must have seen: its three completions, nothing before, between or after.
    static func expectOnlyOwn(_ received: [H4Packet], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            received.map(answeredOpcode) == [reset, readVersion, readBufferSize], sourceLocation: sourceLocation)
        if let first = received.first, case .commandComplete(let complete)? = try? HCIEvent(decoding: first.payload) {
            #expect(complete.status == .success, sourceLocation: sourceLocation)
        }
    }

    @Test("Two clients back to back: the newer one is served and sees only its answers; the older is closed")
    func backToBack() async throws {
        try await withServedControllers([VirtualControllerServerTests.loopback]) { served in
            for _ in 0..<20 {
                let older = try await Self.connect(served, 0)
                // The older client's command may or may not be taken before the newer arrives.
                try await older.write(raw: H4Packet(command: HCI.Reset().packet).encoded)
                let newer = try await Self.connect(served, 0)
                Self.expectOnlyOwn(try await Self.ownCommands(newer))
                var olderPackets = older.packets.makeAsyncIterator()
                // The older one's stream ends: at most its own Reset's completion came first.
                var olderReceived: [UInt16?] = []
                while let packet = try? await olderPackets.next() { olderReceived.append(answeredOpcode(packet)) }
                #expect(olderReceived.allSatisfy { $0 == Self.reset })
                await older.close()
                await newer.close()
            }
        }
    }

    @Test("A client replacing a busy one gets none of the old client's answers (the old one flooding commands)")
    func replacingABusyClient() async throws {
        try await withServedControllers([VirtualControllerServerTests.loopback]) { served in
            for round in 0..<5 {
                let busy = try await Self.connect(served, 0)
                var busyPackets = busy.packets.makeAsyncIterator()
                // Commands written without end, ignoring the command credit: the old client is
                // still sending when the new one arrives.
                let flood = commandFlood(HCI.ReadBDADDR(), count: 256)
                let writer = Task {
                    while !Task.isCancelled {
                        do { try await busy.write(raw: flood) } catch { return }
                    }
                }
                // It is being answered.
                _ = try await busyPackets.next()
                let newer = try await Self.connect(served, 0)
                Self.expectOnlyOwn(try await Self.ownCommands(newer))
                writer.cancel()
                await busy.close()
                await newer.close()
                let statistics = await served.server.statistics(of: 0)
                // Nothing read was lost without a count: taken by the controller or discarded.
                #expect(
                    statistics.inputOctetsRead == statistics.inputOctetsConsumed + statistics.inputOctetsDiscarded,
                    "round \(round)")
            }
        }
    }

    @Test("A client arriving just as a busy one leaves gets a clean controller and only its answers")
    func arrivingAsTheOldOneLeaves() async throws {
        try await withServedControllers([VirtualControllerServerTests.loopback]) { served in
            var serverEvents = served.server.events.makeAsyncIterator()
            for _ in 0..<10 {
                let leaving = try await Self.connect(served, 0)
                try await leaving.write(raw: commandFlood(HCI.ReadBDADDR(), count: 5_000))
                // Scanning on: a controller not reset would go on reporting to the next client.
                try await leaving.write(
                    raw: H4Packet(command: HCI.LESetScanEnable(leScanEnable: true, filterDuplicates: false).packet)
                        .encoded)
                await leaving.close()
                let newer = try await Self.connect(served, 0)
                Self.expectOnlyOwn(try await Self.ownCommands(newer))
                await newer.close()
            }
            // Two releases a round (the leaving client's, replaced or disconnected, and the newer's).
            for _ in 0..<20 {
                _ = await first(&serverEvents) { event -> Bool? in
                    if case .released(0, _) = event { true } else { nil }
                }
            }
            #expect(await served.listeners[0].port.withController { !$0.isScanning })
        }
    }
}
