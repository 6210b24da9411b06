import BLEController
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

@Suite("Host HCI command flow and initialisation (Core 5.4 Vol 4 Part E §4.4, §7)")
struct HostCommandTests {
    @Test("Initialisation starts with Reset and takes the LE buffer size from LE Read Buffer Size v2")
    func initSequence() async throws {
        var script = ScriptedController.Script()
        script.aclBufferSize = 251
        script.aclBufferCount = 6
        try await HostHarness.run(script: script) { harness in
            let opcodes = harness.controller.opcodes
            #expect(opcodes.first == HCI.Reset.opcode)
            #expect(opcodes.contains(HCI.LEReadBufferSizeV2.opcode))
            #expect(!opcodes.contains(HCI.LEReadBufferSize.opcode))
            let info = await harness.host.controllerInfo
            #expect(info.aclBufferSize == 251)
            #expect(info.aclBufferCount == 6)
            #expect(info.address == BluetoothAddress(0x00_1B_DC_01_02_03))
        }
    }

    @Test("A controller that answers Unknown HCI Command to v2 gets LE Read Buffer Size v1 instead")
    func unknownCommandFallsBack() async throws {
        var script = ScriptedController.Script()
        script.unknown = [HCI.LEReadBufferSizeV2.opcode]
        script.aclBufferCount = 3
        try await HostHarness.run(script: script) { harness in
            #expect(harness.controller.opcodes.contains(HCI.LEReadBufferSize.opcode))
            #expect(await harness.host.controllerInfo.aclBufferCount == 3)
        }
    }

    @Test("A command the controller never answers times out and initialisation carries on")
    func silentCommandTimesOut() async throws {
        var script = ScriptedController.Script()
        script.silent = [HCI.LEReadBufferSizeV2.opcode, HCI.ReadLocalSupportedCommands.opcode]
        try await HostHarness.run(script: script) { harness in
            let opcodes = harness.controller.opcodes
            #expect(opcodes.contains(HCI.LEReadBufferSize.opcode))
            // Two one-second command timeouts passed in virtual time.
            #expect(harness.simulation.now >= VirtualInstant.zero.advanced(by: .seconds(2)))
            await #expect(throws: HostError.commandTimeout(HCI.ReadLocalSupportedCommands.opcode)) {
                try await harness.host.send(HCI.ReadLocalSupportedCommands())
            }
        }
    }

    @Test("A failure status throws commandFailed with the opcode and status")
    func failureStatus() async throws {
        var script = ScriptedController.Script()
        script.unknown = [HCI.LESetPHY.opcode]
        try await HostHarness.run(script: script) { harness in
            await #expect(throws: HostError.commandFailed(HCI.LESetPHY.opcode, .unknownHCICommand)) {
                try await harness.host.send(
                    HCI.LESetPHY(
                        connectionHandle: 0x40, allPHYs: [], txPHYs: [.le2M], rxPHYs: [.le2M], phyOptions: .noPreference
                    ))
            }
        }
    }
}

@Suite("HCI command credits (Core 5.4 Vol 4 Part E §4.4)")
struct CommandCreditTests {
    @Test("With Num_HCI_Command_Packets 0 the next command waits; a NOP Command Complete (opcode 0) releases it")
    func creditsGateCommands() async throws {
        try await HostHarness.run { harness in
            harness.controller.setCommandCredits(0)
            _ = try await harness.host.send(HCI.LERand())
            let sentBefore = harness.controller.commands.count
            harness.controller.setCommandCredits(1)
            let waiting = Task(executorPreference: harness.simulation.executor) {
                try await harness.host.send(HCI.LERand())
            }
            try await harness.settle()
            #expect(harness.controller.commands.count == sentBefore)
            harness.controller.inject(
                .commandComplete(.init(numHCICommandPackets: 1, opcode: HCIOpcode(rawValue: 0), returnParameters: [])))
            _ = try await waiting.value
            #expect(harness.controller.commands.count == sentBefore + 1)
        }
    }
}
