import BLEWire
import Testing

@testable import BLEController

@Suite("Several connections of one central share its radio (Core 5.4 Vol 6 Part B §4.5.1)")
struct RadioSharingTests {
    /// A central connected to two peripherals, recording the connection events it leads.
    final class Star {
        let air: VirtualAir
        let central: TestHost
        let peripherals: [TestHost]
        var handles: [(central: ConnectionHandle, peripheral: ConnectionHandle)] = []
        var events: [ConnectionEventRecord] = []

        init(intervals: [UInt16]) throws {
            let air = VirtualAir()
            self.air = air
            central = TestHost(air: air, configuration: .init(aclBufferCount: 255))
            peripherals = intervals.indices.map { TestHost(air: air, at: AirPosition(x: Double(2 + $0))) }
            for (peripheral, interval) in zip(peripherals, intervals) {
                let parameters = HCI.ConnectionParameters(
                    connectionIntervalMin: interval, connectionIntervalMax: interval, supervisionTimeout: 200)
                handles.append(try #require(Scenario.connect(central, peripheral, parameters: parameters)))
            }
            central.run(for: .milliseconds(200))
            central.controller.onConnectionEvent = { [unowned self] in self.events.append($0) }
        }

        /// Fills every link from the central with `count` ACL packets of 251 octets.
        func saturate(packets count: Int) {
            for handle in handles.map(\.central) {
                for i in 0..<count {
                    central.send(
                        acl: ACLPacket(
                            handle: handle, packetBoundary: .firstNonFlushable,
                            data: ACLDataTests.frame(Array(repeating: UInt8(truncatingIfNeeded: i), count: 247))))
                }
            }
        }

        func deliveredOctets(_ index: Int) -> Int { peripherals[index].acl.reduce(0) { $0 + $1.packet.data.count } }

        /// The events that ran never overlap on the radio: each ends T_IFS or more before the next begins.
        func expectNoOverlap(sourceLocation: SourceLocation = #_sourceLocation) {
            let run = events.filter { !$0.skipped }.sorted { $0.anchor < $1.anchor }
            for (a, b) in zip(run, run.dropFirst()) {
                #expect(
                    a.end.advanced(by: RadioTiming.interFrameSpace) <= b.anchor, "\(a) overlaps \(b)",
                    sourceLocation: sourceLocation)
            }
        }

        /// Neither link is skipped at two anchors in a row.
        func longestSkipRun(_ handle: ConnectionHandle) -> Int {
            var longest = 0
            var current = 0
            for event in events where event.handle == handle {
                current = event.skipped ? current + 1 : 0
                longest = max(longest, current)
            }
            return longest
        }
    }

    /// Octets a single saturated link delivers in `duration` (the reference for the shares).
    static func singleLinkOctets(in duration: Duration) throws -> Int {
        let star = try Star(intervals: [24])
        star.saturate(packets: 240)
        star.central.run(for: duration)
        return star.deliveredOctets(0)
    }

    @Test("Two saturated links at 30 ms: anchors half an interval apart, events never overlap, equal shares")
    func twoSaturatedLinks() throws {
        let star = try Star(intervals: [24, 24])
        star.saturate(packets: 120)
        star.central.run(for: .seconds(1))
        star.expectNoOverlap()
        #expect(!star.events.contains { $0.skipped })
        // The second connection was placed in the middle of the first one's interval.
        let first = star.events.filter { $0.handle == star.handles[0].central }.map(\.anchor)
        let second = star.events.filter { $0.handle == star.handles[1].central }.map(\.anchor)
        let phase = try #require(first.first).duration(to: try #require(second.first { $0 > first[0] }))
        #expect(phase >= .microseconds(14_375) && phase <= .microseconds(15_625))
        // Both links are still saturated after a second, and they got the same share.
        let a = star.deliveredOctets(0)
        let b = star.deliveredOctets(1)
        #expect(a < 120 * 251 && b < 120 * 251)
        #expect(abs(a - b) * 100 <= (a + b) * 2)
        // Together they use nearly all of what one link alone gets.
        let alone = try Self.singleLinkOctets(in: .seconds(1))
        #expect((a + b) * 100 >= alone * 90)
    }

    @Test("Coinciding anchors take turns: one event runs, the other is skipped, alternately")
    func coincidingAnchorsAlternate() throws {
        let star = try Star(intervals: [24, 24])
        let controller = star.central.controller
        let first = try #require(controller.connections[star.handles[0].central]?.link)
        let second = try #require(controller.connections[star.handles[1].central]?.link)
        // Move the second link's anchors onto the first one's.
        if let token = second.eventToken { star.air.queue.cancel(token) }
        second.nextAnchor = first.nextAnchor
        controller.scheduleConnectionEvent(second)
        star.saturate(packets: 60)
        star.central.run(for: .seconds(1))
        star.expectNoOverlap()
        for handle in star.handles.map(\.central) {
            let mine = star.events.filter { $0.handle == handle }
            #expect(mine.count >= 32)
            // Run, skip, run, skip…: never two in a row either way.
            for (a, b) in zip(mine, mine.dropFirst()) { #expect(a.skipped != b.skipped) }
        }
        let a = star.deliveredOctets(0)
        let b = star.deliveredOctets(1)
        #expect(a > 0 && b > 0 && abs(a - b) * 100 <= (a + b) * 5)
        // The peripherals hear nothing at the skipped anchors, yet the links survive.
        #expect(star.central.disconnections.isEmpty)
    }

    @Test(
        "Different intervals (30 ms, 45 ms): anchors drift into each other; no overlap, no link skipped twice in a row")
    func differentIntervals() throws {
        let star = try Star(intervals: [24, 36])
        star.saturate(packets: 120)
        star.central.run(for: .seconds(2))
        star.expectNoOverlap()
        for (index, handle) in star.handles.map(\.central).enumerated() {
            #expect(star.longestSkipRun(handle) <= 1)
            #expect(star.deliveredOctets(index) > 0)
        }
        let a = star.deliveredOctets(0)
        let b = star.deliveredOctets(1)
        #expect(min(a, b) * 100 >= (a + b) * 25)
        #expect(star.central.disconnections.isEmpty)
    }
}
