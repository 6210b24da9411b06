import BLEController
import BLEHost
import BLEVirtualHCI
import BLEWire
import Testing

@testable import BLETransport

/// A served controller reads its client only as fast as it takes the client's packets, so a
/// client that floods commands (ignoring Num_HCI_Command_Packets, Core 5.4 Vol 4 Part E §4.4)
/// or stops reading its events costs the process a bounded amount of memory, and the other
/// controllers on the air stay served. Bounds are checked by counts, not by time.
@Suite("Served controllers: back-pressure on a flooding client (Core 5.4 Vol 4 Part E §4.4)", .timeLimit(.minutes(1)))
struct ServedBackPressureTests {
    static let readBDADDR = HCI.ReadBDADDR.opcode.rawValue

    @Test("A flood of 5,000 commands in one write: never more than the bound in flight, every command answered")
    func floodIsReadInBoundedChunks() async throws {
        let limits = VirtualControllerServer.ClientLimits(inputChunksInFlight: 2, readChunkSize: 256)
        try await withServedControllers(
            [VirtualControllerServerTests.loopback, VirtualControllerServerTests.loopback], limits: limits
        ) { served in
            guard case .tcpClient(let host, let port) = served.clientMoniker(0) else { return }
            let flooder = try await TCPClientTransport.connect(host: host, port: port)
            // Enough to pass the bound many times over; small enough not to starve the other
            // tests sharing the process's event loops (they timed out under AddressSanitizer).
            let count = 5_000
            let flood = commandFlood(HCI.ReadBDADDR(), count: count)
            let writer = Task { try await flooder.write(raw: flood) }
            // The other controller's host starts (Reset, identity, buffers, masks) meanwhile.
            let bystander = try await served.host(on: 1)
            try await bystander.start()
            #expect(await bystander.controllerInfo.address == served.address(1))

            var answered = 0
            var packets = flooder.packets.makeAsyncIterator()
            while answered < count, let packet = try await packets.next() {
                #expect(answeredOpcode(packet) == Self.readBDADDR)
                answered += 1
            }
            try await writer.value
            #expect(answered == count)
            let statistics = await served.server.statistics(of: 0)
            #expect(statistics.inputOctetsRead == flood.count)
            #expect(statistics.inputOctetsConsumed == flood.count)
            #expect(statistics.peakInputChunksInFlight <= limits.inputChunksInFlight)
            #expect(statistics.peakInputOctetsInFlight <= limits.inputOctetsBound)
            // 20,000 octets through 256-octet reads, two at a time: reading waited for the controller.
            #expect(statistics.readsHeld > 0)
            // The answers to each chunk went out together: one write per chunk at most, not one
            // per answer.
            #expect(statistics.outputPackets == count)
            #expect(statistics.outputWrites <= statistics.inputChunks)
            await flooder.close()
        }
    }

    @Test("A client that floods and never reads: its input is held, then discarded when it leaves; the next is served")
    func floodWithoutReading() async throws {
        let limits = VirtualControllerServer.ClientLimits()
        try await withServedControllers(
            [VirtualControllerServerTests.loopback, VirtualControllerServerTests.loopback], limits: limits
        ) { served in
            var serverEvents = served.server.events.makeAsyncIterator()
            guard case .tcpClient(let host, let port) = served.clientMoniker(0) else { return }
            let flooder = try await SilentHCIClient.connect(host: host, port: port)
            // 16 MB of commands whose answers are 18 times longer than they are.
            let flood = commandFlood(HCI.ReadLocalSupportedCommands(), count: 4 << 20)
            flooder.write(flood)
            let held = await first(&serverEvents) { event -> Bool? in
                if case .inputHeld(0) = event { true } else { nil }
            }
            #expect(held == true)
            let whileHeld = await served.server.statistics(of: 0)
            #expect(whileHeld.peakInputChunksInFlight <= limits.inputChunksInFlight)
            #expect(whileHeld.peakInputOctetsInFlight <= limits.inputOctetsBound)
            // Far from all of it was read: the rest waits in the sockets, not in the process.
            #expect(whileHeld.inputOctetsRead < flood.count / 2)

            // The other controller is served meanwhile.
            let bystander = try await served.host(on: 1)
            try await bystander.start()

            await flooder.close()
            let released = await first(&serverEvents) { event -> VirtualControllerServer.ReleaseReason? in
                if case .released(0, let reason) = event { return reason }
                return nil
            }
            #expect(released == .disconnected)
            let after = await served.server.statistics(of: 0)
            // Everything read was either taken by the controller or discarded, and counted.
            #expect(after.inputOctetsRead == after.inputOctetsConsumed + after.inputOctetsDiscarded)
            #expect(after.peakInputOctetsInFlight <= limits.inputOctetsBound)
            // What NIO drained unasked when the client closed: at most its receive buffer (which
            // Linux doubles for bookkeeping).
            #expect(after.peakInputOctetsWaiting <= 2 * limits.socketBufferSize)

            // A fresh client gets a working controller.
            let next = try await served.host(on: 0)
            try await next.start()
            #expect(await next.controllerInfo.address == served.address(0))
        }
    }

    @Test("A client that never reads its events while they keep coming is closed past the unread-output limit")
    func unreadOutputClosesTheClient() async throws {
        // A tiny limit: 100 answers of Read Local Supported Commands (71 octets each) pass it.
        let limits = VirtualControllerServer.ClientLimits(unreadOutputLimit: 4096)
        try await withServedControllers([VirtualControllerServerTests.loopback], limits: limits) { served in
            var serverEvents = served.server.events.makeAsyncIterator()
            guard case .tcpClient(let host, let port) = served.clientMoniker(0) else { return }
            let flooder = try await SilentHCIClient.connect(host: host, port: port)
            flooder.write(commandFlood(HCI.ReadLocalSupportedCommands(), count: 1 << 16))
            let released = await first(&serverEvents) { event -> VirtualControllerServer.ReleaseReason? in
                if case .released(0, let reason) = event { return reason }
                return nil
            }
            #expect(released == .disconnected)
            #expect(await served.server.statistics(of: 0).clientsClosedForUnreadOutput == 1)
            await flooder.close()
            let next = try await served.host(on: 0)
            try await next.start()
        }
    }
}
