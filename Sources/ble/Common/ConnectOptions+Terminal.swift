import BLE

extension ConnectOptions {
    /// A command a user waits for at a terminal gives up on a device that does not answer,
    /// where an app's `connect` (Core Bluetooth's) waits until the device appears.
    static let atTerminal = ConnectOptions(timeout: .seconds(10))
}
