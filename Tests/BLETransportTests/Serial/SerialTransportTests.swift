#if canImport(Glibc)
    import Glibc
#endif
import BLEController
import BLEHost
import BLETestSupport
import BLEVirtualHCI
import BLEWire
import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import BLETransport

/// A pseudo-terminal pair: the test holds the master side and plays the controller; the host
/// opens the slave side as a serial device.
struct PseudoTerminal {
    let master: Int32
    let slavePath: String

    /// Opens the pseudo-terminal multiplexer, unlocks the new pair and reads its number
    /// (posix_openpt, unlockpt and ptsname, through the ioctls they are made of on Linux).
    static func open() throws -> PseudoTerminal {
        let master = Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let TIOCSPTLCK: UInt = 0x4004_5431
        let TIOCGPTN: UInt = 0x8004_5430
        guard ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
            close(master)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return PseudoTerminal(master: master, slavePath: "/dev/pts/\(number)")
    }
}

/// Forwards what the master side reads to a virtual controller, as the host's H4 stream.
final class ControllerBridgeHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let port: VirtualControllerPort

    init(port: VirtualControllerPort) { self.port = port }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        port.send(Array(unwrapInboundIn(data).readableBytesView))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The slave side closed (EIO on the master): the bridge ends.
        context.close(promise: nil)
    }
}

@Suite("Serial H4 transport (UART, Core 5.4 Vol 4 Part A §2) on a pseudo-terminal", .timeLimit(.minutes(1)))
struct SerialTransportTests {
    @Test("A host initialises a virtual controller over serial:<pty> (raw tty, H4 both ways)")
    func hostOverPseudoTerminal() async throws {
        let terminal = try PseudoTerminal.open()
        let radio = VirtualRadio(pacing: .paced(rate: 1))
        let port = await radio.addController(at: .origin)
        let master = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ControllerBridgeHandler(port: port))
                }
            }
            .takingOwnershipOfDescriptor(inputOutput: terminal.master).get()
        port.setReceiver { bytes in master.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil) }

        let moniker = try TransportMoniker(parsing: "serial:\(terminal.slavePath),115200,rtscts")
        let transport = try await moniker.openHostTransport()
        let serial = try #require(transport as? SerialTransport)
        #expect(serial.line.speed == 115_200 && serial.line.rtsCTS)
        let executor = SerialThreadExecutor(name: "swift-ble serial test host")
        var configuration = HostConfiguration()
        configuration.commandTimeout = SanitizerAllowance.remoteControllerCommandTimeout
        let host = Host(transport: transport, executor: executor, configuration: configuration)
        try await host.start()
        let expected = await port.withController { $0.publicAddress }
        #expect(await host.controllerInfo.address == expected)
        #expect(await host.controllerInfo.leFeatures.contains(.leExtendedAdvertising))
        await host.stop()
        executor.shutdown()
        try? await master.close()
    }

    @Test("The line is set raw at the asked speed with RTS/CTS flow control, CLOCAL and CREAD")
    func lineSettings() async throws {
        let terminal = try PseudoTerminal.open()
        defer { close(terminal.master) }
        let transport = try await SerialTransport.open(.init(device: terminal.slavePath, speed: 921_600, rtsCTS: true))
        let probe = open(terminal.slavePath, O_RDWR | O_NOCTTY)
        #expect(probe >= 0)
        defer { close(probe) }
        var settings = termios()
        #expect(tcgetattr(probe, &settings) == 0)
        #expect(cfgetospeed(&settings) == speed_t(B921600))
        #expect(settings.c_cflag & 0o20000000000 != 0)  // CRTSCTS
        #expect(settings.c_cflag & tcflag_t(CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))
        #expect(settings.c_lflag & tcflag_t(ICANON | ECHO) == 0)
        #expect(settings.c_oflag & tcflag_t(OPOST) == 0)
        await transport.close()
    }

    @Test("Opening fails with typed errors: no such device (naming it), not a tty, unsupported speed, DSR/DTR")
    func openErrors() async throws {
        await #expect(throws: SerialLineError.noSuchDevice(path: "/dev/ttyNOPE42")) {
            _ = try await SerialTransport.open(.init(device: "/dev/ttyNOPE42"))
        }
        #expect(SerialLineError.noSuchDevice(path: "/dev/ttyNOPE42").description.contains("/dev/ttyNOPE42"))
        let file = TemporaryPath()
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data([1, 2, 3])))
        defer { file.remove() }
        await #expect(throws: SerialLineError.notATerminal(path: file.path)) {
            _ = try await SerialTransport.open(.init(device: file.path))
        }
        await #expect(throws: SerialLineError.unsupportedSpeed(250_000)) {
            _ = try await SerialTransport.open(.init(device: "/dev/ttyNOPE42", speed: 250_000))
        }
        #expect(SerialLineError.unsupportedSpeed(250_000).description.contains("1000000"))
        await #expect(throws: SerialLineError.unsupportedFlowControl("DSR/DTR")) {
            _ = try await SerialTransport.open(.init(device: "/dev/ttyNOPE42", dsrDTR: true))
        }
    }
}
