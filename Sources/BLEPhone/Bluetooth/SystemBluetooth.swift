import BLE
import BLESimulation
import Logging

// CONTRACT PLACEHOLDER (owned by the Bluetooth helper, who builds it out): the phone's system
// Bluetooth service.

/// The phone's Bluetooth service (bluetoothd): one central and one peripheral manager on the
/// phone's own host and controller, shared by every app. Links, pending connects and
/// subscriptions belong to it, so they outlive an app's suspension and kill; it hands each app
/// its events through the phone (`Phone.offer`) and keeps each app's restoration record.
package actor SystemBluetooth {
    package let radio: Radio
    package let logger: Logger
    package weak var phone: Phone?

    package init(radio: Radio, logger: Logger) async {
        self.radio = radio
        self.logger = logger
    }

    package func attach(to phone: Phone) {
        self.phone = phone
    }

    /// The app's execution state changed (background rules for scans and advertising).
    package func appStateChanged(_ app: AppIdentifier, to state: AppState) async {}

    /// The app's process ended: keep what its restore identifiers preserve, end the rest.
    package func appTerminated(_ app: AppIdentifier, reason: TerminationReason) async {}

    /// What the system preserved for the app's managers (state preservation), or nil.
    package func restorationRecord(for app: AppIdentifier) -> RestorationRecord? { nil }

    /// The user or the system turned the radio off or on.
    package func radioPowerChanged(on: Bool) async {}
}
