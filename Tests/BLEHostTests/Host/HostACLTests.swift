import BLEController
import BLEWire
import Testing

@testable import BLEHost

@Suite("LE ACL flow control (Core 5.4 Vol 4 Part E §4.1.1)")
struct HostACLTests {
    static func buffers(size: UInt16, count: UInt8) -> ScriptedController.Script {
        var script = ScriptedController.Script()
        script.aclBufferSize = size
        script.aclBufferCount = count
        return script
    }

    @Test(
        "The host sends no more ACL packets than the controller has buffers; Number Of Completed Packets releases more")
    func creditsLimitPackets() async throws {
        try await HostHarness.run(script: Self.buffers(size: 27, count: 2)) { harness in
            harness.controller.connect()
            try await harness.settle()
            for index in 0..<5 {
                try await harness.host.notify(
                    [UInt8](repeating: UInt8(index), count: 20), attributeHandle: 0x0010, on: 0x0040)
            }
            try await harness.settle()
            #expect(harness.controller.sentACL.count == 2)
            harness.controller.completePackets(1)
            try await harness.settle()
            #expect(harness.controller.sentACL.count == 3)
            harness.controller.completePackets(2)
            try await harness.settle()
            #expect(harness.controller.sentACL.count == 5)
            let values = harness.controller.sentATT().compactMap { pdu -> UInt8? in
                if case .handleValueNotification(let n) = pdu { return n.value.first } else { return nil }
            }
            #expect(values == [0, 1, 2, 3, 4])
        }
    }

    @Test("A PDU longer than the controller's buffer is fragmented: start fragment, then continuations")
    func fragmentation() async throws {
        try await HostHarness.run(script: Self.buffers(size: 27, count: 20)) { harness in
            harness.controller.connect()
            // The peer raises the MTU (the host answers as server: min(247, 247)).
            harness.controller.injectATT(.exchangeMTURequest(.init(clientRxMTU: 247)))
            try await harness.settle()
            #expect(await harness.host.attMTU(on: 0x0040) == 247)
            harness.controller.clearACL()
            try await harness.host.notify([UInt8](repeating: 0xAB, count: 244), attributeHandle: 0x0010, on: 0x0040)
            try await harness.settle()
            let packets = harness.controller.sentACL
            // 244 + 3 (ATT) + 4 (L2CAP) = 251 octets → 10 fragments of at most 27.
            #expect(packets.count == 10)
            #expect(packets.first?.packetBoundary == .firstNonFlushable)
            #expect(packets.dropFirst().allSatisfy { $0.packetBoundary == .continuing })
            #expect(packets.allSatisfy { $0.data.count <= 27 })
            #expect(packets.reduce(0) { $0 + $1.data.count } == 251)
        }
    }

    @Test("Buffers of a link come back when it disconnects (Vol 4 Part E §4.3)")
    func creditsReturnOnDisconnect() async throws {
        try await HostHarness.run(script: Self.buffers(size: 27, count: 2)) { harness in
            harness.controller.connect(handle: 0x0040)
            harness.controller.connect(handle: 0x0041)
            try await harness.settle()
            try await harness.host.notify([1], attributeHandle: 0x10, on: 0x0040)
            try await harness.host.notify([2], attributeHandle: 0x10, on: 0x0040)
            try await harness.host.notify([3], attributeHandle: 0x10, on: 0x0041)
            try await harness.settle()
            #expect(harness.controller.sentACL.map(\.handle) == [0x0040, 0x0040])
            harness.controller.inject(
                .disconnectionComplete(.init(connectionHandle: 0x0040, reason: .connectionTimeout)))
            try await harness.settle()
            #expect(harness.controller.sentACL.map(\.handle) == [0x0040, 0x0040, 0x0041])
            #expect(harness.events.disconnections.map(\.1) == [.connectionTimeout])
        }
    }
}

@Suite("ACL scheduler")
struct ACLSchedulerTests {
    @Test("Links are served round-robin, one whole L2CAP PDU per turn")
    func roundRobin() {
        var scheduler = ACLScheduler(bufferSize: 10, bufferCount: 100)
        scheduler.addLink(1)
        scheduler.addLink(2)
        scheduler.enqueue([UInt8](repeating: 1, count: 25), on: 1, priority: .command)  // 3 fragments
        scheduler.enqueue([UInt8](repeating: 1, count: 5), on: 1, priority: .command)
        scheduler.enqueue([UInt8](repeating: 2, count: 5), on: 2, priority: .command)
        let handles = scheduler.nextPackets().map(\.handle)
        #expect(handles == [1, 1, 1, 2, 1])
    }

    @Test("A PDU cut short by the credits finishes before its link's next PDU or another link's")
    func partialPDUFinishesFirst() {
        var scheduler = ACLScheduler(bufferSize: 10, bufferCount: 2)
        scheduler.addLink(1)
        scheduler.addLink(2)
        scheduler.enqueue([UInt8](repeating: 1, count: 25), on: 1, priority: .command)
        scheduler.enqueue([UInt8](repeating: 2, count: 5), on: 2, priority: .command)
        #expect(scheduler.nextPackets().map(\.handle) == [1, 1])
        scheduler.completed(2, on: 1)
        let next = scheduler.nextPackets()
        #expect(next.map(\.handle) == [1, 2])
        #expect(next.first?.packetBoundary == .continuing)
    }

    @Test("Responses go before queued commands on the same link (ATT's order)")
    func priority() {
        var scheduler = ACLScheduler(bufferSize: 50, bufferCount: 1)
        scheduler.addLink(1)
        scheduler.enqueue([0xC0], on: 1, priority: .command)
        scheduler.enqueue([0xC1], on: 1, priority: .command)
        #expect(scheduler.nextPackets().first?.data.last == 0xC0)
        scheduler.enqueue([0xAA], on: 1, priority: .response)
        scheduler.completed(1, on: 1)
        #expect(scheduler.nextPackets().first?.data.last == 0xAA)
    }

    @Test("A link is not ready once its command queue reaches the limit")
    func readiness() {
        var scheduler = ACLScheduler(bufferSize: 50, bufferCount: 1, commandQueueLimit: 2)
        scheduler.addLink(1)
        #expect(scheduler.isReady(1))
        scheduler.enqueue([1], on: 1, priority: .command)
        scheduler.enqueue([2], on: 1, priority: .command)
        #expect(!scheduler.isReady(1))
        _ = scheduler.nextPackets()
        #expect(scheduler.isReady(1))
    }
}
