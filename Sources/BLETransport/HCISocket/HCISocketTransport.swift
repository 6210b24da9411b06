#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import BLELocking
import BLEWire
import Logging
import NIOCore
import NIOPosix

/// Why the Linux HCI user channel of an adapter could not be opened.
public enum HCISocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// socket(AF_BLUETOOTH) failed with EAFNOSUPPORT: the kernel has no Bluetooth support (not
    /// Linux, no bluetooth module, or a container without it).
    case noBluetoothSupport
    /// EPERM or EACCES: the user channel needs the CAP_NET_ADMIN capability.
    case permissionDenied(index: UInt16)
    /// EBUSY: the adapter is up (in use by the kernel's own host, bluetoothd).
    case adapterBusy(index: UInt16)
    /// ENODEV: there is no adapter with this index.
    case noSuchAdapter(index: UInt16)
    /// Another failure of `operation` (socket, bind).
    case failed(index: UInt16, operation: String, reason: String)

    public var description: String {
        switch self {
        case .noBluetoothSupport:
            "this kernel has no Bluetooth support (no AF_BLUETOOTH sockets): the HCI user channel needs Linux "
                + "with the bluetooth module"
        case .permissionDenied(let index):
            "no permission to open the HCI user channel of hci\(index): it needs CAP_NET_ADMIN (run as root, "
                + "or grant it: sudo setcap cap_net_admin+ep PROGRAM)"
        case .adapterBusy(let index):
            "hci\(index) is up and in use by the system's Bluetooth stack: bring it down first "
                + "(hciconfig hci\(index) down, or btmgmt --index \(index) power off)"
        case .noSuchAdapter(let index): "there is no Bluetooth adapter hci\(index) (see hciconfig or btmgmt info)"
        case .failed(let index, let operation, let reason): "cannot open hci\(index) (\(operation)): \(reason)"
        }
    }
}

/// A host's link to a local adapter through the Linux HCI user channel (Bumble's
/// `hci-socket:INDEX`): an AF_BLUETOOTH raw socket bound to HCI_CHANNEL_USER, which hands the
/// adapter to this process alone — the kernel's own host stays out of the way.
///
/// Each read and each write is one whole packet with its H4 packet indicator first (Core 5.4
/// Vol 4 Part A §2), so sends are written one packet per `write(2)`, never coalesced.
public final class HCISocketTransport: HCITransport {
    public let index: UInt16
    private let reader: any Channel
    private let sink: H4PacketSink
    /// The descriptor writes go to (a duplicate of the one the reader owns); -1 once closed.
    private let writer: Locked<Int32>

    public var packets: AsyncThrowingStream<H4Packet, any Error> { sink.packets }

    private init(index: UInt16, reader: any Channel, sink: H4PacketSink, writeDescriptor: Int32) {
        self.index = index
        self.reader = reader
        self.sink = sink
        writer = Locked(writeDescriptor)
    }

    static let addressFamily: Int32 = 31  // AF_BLUETOOTH
    static let protocolHCI: Int32 = 1  // BTPROTO_HCI
    static let userChannel: UInt16 = 1  // HCI_CHANNEL_USER
    /// Room for the largest packet a read can return (indicator, ACL header, 65,535 octets),
    /// so a datagram is never cut.
    static let readCapacity = 1 + 4 + 0xFFFF
    /// 100 ms polls a send waits for room before giving up.
    static let maximumWriteWaits = 50

    /// Opens the user channel of adapter `index` (hci0 is 0). The adapter must be down and the
    /// process needs CAP_NET_ADMIN; each failure says which.
    public static func open(
        index: UInt16, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "ble.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(HCISocketError) -> HCISocketTransport {
        let descriptor = socket(addressFamily, socketType, protocolHCI)
        guard descriptor >= 0 else {
            throw error(for: errno, index: index, operation: "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)")
        }
        // struct sockaddr_hci: family, device index, channel (native byte order).
        let address: [UInt16] = [UInt16(addressFamily), index, userChannel]
        let bound = address.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: sockaddr.self) { bind(descriptor, $0.baseAddress, socklen_t(raw.count)) }
        }
        guard bound == 0 else {
            let code = errno
            closeDescriptor(descriptor)
            throw error(for: code, index: index, operation: "bind to HCI_CHANNEL_USER")
        }
        do {
            return try await attach(descriptor: descriptor, index: index, group: group, logger: logger)
        } catch {
            throw .failed(index: index, operation: "attach", reason: "\(error)")
        }
    }

    /// Reads and writes whole packets on a connected datagram descriptor, which this takes
    /// over (the user channel; a SOCK_SEQPACKET pair in tests). Closes it on failure.
    static func attach(
        descriptor: Int32, index: UInt16, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "ble.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> HCISocketTransport {
        let writeDescriptor = dup(descriptor)
        guard writeDescriptor >= 0 else {
            let reason = errnoDescription()
            closeDescriptor(descriptor)
            throw HCISocketError.failed(index: index, operation: "dup", reason: reason)
        }
        let sink = H4PacketSink(logger: logger)
        do {
            let reader = try await NIOPipeBootstrap(group: group)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: readCapacity))
                .channelInitializer(SocketHCIConnection.initializer(sink: sink))
                .takingOwnershipOfDescriptor(input: descriptor).get()
            return HCISocketTransport(index: index, reader: reader, sink: sink, writeDescriptor: writeDescriptor)
        } catch {
            closeDescriptor(descriptor)
            closeDescriptor(writeDescriptor)
            throw error
        }
    }

    public func send(_ packet: H4Packet) async throws(HCITransportError) {
        guard !sink.hasEnded else { throw .closed }
        let bytes = packet.encoded
        let failure: HCITransportError? = writer.withLock { descriptor in
            guard descriptor >= 0 else { return .closed }
            var waits = 0
            while true {
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written == bytes.count { return nil }
                if written >= 0 { return .io("short write: \(written) of \(bytes.count) octets") }
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK:
                    // The adapter's queue is full: wait until it takes the packet, but not
                    // forever (a controller that stopped reading is a dead link).
                    guard waits < Self.maximumWriteWaits else {
                        return .io("the adapter accepted no packet for \(Self.maximumWriteWaits / 10) s")
                    }
                    waits += 1
                    var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, 100)
                case EPIPE, ECONNRESET, ENOTCONN, ENODEV: return .closed
                case let code: return .io(errnoDescription(code))
                }
            }
        }
        if let failure {
            sink.logger.warning("write of \(bytes.count) octets failed: \(failure)")
            throw failure
        }
    }

    public func close() async {
        sink.end(throwing: nil)
        writer.withLock { descriptor in
            if descriptor >= 0 { closeDescriptor(descriptor) }
            descriptor = -1
        }
        try? await reader.close()
    }

    private static var socketType: Int32 {
        #if os(Linux)
            Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        #else
            SOCK_RAW
        #endif
    }

    private static func error(for code: Int32, index: UInt16, operation: String) -> HCISocketError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT: .noBluetoothSupport
        case EPERM, EACCES: .permissionDenied(index: index)
        case EBUSY: .adapterBusy(index: index)
        case ENODEV: .noSuchAdapter(index: index)
        default: .failed(index: index, operation: operation, reason: errnoDescription(code))
        }
    }
}
