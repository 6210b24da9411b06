import BLE
import BLECompanion
import BLEPhone

extension DeviceChunkLink {
    /// A device-protocol link over a phone app's Core Bluetooth: frames go to `toDevice` as
    /// writes without response, each chunk at most `maximumWriteValueLength(for:
    /// .withoutResponse)`; the system's peripheral waits for transmit room before each
    /// (Core Bluetooth's `canSendWriteWithoutResponse`), so the OTA engine never overruns the
    /// link. The app hands the to-app characteristic's notifications to `receive(_:)` and
    /// closes the link on `didDisconnectPeripheral`. Runs on the app's executor.
    public static func phone(
        _ peripheral: PhonePeripheral, writingTo toDevice: Characteristic, configuration: DeviceLinkConfiguration
    ) -> DeviceChunkLink<P> {
        let transport = DeviceChunkTransport(
            maximumChunkLength: { await peripheral.maximumWriteValueLength(for: .withoutResponse) },
            send: { chunk throws(DeviceProtocolError) in
                do throws(BLEError) {
                    try await peripheral.writeValue(chunk, for: toDevice, type: .withoutResponse)
                } catch {
                    throw .ble(error)
                }
            })
        return DeviceChunkLink(
            executor: peripheral.unownedExecutor, executorOwner: peripheral, transport: transport,
            isConnected: { await peripheral.state == .connected }, configuration: configuration)
    }
}
