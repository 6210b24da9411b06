import BLEWire
import NIOCore
import NIOPosix

/// A raw HCI client that writes octets and reads nothing unless told to: the socket's receive
/// buffer is small and reading is off, so a controller's answers pile up on the server's side
/// as they would for a host that stopped reading.
final class SilentHCIClient: Sendable {
    let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    static func connect(host: String, port: UInt16) async throws -> SilentHCIClient {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: false)
            .channelOption(.socketOption(.so_rcvbuf), value: 4096)
            .connect(host: host, port: Int(port)).get()
        return SilentHCIClient(channel: channel)
    }

    /// Queues `bytes` for the socket without waiting for them to be written.
    func write(_ bytes: [UInt8]) {
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    func close() async {
        try? await channel.close()
    }
}

/// `count` copies of `command` as one H4 stream.
func commandFlood(_ command: some HCICommand, count: Int) -> [UInt8] {
    let one = H4Packet(command: command.packet).encoded
    var bytes: [UInt8] = []
    bytes.reserveCapacity(one.count * count)
    for _ in 0..<count { bytes += one }
    return bytes
}

/// The opcode a Command Complete or Command Status answers; nil for any other packet.
func answeredOpcode(_ packet: H4Packet) -> UInt16? {
    guard packet.type == .event, let event = try? HCIEvent(decoding: packet.payload) else { return nil }
    switch event {
    case .commandComplete(let complete): return complete.opcode.rawValue
    case .commandStatus(let status): return status.opcode.rawValue
    default: return nil
    }
}
