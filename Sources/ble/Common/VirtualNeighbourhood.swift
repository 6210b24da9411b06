import BLE
import BLEDevices

/// The devices around a command on the virtual radio (`--transport virtual`, the default), so
/// that `ble scan`, `gatt-dump`, `read`, `write` and `subscribe` have something to talk to:
///
/// - `HRS-1` at 00:00:5E:00:53:10: a heart-rate sensor (Heart Rate, Battery, Device
///   Information), as in `ble demo`; it notifies a measurement every second.
/// - `LOG-2` at 00:00:5E:00:53:20: a data logger with a 128-bit custom service — a long log
///   (read with Read Blob), a writable configuration, a write-without-response command, an
///   event it indicates every second, and a value that needs encryption.
/// - `TAG-3` at 00:00:5E:00:53:30: a tag with only a Battery service.
/// - `HEADSET` at 00:00:5E:00:53:40: a `VirtualHeadset` (headset protocol v1, firmware 1.0.0,
///   flash in memory), so that `ble ota` has a device to update.
///
/// The command's own controller is at 00:00:5E:00:53:C0, at the origin; the devices stand one
/// to four metres away.
final class VirtualNeighbourhood: Sendable {
    static let commandAddress = BluetoothAddress(0x0000_5E00_53C0)
    static let commandPosition = AirPosition.origin

    static let devices: [SampleDevice] = [SampleDevices.heartRateSensor, SampleDevices.dataLogger, SampleDevices.tag]

    static let headsetAddress = BluetoothAddress(0x0000_5E00_5340)
    static let headsetPosition = AirPosition(x: 4)

    let running: [RunningSampleDevice]
    let headset: VirtualHeadset

    private init(running: [RunningSampleDevice], headset: VirtualHeadset) {
        self.running = running
        self.headset = headset
    }

    /// Starts every device on `radio`; call inside its simulation.
    static func start(on radio: VirtualRadio) async throws -> VirtualNeighbourhood {
        var running: [RunningSampleDevice] = []
        for device in devices { running.append(try await RunningSampleDevice.start(device, on: radio)) }
        let headset = try await VirtualHeadset.start(
            on: radio, position: headsetPosition,
            configuration: VirtualHeadsetConfiguration(macAddress: headsetAddress, heartbeatPeriod: .seconds(1)))
        return VirtualNeighbourhood(running: running, headset: headset)
    }

    func close() async {
        for device in running { device.stop() }
        await headset.stop()
    }
}
