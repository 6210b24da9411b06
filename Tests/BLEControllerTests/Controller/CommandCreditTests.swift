import BLESimulation
import BLETestSupport
import BLEWire
import Logging
import Testing

@testable import BLEController

/// The host's command credit (Core 5.4 Vol 4 Part E §4.4): one command after power-on, Reset or
/// a new stream, then Num_HCI_Command_Packets of the latest Command Complete or Status. Commands
/// beyond it are handled in order all the same, and each is counted and logged.
@Suite("Command flow control: commands beyond the host's credit (Core 5.4 Vol 4 Part E §4.4)")
struct CommandCreditTests {
    static func encoded(_ commands: [any HCICommand]) -> [UInt8] {
        commands.flatMap { H4Packet(command: $0.packet).encoded }
    }

    static func completedOpcodes(_ host: TestHost) -> [HCIOpcode] {
        host.events.compactMap { entry -> HCIOpcode? in
            switch entry.event {
            case .commandComplete(let complete): complete.opcode
            case .commandStatus(let status): status.opcode
            default: nil
            }
        }
    }

    @Test("Three commands at once with one credit: two beyond it, counted, logged once at notice; all answered in order")
    func pipelinedCommands() {
        let recorder = LogRecorder()
        var configuration = VirtualController.Configuration()
        configuration.logger = recorder.logger(level: .debug)
        let host = TestHost(air: VirtualAir(), configuration: configuration, unmaskEvents: false)
        host.send(bytes: Self.encoded([HCI.ReadBDADDR(), HCI.ReadLocalVersionInformation(), HCI.LEReadBufferSize()]))
        host.run(for: .milliseconds(1))
        #expect(
            Self.completedOpcodes(host) == [
                HCI.ReadBDADDR.opcode, HCI.ReadLocalVersionInformation.opcode, HCI.LEReadBufferSize.opcode,
            ])
        #expect(host.controller.statistics.commandsBeyondCredit == 2)
        let notices = recorder.lines(atLeast: .notice).map(\.message)
        #expect(notices.count == 1)
        #expect(notices.first?.contains("beyond its credit") == true)
        #expect(recorder.lines.filter { $0.level == .debug && $0.message.contains("beyond the host's credit") }.count == 1)
    }

    @Test("A host that waits for each completion never exceeds its credit")
    func compliantHost() {
        let host = TestHost(air: VirtualAir())
        for _ in 0..<20 { host.complete(HCI.ReadBDADDR()) }
        host.expectSuccess(HCI.Reset())
        host.complete(HCI.ReadLocalVersionInformation())
        #expect(host.controller.statistics.commandsBeyondCredit == 0)
    }

    @Test("A larger credit is honoured: with Num_HCI_Command_Packets 4, four commands after a completion are allowed")
    func largerCredit() {
        var configuration = VirtualController.Configuration()
        configuration.commandCredits = 4
        let host = TestHost(air: VirtualAir(), configuration: configuration, unmaskEvents: false)
        host.complete(HCI.ReadBDADDR())
        host.send(bytes: Self.encoded(Array(repeating: HCI.ReadBDADDR(), count: 4)))
        host.run(for: .milliseconds(1))
        #expect(host.controller.statistics.commandsBeyondCredit == 0)
        host.send(bytes: Self.encoded(Array(repeating: HCI.ReadBDADDR(), count: 5)))
        host.run(for: .milliseconds(1))
        #expect(host.controller.statistics.commandsBeyondCredit == 1)
    }

    @Test("HCI_Host_Number_Of_Completed_Packets needs no credit (Vol 4 Part E §7.3.40)")
    func hostNumberOfCompletedPacketsIsExempt() {
        let host = TestHost(air: VirtualAir(), unmaskEvents: false)
        // Read_BD_ADDR takes the credit; Host_Number_Of_Completed_Packets (0x0C35) for one
        // handle, one packet, follows at once.
        let completed: [UInt8] = [0x01, 0x35, 0x0C, 0x05, 0x01, 0x01, 0x00, 0x01, 0x00]
        host.send(bytes: Self.encoded([HCI.ReadBDADDR()]) + completed)
        host.run(for: .milliseconds(1))
        #expect(host.controller.statistics.commandsBeyondCredit == 0)
    }

    @Test("A new host stream starts with one credit again, whatever the last one left")
    func restartGivesOneCredit() {
        let host = TestHost(air: VirtualAir(), unmaskEvents: false)
        // The first stream leaves with a command in flight: its credit is spent.
        host.send(HCI.ReadBDADDR())
        host.controller.restartTransport()
        host.send(HCI.ReadBDADDR())
        host.run(for: .milliseconds(1))
        #expect(host.controller.statistics.commandsBeyondCredit == 0)
    }
}
