import BLEController
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

/// Controllers that differ from the specification's happy path, as real and foreign ones do
/// (Bumble's virtual controller among them), scripted.
@Suite("Host with quirky controllers: early ACL, own random static address")
struct ControllerQuirkTests {
    @Test("ACL data that overtakes its link's LE Connection Complete is held and handled once the link is up")
    func aclBeforeConnectionComplete() async throws {
        try await HostHarness.run { harness in
            // The peer's Exchange MTU Request arrives before the event that creates handle 0x40.
            harness.controller.injectATT(.exchangeMTURequest(.init(clientRxMTU: 100)))
            try await harness.settle()
            #expect(harness.controller.sentATT().isEmpty)
            harness.controller.connect()
            try await harness.settle()
            #expect(harness.controller.sentATT() == [.exchangeMTUResponse(.init(serverRxMTU: 247))])
            #expect(await harness.host.attMTU(on: 0x0040) == 100)
        }
    }

    @Test("Early ACL data for a handle that never connects is bounded and never reaches another link")
    func earlyACLIsBounded() async throws {
        try await HostHarness.run { harness in
            for _ in 0..<(Host.earlyACLLimit + 4) {
                harness.controller.injectATT(.exchangeMTURequest(.init(clientRxMTU: 100)), handle: 0x0041)
            }
            try await harness.settle()
            #expect(await harness.host.earlyACL.count == Host.earlyACLLimit)
            harness.controller.connect(handle: 0x0040)
            try await harness.settle()
            #expect(harness.controller.sentATT(handle: 0x0040).isEmpty)
            #expect(await harness.host.attMTU(on: 0x0040) == 23)
        }
    }

    @Test("A configured random static address is set with LE Set Random Address and used as Own_Address_Type")
    func randomStaticAddress() async throws {
        var configuration = HostConfiguration()
        configuration.randomStaticAddress = BluetoothAddress(0xC4_00_00_00_00_01)
        try await HostHarness.run(configuration: configuration) { harness in
            let commands = harness.controller.commands.filter { $0.opcode == HCI.LESetRandomAddress.opcode }
            #expect(commands.count == 1)
            let command = try #require(try commands.first?.decodeCommand() as? HCI.LESetRandomAddress)
            #expect(command.randomAddress == BluetoothAddress(0xC4_00_00_00_00_01))
            #expect(await harness.host.ownAddressType == .random)
            #expect(await harness.host.ownAddress == LEAddress(BluetoothAddress(0xC4_00_00_00_00_01), type: .random))
        }
    }

    @Test("Without a random static address the host uses the public address and sends no LE Set Random Address")
    func publicAddressByDefault() async throws {
        try await HostHarness.run { harness in
            #expect(!harness.controller.opcodes.contains(HCI.LESetRandomAddress.opcode))
            #expect(await harness.host.ownAddressType == .public)
            #expect(await harness.host.ownAddress == LEAddress(BluetoothAddress(0x00_1B_DC_01_02_03), type: .public))
        }
    }

    @Test(
        "A controller without a usable public address (Read BD_ADDR unknown) gets a random static one (Vol 6 Part B §1.3.2.1)"
    )
    func randomStaticAddressWhenNoPublicAddress() async throws {
        var script = ScriptedController.Script()
        script.unknown = [HCI.ReadBDADDR.opcode]
        try await HostHarness.run(script: script) { harness in
            let commands = harness.controller.commands.filter { $0.opcode == HCI.LESetRandomAddress.opcode }
            let command = try #require(try commands.first?.decodeCommand() as? HCI.LESetRandomAddress)
            #expect(commands.count == 1)
            let address = command.randomAddress
            #expect(LEAddress(address, type: .random).kind == .randomStatic)
            #expect(address.value & 0x3FFF_FFFF_FFFF != 0 && address.value & 0x3FFF_FFFF_FFFF != 0x3FFF_FFFF_FFFF)
            #expect(await harness.host.ownAddress == LEAddress(address, type: .random))
            #expect(await harness.host.ownAddressType == .random)
        }
    }

    @Test("An address without the random static form (top bits 0b11, Vol 6 Part B §1.3.2.1) fails start")
    func invalidRandomStaticAddress() async throws {
        var configuration = HostConfiguration()
        configuration.randomStaticAddress = BluetoothAddress(0x40_00_00_00_00_01)
        let simulation = Simulation()
        let controller = ScriptedController()
        let host = Host(
            transport: controller.transport, clock: simulation.clock, executor: simulation.executor,
            configuration: configuration)
        try await simulation.run {
            await #expect(throws: HostError.invalidRandomStaticAddress(BluetoothAddress(0x40_00_00_00_00_01))) {
                try await host.start()
            }
            await host.stop()
        }
        #expect(!controller.opcodes.contains(HCI.LESetRandomAddress.opcode))
    }
}
