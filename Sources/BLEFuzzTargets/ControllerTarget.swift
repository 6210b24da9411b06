import BLEController
import BLEWire

/// A virtual controller fed by a hostile host: HCI commands of the table (and unknown ones)
/// with parameters of any length, ACL packets on any handle, raw H4 octets, and time passing,
/// next to a peer controller that advertises (so connections can form).
///
/// Promises checked (Core 5.4 Vol 4 Part E §4.4, §7): while the host's stream is well framed,
/// every command gets exactly one completion (Command Complete or Command Status with its
/// opcode); everything the controller sends is a well-formed H4 event or ACL packet.
enum ControllerTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var input = FuzzInput(bytes)
        let air = VirtualAir()
        let controller = VirtualController(air: air)
        let peer = VirtualController(air: air, position: AirPosition(x: 1))
        let output = ControllerOutput()
        var failure: FuzzFailure?
        controller.onPacket = { bytes in
            if let problem = output.take(bytes), failure == nil { failure = problem }
        }
        var transportFailed = false
        controller.onTransportFailure = { _ in transportFailed = true }
        // The peer advertises with default parameters (connectable, undirected).
        peer.receive(h4: H4Packet(command: HCI.LESetAdvertisingEnable(advertisingEnable: true).packet).encoded)
        // Every event unmasked, so every path that reports reaches the output.
        send(HCI.SetEventMask(eventMask: HCI.EventMask(rawValue: .max)).packet, to: controller, counting: output)
        send(HCI.LESetEventMask(leEventMask: HCI.LEEventMask(rawValue: .max)).packet, to: controller, counting: output)

        let opcodes = HCICommandTable.entries.map(\.opcode) + [HCIOpcode(rawValue: 0xFC01), HCIOpcode(rawValue: 0)]
        var steps = 0
        var rawInput = false
        while !input.isEmpty, steps < 128 {
            steps += 1
            let choice = input.u8()
            switch choice % 8 {
            case 0...4:
                let opcode = opcodes[Int(input.u16()) % opcodes.count]
                let parameters = input.chunk()
                send(HCICommandPacket(opcode: opcode, parameters: parameters[...]), to: controller, counting: output)
            case 5:
                let header = input.u8()
                let packet = ACLPacket(
                    handle: ConnectionHandle(UInt16(header & 0x03) | (header & 0x80 == 0 ? 0 : 0x0EFF)),
                    packetBoundary: ACLPacketBoundary(rawValue: (header >> 2) & 0x03) ?? .continuing,
                    data: input.chunk()[...])
                controller.receive(h4: H4Packet(acl: packet).encoded)
            case 6:
                run(air, for: .microseconds(Int64(input.u16()) * 100))
            default:
                rawInput = true
                controller.receive(h4: input.chunk())
            }
            run(air, for: .microseconds(1))
            if let failure { throw failure }
        }
        run(air, for: .milliseconds(100))
        if let failure { throw failure }
        if !rawInput && !transportFailed {
            // Opcode 0x0000 is also the no-operation opcode of credit-only completions (Core 5.4
            // Vol 4 Part E §7.7.14): it cannot be told apart, so it is not counted.
            for (opcode, sent) in output.sent where opcode.rawValue != 0 {
                let completed = output.completions[opcode, default: 0]
                try require(sent == completed, "\(opcode): \(sent) sent, \(completed) completions")
            }
            for (opcode, completed) in output.completions where output.sent[opcode] == nil && opcode.rawValue != 0 {
                throw FuzzFailure("\(opcode): \(completed) completions of a command never sent")
            }
        }
    }

    private static func send(_ command: HCICommandPacket, to controller: VirtualController, counting output: ControllerOutput) {
        output.sent[command.opcode, default: 0] += 1
        controller.receive(h4: H4Packet(command: command).encoded)
    }

    private static func run(_ air: VirtualAir, for duration: Duration) {
        air.queue.run(until: air.now.advanced(by: duration))
    }
}

/// What the controller sent its host, checked packet by packet.
final class ControllerOutput {
    var parser = H4StreamParser()
    var sent: [HCIOpcode: Int] = [:]
    var completions: [HCIOpcode: Int] = [:]

    /// Takes octets toward the host; returns what is wrong with them, if anything.
    func take(_ bytes: [UInt8]) -> FuzzFailure? {
        parser.feed(bytes)
        do {
            while let packet = try parser.next() {
                switch packet.type {
                case .event:
                    let event: HCIEvent
                    do {
                        event = try HCIEvent(decoding: packet.payload)
                    } catch {
                        return FuzzFailure("the controller sent an undecodable event \(Hex.string(packet.payload)): \(error)")
                    }
                    switch event {
                    case .commandComplete(let complete):
                        completions[complete.opcode, default: 0] += 1
                    case .commandStatus(let status):
                        completions[status.opcode, default: 0] += 1
                    default: break
                    }
                case .acl:
                    if (try? ACLPacket(decoding: packet.payload)) == nil {
                        return FuzzFailure("the controller sent an undecodable ACL packet")
                    }
                default:
                    return FuzzFailure("the controller sent a \(packet.type) packet")
                }
            }
        } catch {
            return FuzzFailure("the controller's output does not frame: \(error)")
        }
        return nil
    }
}
