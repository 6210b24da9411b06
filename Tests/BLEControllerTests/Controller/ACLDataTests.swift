import BLESimulation
import BLEWire
import Testing

@testable import BLEController

@Suite("ACL data and flow control (Core 5.4 Vol 4 Part E §4.1, §7.7.19, §7.7.26)")
struct ACLDataTests {
    static func completed(_ host: TestHost) -> [(time: VirtualInstant, count: Int)] {
        host.events.compactMap { entry in
            if case .numberOfCompletedPackets(let n) = entry.event {
                (entry.time, n.totalCompletedPackets)
            } else {
                nil
            }
        }
    }

    /// An L2CAP basic frame on the ATT channel carrying `payload`.
    static func frame(_ payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), 0x04, 0x00] + payload
    }

    @Test("ACL data reaches the peer's host at a connection event; NOCP only after the peer has it")
    func deliveryAndCompletion() throws {
        let (air, central, peripheral, handles) = try LinkProcedureTests.pair()
        central.run(for: .milliseconds(100))
        let data = Self.frame([0x52, 0x03, 0x00, 0x01, 0x02])
        let sent = air.now
        central.send(acl: ACLPacket(handle: handles.central, packetBoundary: .firstNonFlushable, data: data))
        #expect(peripheral.run(until: { !peripheral.acl.isEmpty }, limit: .seconds(1)))
        let packet = try #require(peripheral.acl.first)
        let arrival = try #require(peripheral.acl.first?.time)
        #expect(Array(packet.packet.data) == data)
        #expect(packet.packet.handle == handles.peripheral)
        #expect(packet.packet.packetBoundary == .firstFlushable)
        // Delivered at the next connection event (30 ms interval), not at once.
        #expect(sent < arrival && sent.duration(to: arrival) <= .milliseconds(31))
        central.run(for: .milliseconds(100))
        let nocp = Self.completed(central)
        #expect(nocp.count == 1 && nocp.first?.count == 1)
        #expect(try #require(nocp.first?.time) >= arrival)
        let entry = central.events.compactMap { e -> HCIEvent.NumberOfCompletedPackets? in
            if case .numberOfCompletedPackets(let n) = e.event { n } else { nil }
        }.first
        #expect(entry?.entries.first?.connectionHandle == handles.central)
    }

    @Test("A packet longer than the LL payload goes in pieces; the host gets them as start + continuations")
    func fragmentation() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        let data = Self.frame((0..<96).map { UInt8($0) })
        central.send(acl: ACLPacket(handle: handles.central, packetBoundary: .firstNonFlushable, data: data))
        peripheral.run(for: .milliseconds(300))
        // 100 octets in 27-octet LL payloads: 27 + 27 + 27 + 19.
        #expect(peripheral.acl.map(\.packet.data.count) == [27, 27, 27, 19])
        #expect(
            peripheral.acl.map(\.packet.packetBoundary) == [.firstFlushable, .continuing, .continuing, .continuing])
        #expect(peripheral.acl.flatMap(\.packet.data) == data)
        // One host packet: one completion, after the last piece arrived.
        let nocp = Self.completed(central)
        #expect(nocp.map(\.count) == [1])
        let lastPiece = try #require(peripheral.acl.last?.time)
        #expect(try #require(nocp.first?.time) >= lastPiece)
    }

    @Test("ACL toward the host is cut to Host_ACL_Data_Packet_Length")
    func hostBufferSize() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        peripheral.expectSuccess(HCI.HostBufferSize(hostACLDataPacketLength: 10, hostTotalNumACLDataPackets: 4))
        let data = Self.frame(Array(repeating: 0x77, count: 21))
        central.send(acl: ACLPacket(handle: handles.central, packetBoundary: .firstNonFlushable, data: data))
        peripheral.run(for: .milliseconds(200))
        #expect(peripheral.acl.map(\.packet.data.count) == [10, 10, 5])
        #expect(peripheral.acl.flatMap(\.packet.data) == data)
    }

    @Test("Both directions at once, several packets in order")
    func bothDirections() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        for i in 0..<4 {
            central.send(
                acl: ACLPacket(
                    handle: handles.central, packetBoundary: .firstNonFlushable, data: Self.frame([UInt8(i)])))
            peripheral.send(
                acl: ACLPacket(
                    handle: handles.peripheral, packetBoundary: .firstNonFlushable, data: Self.frame([UInt8(10 + i)])))
        }
        central.run(for: .milliseconds(400))
        #expect(peripheral.acl.map { $0.packet.data.last } == [0, 1, 2, 3])
        #expect(central.acl.map { $0.packet.data.last } == [10, 11, 12, 13])
        #expect(Self.completed(central).map(\.count).reduce(0, +) == 4)
        #expect(Self.completed(peripheral).map(\.count).reduce(0, +) == 4)
    }

    @Test("A host that overruns the buffers loses the extra packets and hears Data Buffer Overflow")
    func overflow() throws {
        let air = VirtualAir()
        let central = TestHost(air: air, configuration: .init(aclBufferSize: 27, aclBufferCount: 2))
        let peripheral = TestHost(air: air, at: AirPosition(x: 1))
        let handles = try #require(Scenario.connect(central, peripheral))
        for i in 0..<3 {
            central.send(
                acl: ACLPacket(
                    handle: handles.central, packetBoundary: .firstNonFlushable, data: Self.frame([UInt8(i)])))
        }
        central.send(
            acl: ACLPacket(
                handle: handles.central, packetBoundary: .firstNonFlushable, data: Array(repeating: 1, count: 28)))
        central.run(for: .milliseconds(300))
        let overflows = central.events.filter {
            if case .dataBufferOverflow(let o) = $0.event { o.linkType == .acl } else { false }
        }
        #expect(overflows.count == 2)
        #expect(peripheral.acl.map { $0.packet.data.last } == [0, 1])
        #expect(Self.completed(central).map(\.count).reduce(0, +) == 2)
        // The buffers are free again: the next packet goes through.
        central.send(acl: ACLPacket(handle: handles.central, packetBoundary: .firstNonFlushable, data: Self.frame([9])))
        central.run(for: .milliseconds(100))
        #expect(peripheral.acl.last?.packet.data.last == 9)
    }

    @Test("Data for an unknown handle is discarded")
    func unknownHandle() throws {
        let (_, central, peripheral, _) = try LinkProcedureTests.pair()
        central.send(acl: ACLPacket(handle: 0x0123, packetBoundary: .firstNonFlushable, data: Self.frame([1])))
        central.run(for: .milliseconds(200))
        #expect(peripheral.acl.isEmpty)
        #expect(Self.completed(central).isEmpty)
    }

    @Test("Lost packets are sent again and delivered once (SN/NESN, Vol 6 Part B §4.5.9)")
    func retransmission() throws {
        let (air, central, peripheral, handles) = try LinkProcedureTests.pair()
        air.setPacketErrorRate(0.3, between: central.controller.radio, and: peripheral.controller.radio)
        // Eight packets: as many as the controller has buffers.
        for i in 0..<8 {
            central.send(
                acl: ACLPacket(
                    handle: handles.central, packetBoundary: .firstNonFlushable, data: Self.frame([UInt8(i)])))
        }
        central.run(for: .seconds(3))
        #expect(peripheral.acl.map { $0.packet.data.last } == (0..<8).map { UInt8($0) })
        #expect(Self.completed(central).map(\.count).reduce(0, +) == 8)
        #expect(central.disconnections.isEmpty)
    }
}
