import BLETransport
import BLEWire
import Testing

@testable import BLEHost

@Suite("Host lifecycle")
struct HostLifecycleTests {
    @Test("A host on its own thread still answers after stop(): a second stop() and state queries return")
    func callsAfterStop() async throws {
        let controller = ScriptedController()
        let host = Host(transport: controller.transport)
        try await host.start()
        await host.stop()
        await host.stop()
        #expect(await host.liveConnections.isEmpty)
        await #expect(throws: HostError.stopped) { try await host.send(HCI.Reset()) }
    }
}
