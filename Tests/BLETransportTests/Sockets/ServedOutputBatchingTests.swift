import BLEController
import BLEVirtualHCI
import BLEWire
import Testing

@testable import BLETransport

/// What one simulation turn produces for a served controller's client goes out in one socket
/// write, in order; and commands a client sends beyond its credit (Core 5.4 Vol 4 Part E §4.4)
/// are answered in order and counted. Checked by counts, never by time.
@Suite("Served controllers: one write per turn, commands beyond the credit counted", .timeLimit(.minutes(1)))
struct ServedOutputBatchingTests {
    static let commands: [any HCICommand] = [
        HCI.ReadBDADDR(), HCI.ReadLocalVersionInformation(), HCI.LEReadBufferSize(), HCI.ReadLocalSupportedCommands(),
    ]

    @Test("64 commands in one write: answered in order, in no more socket writes than chunks read")
    func pipelinedCommandsShareWrites() async throws {
        try await withServedControllers([VirtualControllerServerTests.loopback]) { served in
            guard case .tcpClient(let host, let port) = served.clientMoniker(0) else { return }
            let client = try await TCPClientTransport.connect(host: host, port: port)
            let sent = (0..<64).map { Self.commands[$0 % Self.commands.count] }
            try await client.write(raw: sent.flatMap { H4Packet(command: $0.packet).encoded })
            var answered: [UInt16] = []
            var packets = client.packets.makeAsyncIterator()
            while answered.count < sent.count, let packet = try await packets.next() {
                answered.append(answeredOpcode(packet) ?? 0)
            }
            #expect(answered == sent.map { type(of: $0).opcode.rawValue })
            let statistics = await served.server.statistics(of: 0)
            #expect(statistics.outputPackets == sent.count)
            // Each chunk's commands are handled in one turn, whose answers share one write (a
            // write per packet, before, made 64).
            #expect(statistics.outputWrites <= statistics.inputChunks)
            #expect(statistics.outputWrites < sent.count)
            // Sent at once with one credit: within a chunk the credit is only spent (completions
            // come later), so at most one command per chunk was allowed — all but the first when
            // the 256 octets arrive in one read, as on loopback they do.
            let beyond = await served.listeners[0].port.withController { $0.statistics.commandsBeyondCredit }
            #expect(beyond >= sent.count - statistics.inputChunks && beyond < sent.count)
            await client.close()
        }
    }

    @Test("A client that waits for each completion: one write per command, none beyond the credit")
    func compliantClient() async throws {
        try await withServedControllers([VirtualControllerServerTests.loopback]) { served in
            guard case .tcpClient(let host, let port) = served.clientMoniker(0) else { return }
            let client = try await TCPClientTransport.connect(host: host, port: port)
            var packets = client.packets.makeAsyncIterator()
            for command in Self.commands + Self.commands {
                try await client.write(raw: H4Packet(command: command.packet).encoded)
                let packet = try await packets.next()
                #expect(packet.flatMap(answeredOpcode) == type(of: command).opcode.rawValue)
            }
            let statistics = await served.server.statistics(of: 0)
            #expect(statistics.outputPackets == 8)
            #expect(statistics.outputWrites == 8)
            #expect(await served.listeners[0].port.withController { $0.statistics.commandsBeyondCredit } == 0)
            await client.close()
        }
    }
}
