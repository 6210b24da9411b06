import BLESimulation
import BLEWire
import Testing

@testable import BLEController

@Suite("Number Of Completed Packets policies (Core 5.4 Vol 4 Part E §7.7.19)")
struct CompletedPacketsTests {
    typealias Policy = VirtualController.CompletedPacketsReporting

    /// A link whose central reports with `policy` (interval 30 ms, 27-octet LL payloads).
    static func link(
        _ policy: Policy, aclBufferCount: UInt8 = 8
    ) throws -> (central: TestHost, peripheral: TestHost, handles: (central: ConnectionHandle, peripheral: ConnectionHandle)) {
        let air = VirtualAir()
        let central = TestHost(
            air: air, configuration: .init(aclBufferCount: aclBufferCount, completedPacketsReporting: policy))
        let peripheral = TestHost(air: air, at: AirPosition(x: 2))
        let handles = try #require(Scenario.connect(central, peripheral))
        central.run(for: .milliseconds(100))
        central.clearEvents()
        peripheral.clearEvents()
        return (central, peripheral, handles)
    }

    static func send(_ count: Int, from host: TestHost, on handle: ConnectionHandle, tag: UInt8) {
        for i in 0..<count {
            host.send(
                acl: ACLPacket(
                    handle: handle, packetBoundary: .firstNonFlushable,
                    data: ACLDataTests.frame([tag, UInt8(i), 0, 0, 0])))
        }
    }

    /// Five packets from the central and eight from the peripheral, queued before the same
    /// connection event: each pair of the event carries one of each, and the event goes on after
    /// the central's last packet for the peripheral's.
    static func exchange(_ policy: Policy) throws -> (
        central: TestHost, peripheral: TestHost, nocp: [(time: VirtualInstant, count: Int)]
    ) {
        let (central, peripheral, handles) = try link(policy)
        send(5, from: central, on: handles.central, tag: 0xC0)
        send(8, from: peripheral, on: handles.peripheral, tag: 0xB0)
        central.run(for: .milliseconds(100))
        #expect(peripheral.acl.count == 5 && central.acl.count == 8)
        // All in one connection event.
        let times = central.acl.map(\.time) + peripheral.acl.map(\.time)
        #expect(times.min()!.duration(to: times.max()!) < .milliseconds(10))
        return (central, peripheral, ACLDataTests.completed(central))
    }

    @Test(".endOfEvent: one event for the five packets when the connection event ends")
    func endOfEvent() throws {
        let (central, peripheral, nocp) = try Self.exchange(.endOfEvent)
        #expect(nocp.map(\.count) == [5])
        // The event ends with the peripheral's eighth packet.
        #expect(nocp.first?.time == central.acl.last?.time)
        #expect(try #require(nocp.first?.time) > peripheral.acl.last!.time)
    }

    @Test(".perAcknowledgement: one event per packet, as the peer's reply acknowledges it")
    func perAcknowledgement() throws {
        let (central, peripheral, nocp) = try Self.exchange(.perAcknowledgement)
        #expect(nocp.map(\.count) == [1, 1, 1, 1, 1])
        for k in 0..<5 {
            // The peripheral's k-th reply acknowledges the central's k-th packet: the central's host
            // hears of both at the same instant, after the peripheral's host got the packet.
            #expect(nocp[k].time == central.acl[k].time)
            #expect(nocp[k].time > peripheral.acl[k].time)
        }
        // Pairs follow each other: 9-octet packets both ways, T_IFS apart (80 + 72 + 150 µs each way).
        for k in 1..<5 { #expect(nocp[k - 1].time.duration(to: nocp[k].time) == .microseconds(604)) }
    }

    @Test(".coalesced(threshold: 2): at every second acknowledgement, the rest at the event's end")
    func coalesced() throws {
        let (central, _, nocp) = try Self.exchange(.coalesced(threshold: 2))
        #expect(nocp.map(\.count) == [2, 2, 1])
        #expect(nocp.map(\.time) == [central.acl[1].time, central.acl[3].time, central.acl[7].time])
    }

    @Test(".coalesced above the packets of an event: the event's end comes first")
    func coalescedEventEndFirst() throws {
        let (central, _, nocp) = try Self.exchange(.coalesced(threshold: 10))
        #expect(nocp.map(\.count) == [5])
        #expect(nocp.first?.time == central.acl.last?.time)
    }

    @Test("A buffer returned mid-event is refilled, and the new packet goes in the next connection event")
    func refillGoesToNextEvent() throws {
        let (central, peripheral, handles) = try Self.link(.perAcknowledgement, aclBufferCount: 2)
        Self.send(2, from: central, on: handles.central, tag: 0xC0)
        #expect(central.run(until: { !ACLDataTests.completed(central).isEmpty }, limit: .milliseconds(100)))
        let first = try #require(ACLDataTests.completed(central).first)
        // The event is still under way: the second packet has not reached the peer yet.
        #expect(peripheral.acl.count == 1)
        Self.send(1, from: central, on: handles.central, tag: 0xC1)
        central.run(for: .milliseconds(100))
        #expect(peripheral.acl.count == 3)
        #expect(first.time < peripheral.acl[1].time)
        // The event was planned at its anchor: the refill is the first packet of the next event,
        // one interval (30 ms) after the first packet of this one.
        #expect(peripheral.acl[0].time.duration(to: peripheral.acl[2].time) == .milliseconds(30))
        #expect(peripheral.acl[2].packet.data.dropFirst(4).first == 0xC1)
    }
}
