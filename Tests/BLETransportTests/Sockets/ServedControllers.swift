import BLEController
import BLEHost
import BLELocking
import BLETestSupport
import BLETransport
import BLEVirtualHCI
import BLEWire
import Testing

/// Virtual controllers on one paced radio (real time), served by a `VirtualControllerServer`,
/// and our hosts connected to them over sockets, each on its own serial thread.
final class ServedControllers: Sendable {
    let radio: VirtualRadio
    let server: VirtualControllerServer
    let listeners: [VirtualControllerServer.Listener]
    private let hosts = Locked<[(Host, SerialThreadExecutor)]>([])

    private init(radio: VirtualRadio, server: VirtualControllerServer, listeners: [VirtualControllerServer.Listener]) {
        self.radio = radio
        self.server = server
        self.listeners = listeners
    }

    /// One controller per moniker, 2 m apart on a line.
    static func make(
        _ monikers: [TransportMoniker], limits: VirtualControllerServer.ClientLimits = .init()
    ) async throws -> ServedControllers {
        let radio = VirtualRadio(pacing: .paced(rate: 1))
        let server = VirtualControllerServer(limits: limits)
        var listeners: [VirtualControllerServer.Listener] = []
        do {
            for (index, moniker) in monikers.enumerated() {
                let port = await radio.addController(at: AirPosition(x: 2 * Double(index), y: 0, z: 0))
                listeners.append(try await server.listen(on: moniker, serving: port))
            }
        } catch {
            await server.close()
            throw error
        }
        return ServedControllers(radio: radio, server: server, listeners: listeners)
    }

    /// Where a host connects to reach listener `index`.
    func clientMoniker(_ index: Int) -> TransportMoniker {
        switch listeners[index].moniker {
        case .tcpServer(let host, let port): .tcpClient(host: host, port: port)
        case let other: other
        }
    }

    /// A host (not started) connected to listener `index`, on its own thread and real time.
    ///
    /// The fixture owns the thread (a host that owns its executor ends the thread when it stops,
    /// after which even a second `stop()` would never run), and ends it in `close()`.
    func host(on index: Int, mtu: Int = 247) async throws -> Host {
        let transport = try await clientMoniker(index).openHostTransport()
        var configuration = HostConfiguration()
        configuration.preferredATTMTU = mtu
        configuration.commandTimeout = SanitizerAllowance.remoteControllerCommandTimeout
        let executor = SerialThreadExecutor(name: "swift-ble test host \(index)")
        let host = Host(transport: transport, executor: executor, configuration: configuration)
        hosts.withLock { $0.append((host, executor)) }
        return host
    }

    /// The public address of listener `index`'s controller.
    func address(_ index: Int) async -> BluetoothAddress {
        await listeners[index].port.withController { $0.publicAddress }
    }

    /// Stops every host (their threads end) and closes the server (ports and sockets).
    func close() async {
        for (host, executor) in hosts.withLock({ $0 }) {
            await host.stop()
            executor.shutdown()
        }
        await server.close()
    }
}

/// Runs `body` with served controllers and cleans up whatever happens.
func withServedControllers(
    _ monikers: [TransportMoniker], limits: VirtualControllerServer.ClientLimits = .init(),
    _ body: (ServedControllers) async throws -> Void
) async throws {
    let served = try await ServedControllers.make(monikers, limits: limits)
    do {
        try await body(served)
    } catch {
        await served.close()
        throw error
    }
    await served.close()
}

/// The first element `match` maps to a value; nil if the stream ends first.
func first<Element, T>(_ iterator: inout AsyncStream<Element>.Iterator, _ match: (Element) -> T?) async -> T? {
    while let element = await iterator.next() {
        if let value = match(element) { return value }
    }
    return nil
}

/// The same for the host's event stream.
func first<Element, T>(_ iterator: inout EventStream<Element>.Iterator, _ match: (Element) -> T?) async -> T? {
    while let element = await iterator.next() {
        if let value = match(element) { return value }
    }
    return nil
}

/// The handle of the next connection a host reports; throws if it failed or the host stopped.
func nextConnection(_ events: inout EventStream<HostEvent>.Iterator) async throws -> ConnectionHandle {
    while let event = await events.next() {
        if case .connected(let info) = event { return info.handle }
        if case .connectionFailed(let status) = event {
            throw HostError.commandFailed(HCI.LECreateConnection.opcode, status)
        }
    }
    throw HostError.stopped
}

extension Host {
    /// Legacy connectable advertising every 20 ms (Core 5.4 Vol 4 Part E §7.8.5, §7.8.7, §7.8.9).
    func advertise() async throws {
        try await send(HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0x0020, advertisingIntervalMax: 0x0020))
        try await send(HCI.LESetAdvertisingData(advertisingData: [0x02, 0x01, 0x06]))
        try await send(HCI.LESetAdvertisingEnable(advertisingEnable: true))
    }

    /// HCI_LE_Create_Connection to a public address: 7.5 ms interval, the given supervision
    /// timeout in 10 ms units (Core 5.4 Vol 4 Part E §7.8.12).
    func connect(to address: BluetoothAddress, supervisionTimeout: UInt16 = 100) async throws {
        try await send(
            HCI.LECreateConnection(
                leScanInterval: 0x0010, leScanWindow: 0x0010, peerAddressType: .public, peerAddress: address,
                connectionParameters: HCI.ConnectionParameters(
                    connectionIntervalMin: 6, connectionIntervalMax: 6, supervisionTimeout: supervisionTimeout,
                    minCELength: 0, maxCELength: 0)))
    }
}
