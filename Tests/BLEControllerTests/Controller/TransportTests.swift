import BLEWire
import Testing

@testable import BLEController

@Suite("H4 transport (Core 5.4 Vol 4 Part A §2)")
struct TransportTests {
    @Test("Bytes may arrive in chunks of any size")
    func arbitraryChunks() throws {
        let host = TestHost(air: VirtualAir())
        let bytes = H4Packet(command: HCI.ReadBDADDR().packet).encoded + H4Packet(command: HCI.LERand().packet).encoded
        for byte in bytes { host.send(bytes: [byte]) }
        host.run(for: .milliseconds(1))
        let opcodes = host.events.compactMap { e -> HCIOpcode? in
            if case .commandComplete(let c) = e.event { c.opcode } else { nil }
        }
        #expect(opcodes.suffix(2) == [HCI.ReadBDADDR.opcode, HCI.LERand.opcode])
    }

    @Test("A garbage stream closes that controller's input only; the radio and other controllers run on")
    func garbage() throws {
        let air = VirtualAir()
        let broken = TestHost(air: air)
        let healthy = TestHost(air: air, at: AirPosition(x: 1))
        Scenario.advertise(broken, type: .nonConnectableUndirected)
        Scenario.scan(healthy)
        let before = broken.controller.parser.offset
        broken.send(bytes: H4Packet(command: HCI.ReadBDADDR().packet).encoded + [0xFF, 0x00, 0x01])
        broken.run(for: .milliseconds(1))
        #expect(broken.failures == [.framing(.unknownPacketType(octet: 0xFF, offset: before + 4))])
        let completed = broken.events.filter {
            if case .commandComplete(let c) = $0.event { c.opcode == HCI.ReadBDADDR.opcode } else { false }
        }
        #expect(completed.count == 1)
        // Nothing the host sends is read any more.
        let mark = broken.events.count
        broken.send(HCI.LESetAdvertisingEnable(advertisingEnable: false))
        broken.run(for: .milliseconds(10))
        #expect(broken.events.count == mark)
        #expect(broken.failures.count == 1)
        // The other controller answers, and still hears the broken one's advertising.
        healthy.expectSuccess(HCI.ReadBDADDR())
        healthy.run(for: .seconds(1))
        #expect(healthy.advertisingReports.contains { $0.address.address == broken.controller.publicAddress })
    }

    @Test("A new stream after a failure: restartTransport reads the next host")
    func restart() {
        let host = TestHost(air: VirtualAir())
        host.send(bytes: [0x07])
        host.run(for: .milliseconds(1))
        #expect(host.failures.count == 1)
        host.controller.restartTransport()
        #expect(host.controller.transportFailure == nil)
        #expect(host.complete(HCI.ReadBDADDR()).status == .success)
    }

    @Test("An HCI event from the host is a transport failure")
    func eventFromHost() {
        let host = TestHost(air: VirtualAir())
        host.send(bytes: [0x04, 0x0E, 0x00])
        host.run(for: .milliseconds(1))
        #expect(host.failures == [.unexpectedPacketType(.event)])
    }

    @Test("Command latency: completion comes the configured time after the command")
    func commandLatency() {
        let host = TestHost(air: VirtualAir(), configuration: .init(commandLatency: .microseconds(250)))
        let sent = host.air.now
        host.complete(HCI.ReadBDADDR())
        #expect(sent.duration(to: host.events.last!.time) == .microseconds(250))
    }
}
