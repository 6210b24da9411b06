#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import BLEWire
import Logging
import NIOCore
import NIOPosix

/// Why a serial line could not be opened or set up.
public enum SerialLineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No file at the path (ENOENT): the dongle is not plugged in, or the name is wrong.
    case noSuchDevice(path: String)
    /// The process may not open the device (EACCES): on Linux, join the group that owns it
    /// (often `dialout`).
    case permissionDenied(path: String)
    /// The file is not a terminal device, so it has no line settings.
    case notATerminal(path: String)
    /// A baud rate the terminal interface has no constant for.
    case unsupportedSpeed(UInt32)
    /// DSR/DTR flow control: the terminal interface has no setting for it.
    case unsupportedFlowControl(String)
    /// Opening failed for another reason.
    case cannotOpen(path: String, reason: String)
    /// The line settings were refused.
    case cannotConfigure(path: String, reason: String)

    public var description: String {
        switch self {
        case .noSuchDevice(let path): "no serial device at \(path)"
        case .permissionDenied(let path):
            "no permission to open \(path) (add the user to the group that owns it, often dialout)"
        case .notATerminal(let path): "\(path) is not a serial (terminal) device"
        case .unsupportedSpeed(let speed):
            "serial speed \(speed) is not supported; use one of "
                + SerialTransport.supportedSpeeds.map(String.init).joined(separator: ", ")
        case .unsupportedFlowControl(let name): "\(name) flow control is not available on this system's serial lines"
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .cannotConfigure(let path, let reason): "cannot set up the serial line \(path): \(reason)"
        }
    }
}

/// A host's link to a controller on a serial line: the UART transport, H4 framing over a tty
/// in raw mode (Core 5.4 Vol 4 Part A §2), Bumble's `serial:DEVICE[,SPEED][,rtscts]`.
///
/// The line is 8 data bits, no parity, one stop bit, at `line.speed` (1,000,000 baud unless
/// given), with RTS/CTS hardware flow control when asked (Vol 4 Part A §3 recommends it). The
/// octets are framed as on a socket: a stream that cannot be framed finishes `packets` with
/// `HCITransportError.malformedStream` and closes the device.
public final class SerialTransport: HCITransport {
    public let line: TransportMoniker.SerialLine
    let connection: SocketHCIConnection

    public var packets: AsyncThrowingStream<H4Packet, any Error> { connection.sink.packets }

    private init(line: TransportMoniker.SerialLine, connection: SocketHCIConnection) {
        self.line = line
        self.connection = connection
    }

    /// Opens `line.device` (it does not become the process's controlling terminal), sets raw
    /// mode, speed and flow control, and starts framing what it reads.
    public static func open(
        _ line: TransportMoniker.SerialLine, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "ble.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(SerialLineError) -> SerialTransport {
        let speed = line.speed ?? TransportMoniker.SerialLine.defaultSpeed
        guard let speedConstant = baudConstant(speed) else { throw .unsupportedSpeed(speed) }
        if line.dsrDTR { throw .unsupportedFlowControl("DSR/DTR") }
        let descriptor = openFile(line.device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT: throw .noSuchDevice(path: line.device)
            case EACCES, EPERM: throw .permissionDenied(path: line.device)
            default: throw .cannotOpen(path: line.device, reason: errnoDescription(code))
            }
        }
        do throws(SerialLineError) {
            try configure(descriptor, path: line.device, speed: speedConstant, rtsCTS: line.rtsCTS)
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        let sink = H4PacketSink(logger: logger)
        do {
            // NIO closes the descriptor with the channel; on failure it is still ours.
            let channel = try await NIOPipeBootstrap(group: group)
                .channelInitializer(SocketHCIConnection.initializer(sink: sink))
                .takingOwnershipOfDescriptor(inputOutput: descriptor).get()
            return SerialTransport(line: line, connection: SocketHCIConnection(channel: channel, sink: sink))
        } catch {
            closeDescriptor(descriptor)
            throw .cannotOpen(path: line.device, reason: "\(error)")
        }
    }

    public func send(_ packet: H4Packet) async throws(HCITransportError) {
        try await connection.send(packet)
    }

    public func close() async {
        await connection.close()
    }

    /// Raw mode (no echo, no line editing, no translation, 8N1), the receiver on, modem lines
    /// ignored, RTS/CTS as asked; pending octets from before are discarded.
    private static func configure(
        _ descriptor: Int32, path: String, speed: speed_t, rtsCTS: Bool
    ) throws(SerialLineError) {
        guard isatty(descriptor) == 1 else { throw .notATerminal(path: path) }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            throw .cannotConfigure(path: path, reason: errnoDescription())
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if rtsCTS {
            settings.c_cflag |= hardwareFlowControl
        } else {
            settings.c_cflag &= ~hardwareFlowControl
        }
        // Reads return whatever has arrived (the descriptor is non-blocking anyway).
        withUnsafeMutableBytes(of: &settings.c_cc) { controlCharacters in
            controlCharacters[Int(VMIN)] = 1
            controlCharacters[Int(VTIME)] = 0
        }
        guard cfsetispeed(&settings, speed) == 0, cfsetospeed(&settings, speed) == 0 else {
            throw .cannotConfigure(path: path, reason: errnoDescription())
        }
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            throw .cannotConfigure(path: path, reason: errnoDescription())
        }
        _ = tcflush(descriptor, TCIOFLUSH)
    }

    #if os(Linux)
        /// CRTSCTS (its octal value does not fit the imported constant's type).
        private static let hardwareFlowControl: tcflag_t = 0o20000000000
        private static let speeds: [(UInt32, Int32)] = [
            (1200, B1200), (2400, B2400), (4800, B4800), (9600, B9600), (19200, B19200), (38400, B38400),
            (57600, B57600), (115_200, B115200), (230_400, B230400), (460_800, B460800), (500_000, B500000),
            (576_000, B576000), (921_600, B921600), (1_000_000, B1000000), (1_152_000, B1152000),
            (1_500_000, B1500000), (2_000_000, B2000000), (2_500_000, B2500000), (3_000_000, B3000000),
            (3_500_000, B3500000), (4_000_000, B4000000),
        ]
    #else
        /// CCTS_OFLOW | CRTS_IFLOW.
        private static let hardwareFlowControl: tcflag_t = 0x0003_0000
        private static let speeds: [(UInt32, Int32)] = [
            1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400,
        ].map { ($0, Int32($0)) }
    #endif

    /// The baud rates the terminal interface has a constant for.
    public static var supportedSpeeds: [UInt32] { speeds.map(\.0) }

    private static func baudConstant(_ speed: UInt32) -> speed_t? {
        speeds.first { $0.0 == speed }.map { speed_t($0.1) }
    }
}
