// CONTRACT PLACEHOLDER (owned by the runtime helper, who replaces these bodies): what the system
// Bluetooth service asks of the phone.

extension Phone {
    /// The system service has `delivery` for `app`: deliver it now, wake the app for it, queue it
    /// until the app comes to the front, relaunch the app for it (state restoration, per the
    /// profile's relaunch rules), or drop it (traced and counted).
    package func offer(_ delivery: AppBluetoothDelivery, to app: AppIdentifier) {
        record(.eventDelivered(delivery.kind, summary: delivery.summary), app: app)
        delivery.deliver()
    }

    /// The app instance made `manager` (after its restoration and first state events were
    /// handed to it): events queued for it may now flow.
    package func managerAttached(_ manager: ManagerID, of app: AppIdentifier) {}

    /// The app's current state (what the Bluetooth service's background rules need).
    package func state(of app: AppIdentifier) -> AppState { .notRunning }
}
