/// The app's Core Bluetooth managers, clients of the phone's system Bluetooth service.
extension AppContext {
    /// A central manager (`CBCentralManager(delegate:queue:options:)`). With a restore
    /// identifier listed in the app's declaration, the system preserves its scan, links,
    /// pending connects and subscriptions across the app's death, and a manager made again
    /// with that identifier after a relaunch first gets `.willRestoreState` (Core Bluetooth
    /// Programming Guide, "Adding Support for State Preservation and Restoration"). An
    /// identifier the declaration does not list is ignored, with a warning.
    public func centralManager(restoreIdentifier: String? = nil) async -> PhoneCentralManager {
        await phone.bluetooth.makeCentralManager(for: self, restoreIdentifier: restoreIdentifier)
    }

    /// A peripheral manager (`CBPeripheralManager(delegate:queue:options:)`), restored as the
    /// central manager is when made with a restore identifier.
    public func peripheralManager(restoreIdentifier: String? = nil) async -> PhonePeripheralManager {
        await phone.bluetooth.makePeripheralManager(for: self, restoreIdentifier: restoreIdentifier)
    }
}
