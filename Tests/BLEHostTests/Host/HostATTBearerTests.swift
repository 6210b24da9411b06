import BLEController
import BLESimulation
import BLEWire
import Synchronization
import Testing

@testable import BLEHost

/// A GATT server stand-in: answers reads after a virtual delay, so tests can overlap requests.
struct SlowServer: ATTServerHandler {
    let clock: VirtualClock
    func handle(_ pdu: ATTPDU, connection: ConnectionHandle, mtu: Int) async -> ATTPDU? {
        try? await clock.sleep(for: .milliseconds(50))
        guard case .readRequest(let read) = pdu else { return nil }
        return .readResponse(.init(value: [UInt8(truncatingIfNeeded: read.handle)]))
    }
}

@Suite("ATT bearer (Core 5.4 Vol 3 Part F §3.3)")
struct HostATTBearerTests {
    @Test("§3.4.4.3 a Read Request is answered by its Read Response")
    func requestResponse() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let read = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.attRequest(.readRequest(.init(handle: 0x0003)), on: 0x0040)
            }
            try await harness.settle()
            #expect(harness.controller.sentATT() == [.readRequest(.init(handle: 0x0003))])
            harness.controller.injectATT(.readResponse(.init(value: [0x42])))
            #expect(try await read.value == .readResponse(.init(value: [0x42])))
        }
    }

    @Test("§3.3.2 one request outstanding: a second waits until the first is answered")
    func oneOutstandingRequest() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let executor = harness.simulation.executor
            let first = Task(executorPreference: executor) {
                try await harness.host.attRequest(.readRequest(.init(handle: 1)), on: 0x0040)
            }
            try await harness.settle()
            let second = Task(executorPreference: executor) {
                try await harness.host.attRequest(.readRequest(.init(handle: 2)), on: 0x0040)
            }
            try await harness.settle()
            #expect(harness.controller.sentATT().count == 1)
            harness.controller.injectATT(.readResponse(.init(value: [1])))
            _ = try await first.value
            try await harness.settle()
            #expect(harness.controller.sentATT().count == 2)
            harness.controller.injectATT(.readResponse(.init(value: [2])))
            #expect(try await second.value == .readResponse(.init(value: [2])))
        }
    }

    @Test("§3.3.3 a transaction not answered in 30 s fails and the link is closed")
    func transactionTimeout() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let start = harness.simulation.now
            await #expect(throws: ATTBearerError.transactionTimeout) {
                try await harness.host.attRequest(.readRequest(.init(handle: 3)), on: 0x0040)
            }
            #expect(start.duration(to: harness.simulation.now) >= .seconds(30))
            try await harness.settle()
            #expect(harness.controller.opcodes.last == HCI.Disconnect.opcode)
            #expect(harness.events.disconnections.count == 1)
        }
    }

    @Test("§3.3.3 each transaction has its own 30 s: an answered one never times out, a later one fails 30 s after it began")
    func transactionTimeoutPerTransaction() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let answered = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.attRequest(.readRequest(.init(handle: 3)), on: 0x0040)
            }
            try await harness.settle()
            harness.controller.injectATT(.readResponse(.init(value: [1])))
            #expect(try await answered.value == .readResponse(.init(value: [1])))
            // 20 s later, past nothing: the answered request left no deadline behind.
            try await harness.simulation.clock.sleep(for: .seconds(20))
            #expect(harness.events.disconnections.isEmpty)
            let start = harness.simulation.now
            await #expect(throws: ATTBearerError.transactionTimeout) {
                try await harness.host.attRequest(.readRequest(.init(handle: 4)), on: 0x0040)
            }
            let waited = start.duration(to: harness.simulation.now)
            #expect(waited >= .seconds(30) && waited < .seconds(31))
            try await harness.settle()
            #expect(harness.controller.opcodes.last == HCI.Disconnect.opcode)
        }
    }

    @Test("An unsolicited response closes the link (the design's protocol-violation policy)")
    func unsolicitedResponse() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            harness.controller.injectATT(.readResponse(.init(value: [9])))
            try await harness.settle()
            #expect(harness.controller.opcodes.last == HCI.Disconnect.opcode)
        }
    }

    @Test("A response that answers another request closes the link and fails the request")
    func mismatchedResponse() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let read = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.attRequest(.readRequest(.init(handle: 3)), on: 0x0040)
            }
            try await harness.settle()
            harness.controller.injectATT(.writeResponse(.init()))
            await #expect(throws: ATTBearerError.self) { try await read.value }
            try await harness.settle()
            #expect(harness.controller.opcodes.last == HCI.Disconnect.opcode)
        }
    }

    @Test("A peer that pipelines requests (a second before the first is answered) is disconnected")
    func pipelinedRequests() async throws {
        try await HostHarness.run { harness in
            await harness.host.setATTServer(SlowServer(clock: harness.simulation.clock))
            harness.controller.connect()
            try await harness.settle()
            harness.controller.injectATT(.readRequest(.init(handle: 1)))
            harness.controller.injectATT(.readRequest(.init(handle: 2)))
            try await harness.settle()
            #expect(harness.controller.opcodes.last == HCI.Disconnect.opcode)
        }
    }

    @Test("Requests one at a time are all served (the pipelining rule does not misfire)")
    func sequentialRequestsServed() async throws {
        try await HostHarness.run { harness in
            await harness.host.setATTServer(SlowServer(clock: harness.simulation.clock))
            harness.controller.connect()
            try await harness.settle()
            for handle: UInt16 in 1...3 {
                harness.controller.injectATT(.readRequest(.init(handle: handle)))
                try await harness.simulation.clock.sleep(for: .milliseconds(100))
            }
            #expect(
                harness.controller.sentATT().map { $0 } == [1, 2, 3].map { ATTPDU.readResponse(.init(value: [$0])) })
            #expect(!harness.controller.opcodes.contains(HCI.Disconnect.opcode))
        }
    }

    @Test("§3.4.7.2 an indication is confirmed and reported")
    func indicationConfirmed() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            harness.controller.injectATT(.handleValueIndication(.init(handle: 0x21, value: [1, 2])))
            try await harness.settle()
            #expect(harness.controller.sentATT() == [.handleValueConfirmation(.init())])
            let indications = harness.events.all.filter {
                if case .indication(0x0040, 0x21, [1, 2]) = $0 { true } else { false }
            }
            #expect(indications.count == 1)
        }
    }

    @Test("A confirmation for no indication closes the link")
    func strayConfirmation() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            harness.controller.injectATT(.handleValueConfirmation(.init()))
            try await harness.settle()
            #expect(harness.controller.opcodes.last == HCI.Disconnect.opcode)
        }
    }

    @Test("Indications wait for their confirmation, one at a time (§3.3.2)")
    func oneIndicationAtATime() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let executor = harness.simulation.executor
            let first = Task(executorPreference: executor) {
                try await harness.host.indicate([1], attributeHandle: 0x30, on: 0x0040)
            }
            let second = Task(executorPreference: executor) {
                try await harness.host.indicate([2], attributeHandle: 0x30, on: 0x0040)
            }
            try await harness.settle()
            #expect(harness.controller.sentATT().count == 1)
            harness.controller.injectATT(.handleValueConfirmation(.init()))
            try await first.value
            try await harness.settle()
            #expect(harness.controller.sentATT().count == 2)
            harness.controller.injectATT(.handleValueConfirmation(.init()))
            try await second.value
        }
    }

    @Test("Without a server, requests get Request Not Supported (§3.4.1.1); Exchange MTU is always served")
    func noServer() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            harness.controller.injectATT(.readRequest(.init(handle: 5)))
            try await harness.settle()
            #expect(
                harness.controller.sentATT() == [
                    .errorResponse(.init(requestOpcode: .readRequest, handle: 0, errorCode: .requestNotSupported))
                ])
        }
    }

    @Test("A malformed request gets Invalid PDU (§3.4.1.1)")
    func malformedRequest() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            harness.controller.injectATT(bytes: [0x0A, 0x03])  // Read Request cut short
            try await harness.settle()
            #expect(
                harness.controller.sentATT() == [
                    .errorResponse(.init(requestOpcode: .readRequest, handle: 0, errorCode: .invalidPDU))
                ])
        }
    }

    @Test("A disconnection fails the outstanding request with the reason")
    func disconnectionFailsRequest() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let read = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.attRequest(.readRequest(.init(handle: 3)), on: 0x0040)
            }
            try await harness.settle()
            harness.controller.inject(
                .disconnectionComplete(.init(connectionHandle: 0x0040, reason: .connectionTimeout)))
            await #expect(throws: ATTBearerError.disconnected(reason: .connectionTimeout)) { try await read.value }
        }
    }

    @Test("§3.4.2 MTU exchange as client: MTU = max(min(client, server), 23)")
    func mtuExchange() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            let exchange = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.exchangeMTU(on: 0x0040)
            }
            try await harness.settle()
            #expect(harness.controller.sentATT() == [.exchangeMTURequest(.init(clientRxMTU: 247))])
            harness.controller.injectATT(.exchangeMTUResponse(.init(serverRxMTU: 185)))
            #expect(try await exchange.value == 185)
            #expect(await harness.host.attMTU(on: 0x0040) == 185)
        }
    }

    @Test("§3.4.2 one ATT_MTU per bearer: after our exchange as client, our server answers by it")
    func serverReadsBearerMTU() async throws {
        var script = ScriptedController.Script()
        script.aclBufferSize = 251  // the response in one ACL packet, as `sentATT` reads them
        try await HostHarness.run(script: script) { harness in
            await harness.host.setATTServer(GATTServerHandler(server: try testServer()))
            harness.controller.connect()
            try await harness.settle()
            let exchange = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.exchangeMTU(on: 0x0040)
            }
            try await harness.settle()
            harness.controller.injectATT(.exchangeMTUResponse(.init(serverRxMTU: 185)))
            #expect(try await exchange.value == 185)
            // The 100-octet value: cut to 22 octets at the default ATT_MTU, whole at 185.
            harness.controller.injectATT(.readRequest(.init(handle: 0x001F)))
            try await harness.settle()
            #expect(harness.controller.sentATT().last == .readResponse(.init(value: longValue[...])))
        }
    }

    @Test("A PDU longer than the ATT_MTU is refused at once (API misuse)")
    func tooLong() async throws {
        try await HostHarness.run { harness in
            harness.controller.connect()
            try await harness.settle()
            await #expect(throws: ATTBearerError.pduTooLong(length: 33, mtu: 23)) {
                try await harness.host.attCommand(
                    .writeCommand(.init(handle: 3, value: ArraySlice(repeating: 0, count: 30))), on: 0x0040)
            }
        }
    }
}
