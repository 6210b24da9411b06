import BLE
import BLECompanion
import BLELocking
import BLESimulation

/// Two `DeviceConnection`s wired back to back on a simulation: what one sends in chunks of
/// `chunkLength` the other receives. The app end speaks `HeadsetAppMessage`, the device end
/// `HeadsetDeviceMessage`.
struct Loopback: Sendable {
    typealias AppEnd = DeviceConnection<HeadsetAppMessage, HeadsetDeviceMessage>
    typealias DeviceEnd = DeviceConnection<HeadsetDeviceMessage, HeadsetAppMessage>

    let app: AppEnd
    let device: DeviceEnd
    /// Where the device end's chunks go: the app end (tests inject raw octets through it).
    private let deviceTarget: Target<AppEnd>

    final class Target<Connection: Sendable>: Sendable {
        let connection = Locked<Connection?>(nil)
        var value: Connection? { connection.withLock { $0 } }
    }

    init(simulation: Simulation, chunkLength: Int = 20, configuration: DeviceLinkConfiguration) {
        let executor = simulation.executor.asUnownedSerialExecutor()
        let toDevice = Target<DeviceEnd>()
        let toApp = Target<AppEnd>()
        let app = AppEnd(
            executor: executor,
            transport: DeviceChunkTransport(
                maximumChunkLength: { chunkLength },
                send: { chunk in await toDevice.value?.receive(chunk) }),
            configuration: configuration, maximumPayloadLength: HeadsetProtocol.maximumPayloadLength)
        let device = DeviceEnd(
            executor: executor,
            transport: DeviceChunkTransport(
                maximumChunkLength: { chunkLength },
                send: { chunk in await toApp.value?.receive(chunk) }),
            configuration: configuration, maximumPayloadLength: HeadsetProtocol.maximumPayloadLength)
        toDevice.connection.withLock { $0 = device }
        toApp.connection.withLock { $0 = app }
        self.app = app
        self.device = device
        deviceTarget = toApp
    }

    /// Delivers raw octets to the app end, as if the device had sent them.
    func injectToApp(_ octets: [UInt8]) async {
        await deviceTarget.value?.receive(octets)
    }
}
