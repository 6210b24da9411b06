import BLEController
import BLESimulation
import BLETransport
import BLEWire
import Testing

@testable import BLEHost

@Suite("The transport ends under a running host (the controller is gone)")
struct HostTransportLossTests {
    enum Ending: CaseIterable, CustomStringConvertible {
        /// End of stream (a socket closed: EOF).
        case endOfStream
        /// A transport error (a socket error, garbage on the stream).
        case failure

        var description: String { self == .endOfStream ? "end of stream" : "failure" }

        var error: HCITransportError { self == .endOfStream ? .closed : .io("connection reset") }

        func apply(_ transport: PipeTransport) async {
            switch self {
            case .endOfStream: await transport.close()
            case .failure: transport.fail(error)
            }
        }
    }

    @Test(
        "Pending commands and ATT transactions fail with the transport's error; transportLost, then each link reported down; later calls fail the same way",
        arguments: Ending.allCases)
    func everythingPendingFails(_ ending: Ending) async throws {
        var script = ScriptedController.Script()
        script.silent = [HCI.ReadRSSI.opcode]
        try await HostHarness.run(script: script) { harness in
            harness.controller.connect()
            try await harness.settle()
            let executor = harness.simulation.executor
            let read = Task(executorPreference: executor) {
                try await harness.host.attRequest(.readRequest(.init(handle: 3)), on: 0x0040)
            }
            let command = Task(executorPreference: executor) {
                try await harness.host.send(HCI.ReadRSSI(handle: 0x0040))
            }
            try await harness.settle()
            await ending.apply(harness.controller.transport)
            try await harness.settle()
            await #expect(throws: ATTBearerError.transportLost(ending.error)) { try await read.value }
            await #expect(throws: HostError.transport(ending.error)) { try await command.value }
            #expect(await harness.host.lostTransport == ending.error)
            let events = harness.events.all
            let disconnected = events.firstIndex {
                if case .disconnected(0x0040, .hardwareFailure) = $0 { true } else { false }
            }
            let lost = events.firstIndex {
                if case .transportLost(let error) = $0 { error == ending.error } else { false }
            }
            #expect(disconnected != nil && lost != nil && lost! < disconnected!)
            await #expect(throws: HostError.transport(ending.error)) {
                try await harness.host.send(HCI.ReadRSSI(handle: 0x0040))
            }
            #expect(await harness.host.liveConnections.isEmpty)
        }
    }

    @Test("A stop asked for is not a transport loss: no transportLost event, commands fail as stopped")
    func stopIsNotLoss() async throws {
        try await HostHarness.run { harness in
            await harness.host.stop()
            #expect(await harness.host.lostTransport == nil)
            #expect(!harness.events.all.contains { if case .transportLost = $0 { true } else { false } })
            await #expect(throws: HostError.stopped) { try await harness.host.send(HCI.ReadRSSI(handle: 0x0040)) }
        }
    }
}
