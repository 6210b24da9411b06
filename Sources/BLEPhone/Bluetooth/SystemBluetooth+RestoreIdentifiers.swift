// Added by the phone runtime for the relaunch's launch options; the Bluetooth service's owner
// fills it from the restoration record (empty until then: the phone then names the managers
// of the events that caused the relaunch).

extension SystemBluetooth {
    /// The restore identifiers of the app's preserved managers (UIApplication.LaunchOptionsKey
    /// `.bluetoothCentrals` / `.bluetoothPeripherals`).
    package func restoreIdentifiers(for app: AppIdentifier) -> (centrals: [String], peripherals: [String]) {
        ([], [])
    }
}
