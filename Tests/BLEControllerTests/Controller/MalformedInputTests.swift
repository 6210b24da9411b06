import BLESimulation
import BLEWire
import Testing

@testable import BLEController

@Suite("Untrusted host input never traps the controller")
struct MalformedInputTests {
    @Test("Random parameters for every command of the table: exactly one completion each")
    func randomCommands() {
        var random = SeededRandomGenerator(seed: 0xF022)
        let air = VirtualAir()
        let host = TestHost(air: air)
        let peer = TestHost(air: air, at: AirPosition(x: 1))
        _ = Scenario.connect(host, peer)
        let opcodes =
            HCICommandTable.entries.map(\.opcode) + [HCIOpcode(rawValue: 0xFC01), HCIOpcode(rawValue: 0x0000)]
        for round in 0..<20 {
            for opcode in opcodes {
                let length = round == 0 ? 0 : Int.random(in: 0...40, using: &random)
                let parameters = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                let mark = host.events.count
                host.send(
                    bytes: H4Packet(command: HCICommandPacket(opcode: opcode, parameters: parameters[...])).encoded)
                host.run(for: .microseconds(1))
                let completions = host.events[mark...].filter { entry in
                    switch entry.event {
                    case .commandComplete(let c): c.opcode == opcode
                    case .commandStatus(let s): s.opcode == opcode
                    default: false
                    }
                }
                #expect(completions.count == 1, "\(opcode)")
            }
            host.run(for: .milliseconds(50))
        }
        #expect(host.failures.isEmpty)
    }

    @Test("Random ACL packets never trap, and random bytes end the stream with a typed failure")
    func randomData() {
        var random = SeededRandomGenerator(seed: 0xACE)
        let air = VirtualAir()
        let host = TestHost(air: air)
        let peer = TestHost(air: air, at: AirPosition(x: 1))
        _ = Scenario.connect(host, peer)
        for _ in 0..<200 {
            let length = Int.random(in: 0...300, using: &random)
            let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let handle = ConnectionHandle(UInt16.random(in: 0...3, using: &random))
            let boundary = ACLPacketBoundary(rawValue: UInt8.random(in: 0...3, using: &random)) ?? .continuing
            host.send(acl: ACLPacket(handle: handle, packetBoundary: boundary, data: data))
            host.run(for: .milliseconds(Int64.random(in: 0...40, using: &random)))
        }
        let garbage = (0..<500).map { _ in UInt8.random(in: 0...255, using: &random) }
        host.send(bytes: garbage)
        host.run(for: .seconds(1))
        #expect(host.failures.count <= 1)
    }
}
