import BLEWire
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw HCI client of `ble controller` over TCP on loopback: writes any octets, framed or not,
/// and reads H4 packets back with BLEWire's parser. Blocking; a receive timeout of 20 s only
/// keeps a broken run from hanging the suite (no test measures time).
final class RawHCISocket {
    enum Failure: Error, CustomStringConvertible {
        case socket(String)
        case closedByPeer
        case malformed(String)

        var description: String {
            switch self {
            case .socket(let what): "socket: \(what) (errno \(errno))"
            case .closedByPeer: "the controller closed the connection"
            case .malformed(let what): "the controller sent a stream that does not frame: \(what)"
            }
        }
    }

    private let fd: Int32
    private var parser = H4StreamParser()
    private var closed = false

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket("socket") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw Failure.socket("connect")
        }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// Writes all of `bytes` (blocking).
    func write(_ bytes: [UInt8]) throws { try writer.write(bytes) }

    /// The writing half, for a thread that writes while another reads.
    var writer: Writer { Writer(fd: fd) }

    struct Writer: Sendable {
        let fd: Int32

        /// Writes all of `bytes` (blocking).
        func write(_ bytes: [UInt8]) throws {
            guard try writeUntilStalled(bytes) == bytes.count else { throw Failure.socket("send") }
        }

        /// Writes `bytes` until done or until a write makes no progress for the socket's send
        /// timeout (as a client that gives up on a peer that stopped reading); returns the
        /// octets written.
        func writeUntilStalled(_ bytes: [UInt8]) throws -> Int {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written < 0, errno == EAGAIN || errno == EWOULDBLOCK { return offset }
                guard written > 0 else { throw Failure.socket("send") }
                offset += written
            }
            return offset
        }
    }

    /// Gives up a write that makes no progress for `seconds` (SO_SNDTIMEO).
    func setSendTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ command: some HCICommand) throws { try write(H4Packet(command: command.packet).encoded) }

    /// The next packet from the controller.
    func next() throws -> H4Packet {
        while true {
            do {
                if let packet = try parser.next() { return packet }
            } catch {
                throw Failure.malformed("\(error)")
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { throw Failure.closedByPeer }
            guard count > 0 else { throw Failure.socket("recv") }
            parser.feed(buffer[..<count])
        }
    }

    /// The next event, skipping ACL data.
    func nextEvent() throws -> HCIEvent {
        while true {
            let packet = try next()
            guard packet.type == .event else { continue }
            do {
                return try HCIEvent(decoding: packet.payload)
            } catch {
                throw Failure.malformed("event \(error)")
            }
        }
    }

    /// Reads events until the completion (Command Complete or Status) of `opcode`, and returns
    /// its status (nil for a Command Complete without one) with the opcodes of the other
    /// completions read on the way.
    func completion(of opcode: HCIOpcode) throws -> (status: HCIStatus?, others: [HCIOpcode]) {
        var others: [HCIOpcode] = []
        while true {
            switch try nextEvent() {
            case .commandComplete(let complete) where complete.opcode == opcode: return (complete.status, others)
            case .commandStatus(let status) where status.opcode == opcode: return (status.status, others)
            case .commandComplete(let complete): others.append(complete.opcode)
            case .commandStatus(let status): others.append(status.opcode)
            default: continue
            }
        }
    }

    /// Sends `command` and returns its completion's status.
    @discardableResult
    func run<C: HCICommand>(_ command: C) throws -> HCIStatus? {
        try send(command)
        return try completion(of: C.opcode).status
    }
}
