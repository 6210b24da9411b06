import BLELocking
import BLETransport
import BLEWire

/// A controller played by the test: answers the host's commands from a script and lets the
/// test inject events and ACL data. Everything the host sends is recorded.
final class ScriptedController: Sendable {
    struct Script: Sendable {
        /// Commands never answered (a controller that hangs on them).
        var silent: Set<HCIOpcode> = []
        /// Commands answered with 0x01 Unknown HCI Command.
        var unknown: Set<HCIOpcode> = []
        var aclBufferSize: UInt16 = 27
        var aclBufferCount: UInt8 = 4
        /// Num_HCI_Command_Packets in every answer.
        var commandCredits: UInt8 = 1
    }

    private struct State {
        var commands: [HCICommandPacket] = []
        var acl: [ACLPacket] = []
        var script: Script
    }

    private let state: Locked<State>
    let transport: PipeTransport

    init(script: Script = Script()) {
        let state = Locked(State(script: script))
        self.state = state
        let box = WeakBox()
        transport = PipeTransport { packet in box.controller?.received(packet) }
        box.controller = self
    }

    var commands: [HCICommandPacket] { state.withLock { $0.commands } }
    func setCommandCredits(_ credits: UInt8) { state.withLock { $0.script.commandCredits = credits } }
    var sentACL: [ACLPacket] { state.withLock { $0.acl } }
    func clearACL() { state.withLock { $0.acl.removeAll() } }

    /// Opcodes the host sent, in order.
    var opcodes: [HCIOpcode] { commands.map(\.opcode) }

    func inject(_ event: HCIEvent) {
        transport.deliver(H4Packet(type: .event, payload: event.encoded[...]))
    }

    func inject(_ acl: ACLPacket) {
        transport.deliver(H4Packet(acl: acl))
    }

    /// An ATT PDU from the peer on `handle`, as one ACL packet.
    func injectATT(_ pdu: ATTPDU, handle: ConnectionHandle = 0x0040) {
        injectATT(bytes: pdu.encoded, handle: handle)
    }

    func injectATT(bytes: [UInt8], handle: ConnectionHandle = 0x0040) {
        let frame = L2CAPBasicFrame(channelID: .att, payload: bytes[...])
        inject(ACLPacket(handle: handle, packetBoundary: .firstFlushable, data: frame.encoded[...]))
    }

    /// ATT PDUs the host sent on `handle` (each ACL packet assumed to hold a whole PDU).
    func sentATT(handle: ConnectionHandle = 0x0040) -> [ATTPDU] {
        sentACL.filter { $0.handle == handle }.compactMap { packet in
            guard let frame = try? L2CAPBasicFrame(decoding: packet.data), frame.channelID == .att else { return nil }
            return try? ATTPDU(decoding: frame.payload)
        }
    }

    func connect(handle: ConnectionHandle = 0x0040, role: LEMetaEvent.Role = .central) {
        inject(
            .le(
                .connectionComplete(
                    .init(
                        connectionHandle: handle, role: role,
                        peerAddress: LEAddress(BluetoothAddress(0xC000_0000_0001), type: .random),
                        connectionInterval: 12, peripheralLatency: 0, supervisionTimeout: 200,
                        centralClockAccuracy: 0))))
    }

    func completePackets(_ count: UInt16, handle: ConnectionHandle = 0x0040) {
        inject(.numberOfCompletedPackets(.init(entries: [.init(connectionHandle: handle, numCompletedPackets: count)])))
    }

    private func received(_ packet: H4Packet) {
        switch packet.type {
        case .command:
            guard let command = try? HCICommandPacket(decoding: packet.payload) else { return }
            let script = state.withLock { state in
                state.commands.append(command)
                return state.script
            }
            answer(command, script: script)
        case .acl:
            guard let acl = try? ACLPacket(decoding: packet.payload) else { return }
            state.withLock {
                $0.acl.append(
                    ACLPacket(handle: acl.handle, packetBoundary: acl.packetBoundary, data: Array(acl.data)[...]))
            }
        default:
            return
        }
    }

    private func answer(_ command: HCICommandPacket, script: Script) {
        let opcode = command.opcode
        if script.silent.contains(opcode) { return }
        let completion = HCICommandTable.entry(for: opcode)?.completion ?? .commandComplete
        if script.unknown.contains(opcode) {
            switch completion {
            case .commandComplete:
                inject(
                    .commandComplete(
                        .init(numHCICommandPackets: script.commandCredits, opcode: opcode, returnParameters: [0x01])))
            case .commandStatus:
                inject(
                    .commandStatus(
                        .init(status: .unknownHCICommand, numHCICommandPackets: script.commandCredits, opcode: opcode)))
            }
            return
        }
        switch completion {
        case .commandStatus:
            inject(.commandStatus(.init(status: .success, numHCICommandPackets: script.commandCredits, opcode: opcode)))
            if opcode == HCI.Disconnect.opcode, case let disconnect as HCI.Disconnect = try? command.decodeCommand() {
                inject(
                    .disconnectionComplete(
                        .init(connectionHandle: disconnect.connectionHandle, reason: .connectionTerminatedByLocalHost)))
            }
        case .commandComplete:
            let returned: [UInt8]
            switch opcode {
            case HCI.LEReadBufferSizeV2.opcode:
                returned =
                    HCI.LEReadBufferSizeV2.ReturnParameters(
                        status: .success, leACLDataPacketLength: script.aclBufferSize,
                        totalNumLEACLDataPackets: script.aclBufferCount, isoDataPacketLength: 0,
                        totalNumISODataPackets: 0
                    ).encoded
            case HCI.LEReadBufferSize.opcode:
                returned =
                    HCI.LEReadBufferSize.ReturnParameters(
                        status: .success, leACLDataPacketLength: script.aclBufferSize,
                        totalNumLEACLDataPackets: script.aclBufferCount
                    ).encoded
            case HCI.ReadBDADDR.opcode:
                returned =
                    HCI.ReadBDADDR.ReturnParameters(status: .success, bdAddr: BluetoothAddress(0x00_1B_DC_01_02_03))
                    .encoded
            default:
                returned = HCICommandTable.entry(for: opcode).flatMap { _ in Self.successReturn(for: opcode) } ?? [0x00]
            }
            inject(
                .commandComplete(
                    .init(numHCICommandPackets: script.commandCredits, opcode: opcode, returnParameters: returned[...]))
            )
        }
    }

    /// Success return parameters: the status, then zeros for the rest (decodes for every command).
    private static func successReturn(for opcode: HCIOpcode) -> [UInt8] {
        [0x00] + [UInt8](repeating: 0, count: 70)
    }
}

/// Lets the transport's closure reach the controller without a retain cycle.
private final class WeakBox: @unchecked Sendable {
    // @unchecked Sendable: written once during ScriptedController.init, before any packet flows.
    weak var controller: ScriptedController?
}
