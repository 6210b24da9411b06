import BLESimulation
import BLETestSupport
import BLEWire
import Logging
import Testing

@testable import BLEController

/// What the controller drops from its host is counted in `statistics` and logged with what and
/// why.
@Suite("Dropped host input: counted and logged")
struct DroppedHostInputTests {
    static func configuration(_ recorder: LogRecorder) -> VirtualController.Configuration {
        var configuration = VirtualController.Configuration(aclBufferSize: 27)
        configuration.logger = recorder.logger(level: .notice)
        return configuration
    }

    @Test("ACL data for no connection (Vol 4 Part E §7.7.5), SCO data, and a stream that cannot be framed")
    func unknownHandleSCOAndFraming() {
        let recorder = LogRecorder()
        let host = TestHost(air: VirtualAir(), configuration: Self.configuration(recorder))
        host.send(acl: ACLPacket(handle: 0x0123, packetBoundary: .firstNonFlushable, data: [1, 2, 3, 4][...]))
        // SCO data: handle 0x0001, one octet.
        host.send(bytes: [0x03, 0x01, 0x00, 0x01, 0xAA])
        host.run(for: .milliseconds(1))
        host.send(bytes: [0xFF])
        host.run(for: .milliseconds(1))
        var expected = VirtualController.Statistics()
        expected.aclForUnknownHandle = 1
        expected.unexpectedPackets = 1
        expected.transportFailures = 1
        #expect(host.controller.statistics == expected)
        let lines = recorder.lines(atLeast: .notice).map(\.message)
        #expect(lines.count == 3)
        #expect(lines.contains { $0.contains("handle 291") && $0.contains("no such connection") })
        #expect(lines.contains { $0.contains("sco packet") })
        #expect(lines.contains { $0.contains("stopped reading the host's byte stream") })
    }

    @Test("ACL data longer than the controller's buffers is lost with Data Buffer Overflow (§7.7.26)")
    func bufferOverflow() throws {
        let recorder = LogRecorder()
        let air = VirtualAir()
        let central = TestHost(air: air, configuration: Self.configuration(recorder))
        let peripheral = TestHost(air: air, at: AirPosition(x: 1))
        let handles = try #require(Scenario.connect(central, peripheral))
        central.send(
            acl: ACLPacket(
                handle: handles.central, packetBoundary: .firstNonFlushable,
                data: [UInt8](repeating: 0, count: 28)[...]))
        central.run(for: .milliseconds(1))
        #expect(central.controller.statistics.bufferOverflows == 1)
        let warnings = recorder.lines(atLeast: .warning).map(\.message)
        #expect(warnings.contains { $0.contains("over the controller's buffers") })
    }
}
