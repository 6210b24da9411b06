import BLEHost
import BLELocking
import BLESimulation
import BLETransport
import BLEWire
import Dispatch

/// A host (`Host`, with a GATT server) on a controller played by the input: after a normal
/// start-up, the controller sends events and ACL data of any content — well-formed connection
/// events and ATT PDUs to reach deep states, and arbitrary octets — with virtual time passing
/// between them (ATT and command timeouts run out).
///
/// Promises checked: the host neither traps nor hangs (it stops when asked), and never sends an
/// ACL packet longer than the controller's LE ACL buffer (Core 5.4 Vol 4 Part E §7.8.2).
enum HostTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var input = FuzzInput(bytes)
        let bufferLength = 27 + UInt16(input.u8())
        let steps = HostStep.script(&input)
        let failure = blocking(on: simulation) { await drive(steps, bufferLength: bufferLength, on: simulation) }
        if let failure { throw failure }
    }

    /// One simulation for every input: its thread outlives them (a thread per input cost more
    /// than the host it ran under AddressSanitizer). Each input's host starts at whatever
    /// virtual time the last one ended; nothing the host does depends on the absolute time,
    /// and every host is stopped, its tasks ended, before the next input starts.
    private static let simulation = Simulation()

    private static func drive(_ steps: [HostStep], bufferLength: UInt16, on simulation: Simulation) async
        -> FuzzFailure?
    {
        let controller = FuzzedController(bufferLength: bufferLength)
        do {
            return try await simulation.run { () async -> FuzzFailure? in
                var configuration = HostConfiguration()
                configuration.attTransactionTimeout = .seconds(2)
                let host = Host(
                    transport: controller.transport, clock: simulation.clock, executor: simulation.executor,
                    configuration: configuration)
                await host.setATTServer(GATTServerHandler(server: GATTServer(database: GATTServerTarget.database)))
                do {
                    try await host.start()
                } catch {
                    await host.stop()
                    return FuzzFailure("the host did not start on a conforming controller: \(error)")
                }
                for step in steps {
                    switch step {
                    case .packet(let packet): controller.transport.deliver(packet)
                    case .wait(let duration): try? await simulation.clock.sleep(for: duration)
                    }
                    try? await simulation.clock.sleep(for: .microseconds(1))
                }
                try? await simulation.clock.sleep(for: .milliseconds(10))
                await host.stop()
                // Lets the tasks stop() cancelled end before the simulation does: a task still
                // suspended when its executor stops would never run again.
                try? await simulation.clock.sleep(for: .microseconds(1))
                return controller.failure
            }
        } catch {
            return FuzzFailure("the simulation failed: \(error)")
        }
    }

    /// Runs `body` to its end from synchronous code (the fuzzer's callback, or a test), on the
    /// simulation's own thread: it needs no thread of the shared pool, which the caller may be
    /// blocking.
    private static func blocking<T: Sendable>(on simulation: Simulation, _ body: @escaping @Sendable () async -> T) -> T {
        let result = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        simulation.perform { _ in }  // starts the simulation thread
        Task(executorPreference: simulation.executor) {
            let value = await body()
            result.value.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.value.withLock { $0! }
    }
}

/// The result of work run to its end by `HostTarget.blocking`, handed across threads.
private final class ResultBox<T: Sendable>: Sendable {
    let value = Locked<T?>(nil)
}

/// One thing the controller does to the host.
enum HostStep: Sendable {
    case packet(H4Packet)
    case wait(Duration)

    static let handles: [UInt16] = [0x0040, 0x0041, 0x0EFF]

    /// The steps an input asks for (at most 64).
    static func script(_ input: inout FuzzInput) -> [HostStep] {
        var steps: [HostStep] = []
        while !input.isEmpty, steps.count < 64 {
            let choice = input.u8()
            let handle = handles[Int(choice >> 4) % handles.count]
            let low = UInt8(handle & 0xFF)
            let high = UInt8(handle >> 8)
            switch choice % 8 {
            case 0:
                // LE Connection Complete (Vol 4 Part E §7.7.65.1), central or peripheral.
                let role = input.u8() & 1
                steps.append(
                    event([0x3E, 0x13, 0x01, 0x00, low, high, role, 0x01, 1, 0, 0, 0, 0, 0xC0, 0x18, 0, 0, 0, 0xC8, 0, 0]))
            case 1:
                // Disconnection Complete (§7.7.5).
                steps.append(event([0x05, 0x04, 0x00, low, high, input.u8()]))
            case 2:
                // Number Of Completed Packets (§7.7.19).
                let count = input.u16()
                steps.append(event([0x13, 0x05, 0x01, low, high, UInt8(count & 0xFF), UInt8(count >> 8)]))
            case 3:
                // A whole L2CAP PDU on a fixed channel (ATT, signalling, SMP, or another).
                let channel = [UInt16(0x0004), 0x0005, 0x0006, 0x0040][Int(input.u8() % 4)]
                let payload = input.chunk()
                let frame = L2CAPBasicFrame(channelID: L2CAPChannelID(channel), payload: payload[...])
                steps.append(.packet(H4Packet(acl: ACLPacket(handle: ConnectionHandle(handle), packetBoundary: .firstFlushable, data: frame.encoded[...]))))
            case 4:
                // An ACL fragment of any content and boundary.
                let boundary = ACLPacketBoundary(rawValue: input.u8() & 0x03) ?? .continuing
                steps.append(.packet(H4Packet(acl: ACLPacket(handle: ConnectionHandle(handle), packetBoundary: boundary, data: input.chunk()[...]))))
            case 5, 6:
                // An event of any content.
                steps.append(.packet(H4Packet(type: .event, payload: input.chunk())))
            default:
                steps.append(.wait(.milliseconds(Int64(input.u16()))))
            }
        }
        return steps
    }

    private static func event(_ payload: [UInt8]) -> HostStep { .packet(H4Packet(type: .event, payload: payload)) }
}

/// The controller side of the host target: answers every command as a conforming controller
/// would (success, return parameters of zeros, the LE ACL buffer the input chose) and checks
/// what the host sends.
final class FuzzedController: Sendable {
    let transport: PipeTransport
    private let state = Locked<FuzzFailure?>(nil)
    private let bufferLength: UInt16

    init(bufferLength: UInt16) {
        self.bufferLength = bufferLength
        let box = ControllerBox()
        transport = PipeTransport { packet in box.controller?.received(packet) }
        box.controller = self
    }

    var failure: FuzzFailure? { state.withLock { $0 } }

    private func received(_ packet: H4Packet) {
        switch packet.type {
        case .command:
            guard let command = try? HCICommandPacket(decoding: packet.payload) else {
                record(FuzzFailure("the host sent a malformed command \(Hex.string(packet.payload))"))
                return
            }
            answer(command.opcode)
        case .acl:
            guard let acl = try? ACLPacket(decoding: packet.payload) else {
                record(FuzzFailure("the host sent a malformed ACL packet"))
                return
            }
            if acl.data.count > Int(bufferLength) {
                record(FuzzFailure("the host sent \(acl.data.count) octets of ACL data; the buffer holds \(bufferLength)"))
            }
        default:
            record(FuzzFailure("the host sent a \(packet.type) packet"))
        }
    }

    private func record(_ failure: FuzzFailure) {
        state.withLock { if $0 == nil { $0 = failure } }
    }

    private func answer(_ opcode: HCIOpcode) {
        let low = UInt8(opcode.rawValue & 0xFF)
        let high = UInt8(opcode.rawValue >> 8)
        guard HCICommandTable.entry(for: opcode)?.completion != .commandStatus else {
            transport.deliver(H4Packet(type: .event, payload: [0x0F, 0x04, 0x00, 0x01, low, high]))
            return
        }
        var parameters: [UInt8]
        switch opcode {
        case HCI.LEReadBufferSizeV2.opcode, HCI.LEReadBufferSize.opcode:
            // Status, LE_ACL_Data_Packet_Length, Total_Num_LE_ACL_Data_Packets (§7.8.2, §7.8.93).
            parameters = [0x00, UInt8(bufferLength & 0xFF), UInt8(bufferLength >> 8), 4, 0, 0, 0]
        default:
            parameters = [0x00] + [UInt8](repeating: 0, count: 70)
        }
        parameters = [0x0E, UInt8(3 + parameters.count), 0x01, low, high] + parameters
        transport.deliver(H4Packet(type: .event, payload: parameters))
    }
}

/// Lets the transport's closure reach the controller without a retain cycle.
private final class ControllerBox: @unchecked Sendable {
    // @unchecked Sendable: written once in FuzzedController.init, before any packet flows.
    weak var controller: FuzzedController?
}
