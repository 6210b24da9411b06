import BLEWire
import Testing

@testable import BLEHost

@Suite("Link procedures whose end never comes are bounded (Core 5.4 Vol 6 Part B §5.2; Vol 3 Part A §6.2.1)")
struct LinkProcedureTimeoutTests {
    @Test("LE Set PHY accepted but no LE PHY Update Complete: the wait ends after 40 s with LL Response Timeout")
    func phyUpdateNeverCompletes() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let start = harness.simulation.now
            let status = try await harness.host.setPHY(0x0040, tx: .le2M, rx: .le2M)
            #expect(status == .llResponseTimeout)
            #expect(start.duration(to: harness.simulation.now) >= .seconds(40))
            #expect(await harness.host.statistics.linkProcedureTimeouts == 1)
            // The slot is free again: a second request is not refused as overlapping.
            let again = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.setPHY(0x0040, tx: .le1M, rx: .le1M)
            }
            try await harness.settle()
            harness.controller.inject(
                .le(.phyUpdateComplete(.init(connectionHandle: 0x0040, txPHY: PHY.le1M.hci, rxPHY: PHY.le1M.hci))))
            #expect(try await again.value == .success)
        }
    }

    @Test("A Connection Parameter Update Request nobody answers: rejected with LL Response Timeout after 30 s")
    func parameterRequestUnanswered() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect(role: .peripheral)
            try await harness.settle()
            let outcome = try await harness.host.requestConnectionParameters(
                0x0040,
                HCI.ConnectionParameters(connectionIntervalMin: 12, connectionIntervalMax: 24, supervisionTimeout: 200))
            #expect(outcome == .rejected(.llResponseTimeout))
            #expect(await harness.host.statistics.linkProcedureTimeouts == 1)
        }
    }

    @Test("A Connection Parameter Update Response for nothing asked is dropped and counted")
    func strayResponse() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect(role: .peripheral)
            try await harness.settle()
            let response = L2CAPSignal(
                identifier: 0x91, command: .connectionParameterUpdateResponse(.init(result: .accepted)))
            var writer = ByteWriter()
            L2CAPBasicFrame(channelID: .leSignaling, payload: response.encoded[...]).encode(into: &writer)
            harness.controller.inject(
                ACLPacket(handle: 0x0040, packetBoundary: .firstFlushable, data: writer.bytes))
            try await harness.settle()
            #expect(await harness.host.statistics.badL2CAPSignals == 1)
        }
    }
}
