import BLETestSupport
import BLEWire
import Logging
import Testing

@testable import BLEHost

/// Nothing the host drops goes unnoticed: each drop is counted in `Host.statistics` and logged
/// with what and why.
@Suite("Dropped and undecodable input: counted and logged")
struct HostDroppedInputTests {
    static func run(
        level: Logger.Level = .notice, _ body: @escaping @Sendable (HostHarness, LogRecorder) async throws -> Void
    ) async throws {
        let recorder = LogRecorder()
        var configuration = HostConfiguration()
        configuration.logger = recorder.logger(level: level)
        try await HostHarness.run(configuration: configuration) { harness in try await body(harness, recorder) }
    }

    @Test("An HCI event that does not decode (Command Complete shorter than its header, Vol 4 Part E §7.7.14)")
    func undecodableEvent() async throws {
        try await Self.run { harness, log in
            harness.controller.transport.deliver(H4Packet(type: .event, payload: [0x0E, 0x01, 0x01]))
            try await harness.settle()
            let statistics = await harness.host.statistics
            #expect(statistics.undecodableEvents == 1)
            #expect(
                statistics
                    == {
                        var s = HostStatistics(); s.undecodableEvents = 1; return s
                    }())
            let warnings = log.lines(atLeast: .warning)
            #expect(warnings.count == 1)
            #expect(warnings.first?.message.contains("HCI event that does not decode") == true)
            #expect(warnings.first?.message.contains("[0e0101]") == true)
        }
    }

    @Test("An ACL packet shorter than its header (Vol 4 Part E §5.4.2)")
    func undecodableACL() async throws {
        try await Self.run { harness, log in
            harness.controller.transport.deliver(H4Packet(type: .acl, payload: [0x40]))
            try await harness.settle()
            #expect(await harness.host.statistics.undecodableACL == 1)
            let warnings = log.lines(atLeast: .warning).map(\.message)
            #expect(warnings.contains { $0.contains("ACL packet that does not decode") })
        }
    }

    @Test("ACL data for a handle that never comes up is dropped once more than the early-ACL bound wait")
    func aclForUnknownHandle() async throws {
        try await Self.run { harness, log in
            let frame = L2CAPBasicFrame(channelID: .att, payload: [0x0A, 0x03, 0x00][...]).encoded
            for _ in 0..<(Host.earlyACLLimit + 2) {
                harness.controller.inject(ACLPacket(handle: 0x0077, packetBoundary: .firstFlushable, data: frame[...]))
            }
            try await harness.settle()
            #expect(await harness.host.statistics.aclForUnknownHandle == 2)
            let warnings = log.lines(atLeast: .warning).map(\.message)
            #expect(warnings.count == 2)
            #expect(warnings.allSatisfy { $0.contains("handle 0x0077") && $0.contains("no such connection") })
        }
    }

    @Test("An LE signalling packet that does not decode (Vol 3 Part A §4)")
    func badSignal() async throws {
        try await Self.run { harness, log in
            harness.controller.connect()
            let frame = L2CAPBasicFrame(channelID: .leSignaling, payload: [0x12][...]).encoded
            harness.controller.inject(ACLPacket(handle: 0x0040, packetBoundary: .firstFlushable, data: frame[...]))
            try await harness.settle()
            #expect(await harness.host.statistics.badL2CAPSignals == 1)
            #expect(log.lines(atLeast: .warning).map(\.message).contains { $0.contains("LE signalling packet") })
        }
    }

    @Test("A continuation fragment without a start, and a frame on a channel the host does not serve")
    func droppedFragmentsAndFrames() async throws {
        try await Self.run { harness, log in
            harness.controller.connect()
            harness.controller.inject(ACLPacket(handle: 0x0040, packetBoundary: .continuing, data: [1, 2, 3][...]))
            let frame = L2CAPBasicFrame(channelID: L2CAPChannelID(0x003F), payload: [1][...]).encoded
            harness.controller.inject(ACLPacket(handle: 0x0040, packetBoundary: .firstFlushable, data: frame[...]))
            try await harness.settle()
            let statistics = await harness.host.statistics
            #expect(statistics.droppedL2CAPFragments == 1)
            #expect(statistics.framesOnUnservedChannels == 1)
            let notices = log.lines(atLeast: .notice).map(\.message)
            #expect(notices.contains { $0.contains("without a start fragment") })
            #expect(notices.contains { $0.contains("no such channel served") })
        }
    }

    @Test("A Command Complete for no outstanding command; opcode 0x0000 only returns credits (§7.7.14)")
    func unexpectedCommandComplete() async throws {
        try await Self.run { harness, log in
            harness.controller.inject(
                .commandComplete(.init(numHCICommandPackets: 1, opcode: HCI.Reset.opcode, returnParameters: [0x00])))
            harness.controller.inject(
                .commandComplete(.init(numHCICommandPackets: 1, opcode: HCIOpcode(rawValue: 0), returnParameters: [])))
            try await harness.settle()
            #expect(await harness.host.statistics.unexpectedCommandCompletes == 1)
            #expect(log.lines(atLeast: .notice).map(\.message).contains { $0.contains("no such command outstanding") })
        }
    }

    @Test("An event about a connection the host does not know")
    func eventForUnknownHandle() async throws {
        try await Self.run { harness, log in
            harness.controller.inject(
                .disconnectionComplete(.init(connectionHandle: 0x0123, reason: .connectionTimeout)))
            try await harness.settle()
            #expect(await harness.host.statistics.eventsForUnknownHandle == 1)
            #expect(log.lines(atLeast: .notice).map(\.message).contains { $0.contains("handle 0x0123") })
        }
    }

    @Test(
        "An LE Connection Complete for a live handle (Vol 4 Part E §7.7.65.1): dropped, counted and logged; the link's pending request is not lost"
    )
    func connectionCompleteForLiveHandle() async throws {
        try await Self.run { harness, log in
            harness.controller.connect()
            try await harness.settle()
            let read = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.attRequest(.readRequest(.init(handle: 3)), on: 0x0040)
            }
            try await harness.settle()
            harness.controller.connect()
            try await harness.settle()
            #expect(await harness.host.statistics.connectionCompletesForLiveHandles == 1)
            #expect(await harness.host.liveConnections.count == 1)
            #expect(log.lines(atLeast: .warning).map(\.message).contains { $0.contains("already up") })
            // The request still waits on the live bearer: the link going down ends it.
            harness.controller.inject(
                .disconnectionComplete(.init(connectionHandle: 0x0040, reason: .connectionTimeout)))
            await #expect(throws: ATTBearerError.disconnected(reason: .connectionTimeout)) { try await read.value }
        }
    }

    @Test("A silent host counts all the same")
    func silentHostCounts() async throws {
        try await HostHarness.run { harness in
            harness.controller.transport.deliver(H4Packet(type: .event, payload: [0x0E, 0x01, 0x01]))
            try await harness.settle()
            #expect(await harness.host.statistics.undecodableEvents == 1)
        }
    }

    @Test("At .trace, every packet in and out is logged through the one rendering")
    func packetTrace() async throws {
        try await Self.run(level: .trace) { harness, log in
            let traced = log.lines.filter { $0.level == .trace }.map(\.message)
            // Start sends HCI_Reset first and gets its Command Complete.
            let reset = try HCIPacket(H4Packet(command: HCI.Reset().packet))
            #expect(traced.first == "tx " + reset.description)
            #expect(traced.contains { $0.hasPrefix("rx event.commandComplete") })
            #expect(traced.filter { $0.hasPrefix("tx command") }.count == harness.controller.commands.count)
        }
    }

    @Test(
        "Data Buffer Overflow (Vol 4 Part E §7.7.26): the controller lost an ACL packet sent within credits — counted and logged"
    )
    func dataBufferOverflow() async throws {
        try await Self.run { harness, log in
            harness.controller.inject(.dataBufferOverflow(.init(linkType: .acl)))
            try await harness.settle()
            #expect(await harness.host.statistics.controllerBufferOverflows == 1)
            #expect(log.lines(atLeast: .warning).map(\.message).contains { $0.contains("Data Buffer Overflow") })
        }
    }

    @Test(
        "Commands, notifications and indications past the ATT_MTU or malformed (Vol 3 Part F §3.2.8): counted and logged"
    )
    func droppedATT() async throws {
        try await Self.run { harness, log in
            harness.controller.connect()
            try await harness.settle()
            for pdu: [UInt8] in [
                [0x52] + [UInt8](repeating: 1, count: 30), [0x1B, 0x01], [0x1D] + [UInt8](repeating: 2, count: 25),
            ] {
                harness.controller.injectATT(bytes: pdu)
            }
            try await harness.settle()
            #expect(await harness.host.statistics.droppedATTPDUs == 3)
            #expect(harness.controller.sentATT().isEmpty)
            #expect(log.lines(atLeast: .notice).map(\.message).filter { $0.contains("dropped an ATT PDU") }.count == 3)
        }
    }
}
