#if canImport(Glibc)
    import Glibc
#endif
import BLEWire
import Testing

@testable import BLETransport

@Suite("Linux HCI user channel transport (hci-socket:INDEX)", .timeLimit(.minutes(1)))
struct HCISocketTransportTests {
    @Test("Opening hci-socket:0 without a usable adapter gives a typed error that says why")
    func openWithoutAdapterExplains() async throws {
        do {
            let transport = try await TransportMoniker.hciSocket(index: 0).openHostTransport()
            // A machine with a free adapter and CAP_NET_ADMIN: nothing to explain.
            await transport.close()
        } catch {
            guard case .hciSocket(let reason) = error else {
                Issue.record("expected an hci-socket error, got \(error)")
                return
            }
            let text = error.description
            switch reason {
            case .noBluetoothSupport: #expect(text.contains("no Bluetooth support") && text.contains("AF_BLUETOOTH"))
            case .permissionDenied: #expect(text.contains("CAP_NET_ADMIN"))
            case .adapterBusy: #expect(text.contains("hciconfig hci0 down") && text.contains("btmgmt --index 0"))
            case .noSuchAdapter: #expect(text.contains("no Bluetooth adapter hci0"))
            case .failed: Issue.record("no explanatory case for: \(text)")
            }
        }
    }

    @Test("Each datagram is one H4 packet each way, never coalesced (a SOCK_SEQPACKET pair stands in)")
    func packetPerDatagram() async throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let controller = pair[1]
        defer { close(controller) }
        let transport = try await HCISocketTransport.attach(descriptor: pair[0], index: 7)
        // Two sends arrive as two datagrams, each exactly one packet with its indicator.
        let reset = H4Packet(type: .command, payload: [0x03, 0x0C, 0x00])
        let acl = H4Packet(type: .acl, payload: [0x40, 0x00, 0x02, 0x00, 0xAA, 0xBB])
        try await transport.send(reset)
        try await transport.send(acl)
        var buffer = [UInt8](repeating: 0, count: 512)
        for expected in [reset, acl] {
            let count = read(controller, &buffer, buffer.count)
            #expect(Array(buffer.prefix(max(0, count))) == expected.encoded)
        }
        // Datagrams from the controller become packets, the largest ACL one included.
        let big = [0x02, 0x40, 0x00, 0xFB, 0x00] + [UInt8](repeating: 0x5A, count: 251)
        for datagram in [[0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], big] {
            #expect(write(controller, datagram, datagram.count) == datagram.count)
        }
        var received = transport.packets.makeAsyncIterator()
        #expect(try await received.next()?.encoded == [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        #expect(try await received.next()?.encoded == big)
        await transport.close()
        #expect(try await received.next() == nil)
        await #expect(throws: HCITransportError.closed) { try await transport.send(reset) }
    }
}
