import BLELocking
import BLETransport
import BLEWire
import Testing

@Suite("In-process transport")
struct PipeTransportTests {
    @Test("Packets to the controller go to the closure in order; packets delivered come out in order; close finishes")
    func roundTrip() async throws {
        let sent = SentLog()
        let transport = PipeTransport { sent.append($0) }
        try await transport.send(H4Packet(command: HCI.Reset().packet))
        #expect(sent.all.map(\.type) == [.command])
        transport.deliver(H4Packet(type: .event, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]))
        await transport.close()
        var received: [H4Packet] = []
        for try await packet in transport.packets { received.append(packet) }
        #expect(received.map(\.type) == [.event])
        await #expect(throws: HCITransportError.closed) {
            try await transport.send(H4Packet(command: HCI.Reset().packet))
        }
    }
}

final class SentLog: Sendable {
    private let packets = Locked<[H4Packet]>([])
    func append(_ packet: H4Packet) { packets.withLock { $0.append(packet) } }
    var all: [H4Packet] { packets.withLock { $0 } }
}
