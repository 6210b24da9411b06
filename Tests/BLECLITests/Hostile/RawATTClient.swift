import BLETransport
import BLEWire
import Foundation

/// A hostile neighbour's ATT client: raw HCI over its own controller connection (`ble
/// controller`'s TCP listener), no host stack in the way — it connects to a GATT server and
/// sends whatever ATT bytes a test gives it, pipelined or not, of any length, keeping only the
/// controller's ACL credits (Core 5.4 Vol 4 Part E §4.1) so that its packets are not dropped.
///
/// Used from one task; every wait is bounded by a count of packets, never by a clock.
struct RawATTClient {
    enum Failure: Error, CustomStringConvertible {
        case transportEnded
        case commandFailed(String)
        case noConnection(HCIStatus)

        var description: String {
            switch self {
            case .transportEnded: "the controller connection ended"
            case .commandFailed(let what): "command failed: \(what)"
            case .noConnection(let status): "no connection: \(status)"
            }
        }
    }

    /// What the server sent after a request, up to and including the answer to a probe.
    struct Received {
        /// ATT PDUs the server sent, in order (reassembled).
        var pdus: [[UInt8]] = []
        /// The link went down before the probe was answered.
        var disconnected = false
    }

    let transport: any HCITransport
    private var packets: AsyncThrowingStream<H4Packet, any Error>.AsyncIterator
    private var credits = 0
    private var dataLength = 27
    private var reassembler = L2CAPReassembler()
    private(set) var handle: ConnectionHandle?
    /// ATT PDUs received and not yet taken.
    private var inbox: [[UInt8]] = []
    private var linkDown = false

    static func open(port: String) async throws -> RawATTClient {
        let moniker = try TransportMoniker(parsing: "tcp-client:127.0.0.1:\(port)")
        let transport = try await moniker.openHostTransport()
        var client = RawATTClient(transport: transport, packets: transport.packets.makeAsyncIterator())
        _ = try await client.command(HCI.Reset())
        _ = try await client.command(
            HCI.SetEventMask(eventMask: [
                .disconnectionComplete, .encryptionChange, .hardwareError, .dataBufferOverflow, .leMeta,
            ]))
        _ = try await client.command(
            HCI.LESetEventMask(leEventMask: [.connectionComplete, .enhancedConnectionComplete]))
        let buffers = try await client.command(HCI.LEReadBufferSize())
        client.credits = Int(buffers.totalNumLEACLDataPackets)
        client.dataLength = Int(buffers.leACLDataPacketLength)
        if client.credits == 0 || client.dataLength == 0 {
            // No LE buffers of its own: the shared ones apply (Core 5.4 Vol 4 Part E §7.8.2).
            let shared = try await client.command(HCI.ReadBufferSize())
            client.credits = Int(shared.totalNumACLDataPackets)
            client.dataLength = Int(shared.aclDataPacketLength)
        }
        return client
    }

    private init(transport: any HCITransport, packets: AsyncThrowingStream<H4Packet, any Error>.AsyncIterator) {
        self.transport = transport
        self.packets = packets
    }

    // MARK: HCI

    /// Sends a command and waits for its Command Complete (other packets meanwhile are taken as
    /// they come).
    @discardableResult
    mutating func command<C: HCICommandWithCompleteEvent>(_ command: C) async throws -> C.ReturnParameters {
        try await transport.send(H4Packet(command: command.packet))
        while true {
            guard case .commandComplete(let complete) = try await nextEvent(), complete.opcode == C.opcode else {
                continue
            }
            if let status = complete.status, !status.isSuccess { throw Failure.commandFailed("\(C.name): \(status)") }
            return try complete.returnParameters(for: C.self)
        }
    }

    /// Connects to the public `address` (LE Create Connection, §7.8.12) and waits for LE
    /// Connection Complete.
    mutating func connect(to address: BluetoothAddress) async throws {
        handle = nil
        linkDown = false
        inbox = []
        reassembler.reset()
        let create = HCI.LECreateConnection(
            leScanInterval: 0x10, leScanWindow: 0x10, peerAddressType: .public, peerAddress: address,
            ownAddressType: .public,
            connectionParameters: .init(connectionIntervalMin: 6, connectionIntervalMax: 6, supervisionTimeout: 200))
        try await transport.send(H4Packet(command: create.packet))
        while handle == nil {
            let event = try await nextEvent()
            switch event {
            case .commandStatus(let status) where status.opcode == HCI.LECreateConnection.opcode:
                if !status.status.isSuccess { throw Failure.noConnection(status.status) }
            case .le(.connectionComplete(let complete)):
                guard complete.status.isSuccess else { throw Failure.noConnection(complete.status) }
                handle = complete.connectionHandle
            case .le(.enhancedConnectionComplete(let complete)):
                guard complete.status.isSuccess else { throw Failure.noConnection(complete.status) }
                handle = complete.connectionHandle
            default:
                continue
            }
        }
    }

    /// Disconnects (if connected) and waits for Disconnection Complete.
    mutating func disconnect() async throws {
        guard let handle, !linkDown else { return }
        try await transport.send(H4Packet(command: HCI.Disconnect(connectionHandle: handle).packet))
        while !linkDown { _ = try await nextEvent() }
    }

    /// The next event; ACL data and completed packets are handled on the way.
    private mutating func nextEvent() async throws -> HCIEvent {
        while true {
            if let event = try await nextPacket() { return event }
        }
    }

    /// Takes one packet from the controller: an event is returned (credits and disconnections
    /// noted first); ATT data goes to the inbox (nil returned).
    private mutating func nextPacket() async throws -> HCIEvent? {
        guard let packet = try await packets.next() else { throw Failure.transportEnded }
        switch packet.type {
        case .event:
            guard let event = try? HCIEvent(decoding: packet.payload) else { return nil }
            switch event {
            case .numberOfCompletedPackets(let completed):
                credits += completed.entries.reduce(0) { $0 + Int($1.numCompletedPackets) }
            case .disconnectionComplete(let done) where done.connectionHandle == handle:
                linkDown = true
            default:
                break
            }
            return event
        case .acl:
            guard let acl = try? ACLPacket(decoding: packet.payload), acl.handle == handle else { return nil }
            if let frame = reassembler.push(acl).frame, frame.channelID == .att {
                inbox.append(Array(frame.payload))
            }
            return nil
        default:
            return nil
        }
    }

    // MARK: ATT

    var isConnected: Bool { handle != nil && !linkDown }

    /// Sends `pdu` as one L2CAP frame on the ATT channel, fragmented to the controller's
    /// buffer size, waiting for credits as needed.
    mutating func send(_ pdu: [UInt8]) async throws {
        guard let handle, !linkDown else { return }
        let frame = L2CAPBasicFrame(channelID: .att, payload: pdu[...])
        for fragment in L2CAPFragmenter(maximumDataLength: dataLength).fragments(of: frame, handle: handle) {
            while credits == 0 && !linkDown { _ = try await nextEvent() }
            guard !linkDown else { return }
            credits -= 1
            try await transport.send(H4Packet(acl: fragment))
        }
    }

    /// Sends `pdus` — one at a time, each request waiting for its answer (Core 5.4 Vol 3 Part F
    /// §3.3.2), or all at once when `pipelined` — then a Read Request of `probeHandle`, and
    /// collects what the server sends until the probe is answered or the link goes down.
    mutating func exchange(_ pdus: [[UInt8]], probe probeHandle: UInt16, pipelined: Bool = false) async throws
        -> Received
    {
        var received = Received()
        if pipelined {
            for pdu in pdus { try await send(pdu) }
            try await collect(answers: pdus.filter { ATTPDU.peek($0)?.kind == .request }.count, into: &received)
        } else {
            for pdu in pdus {
                try await send(pdu)
                if ATTPDU.peek(pdu)?.kind == .request { try await collect(answers: 1, into: &received) }
                if received.disconnected { return received }
            }
        }
        if received.disconnected { return received }
        try await send([ATTOpcode.readRequest.rawValue, UInt8(probeHandle & 0xFF), UInt8(probeHandle >> 8)])
        try await collect(answers: 1, into: &received)
        return received
    }

    /// Takes what the server sends until `count` responses came, or the link went down.
    private mutating func collect(answers count: Int, into received: inout Received) async throws {
        var answers = 0
        while answers < count {
            while !inbox.isEmpty, answers < count {
                let pdu = inbox.removeFirst()
                received.pdus.append(pdu)
                if ATTPDU.peek(pdu)?.kind == .response { answers += 1 }
            }
            guard answers < count else { return }
            if linkDown {
                received.disconnected = true
                return
            }
            _ = try await nextPacket()
        }
    }

    /// Whether `pdu` answers a Read Request of `handle`'s kind: a Read Response, or an Error
    /// Response naming a Read Request.
    static func answersRead(_ pdu: [UInt8]) -> Bool {
        pdu.first == ATTOpcode.readResponse.rawValue
            || (pdu.count == 5 && pdu[0] == ATTOpcode.errorResponse.rawValue
                && pdu[1] == ATTOpcode.readRequest.rawValue)
    }

    mutating func close() async {
        try? await disconnect()
        await transport.close()
    }
}
