import BLE
import Foundation

/// What a phone app's central manager reports: every `CBCentralManagerDelegate` callback, and
/// the `CBPeripheralDelegate` value updates of its peripherals, in the order the phone lets
/// them through (a suspended app's events wait for its wake or its return to the front).
public enum PhoneCentralManagerEvent: Sendable {
    /// `centralManagerDidUpdateState(_:)`.
    case stateUpdated(ManagerState)
    /// `centralManager(_:willRestoreState:)`: always the first event of a manager the system
    /// restored, before its first `.stateUpdated` (Core Bluetooth Programming Guide, "Adding
    /// Support for State Preservation and Restoration").
    case willRestoreState(RestoredState)
    /// `centralManager(_:didDiscover:advertisementData:rssi:)`.
    case discovered(PhonePeripheral, AdvertisementData, rssi: Int)
    /// `centralManager(_:didConnect:)`.
    case connected(PhonePeripheral)
    /// `centralManager(_:didFailToConnect:error:)`.
    case failedToConnect(PhonePeripheral, BLEError)
    /// `centralManager(_:didDisconnectPeripheral:error:)`: the controller's reason, or 0x16
    /// (Connection Terminated by Local Host) when this app cancelled and the link stays up
    /// for another app that holds it.
    case disconnected(PhonePeripheral, reason: HCIStatus)
    /// `peripheral(_:didUpdateValueFor:error:)` for a notification or indication.
    case valueUpdated(PhonePeripheral, Characteristic, [UInt8])
}

/// What a phone app's peripheral manager reports (`CBPeripheralManagerDelegate`).
public enum PhonePeripheralManagerEvent: Sendable {
    /// `peripheralManagerDidUpdateState(_:)`.
    case stateUpdated(ManagerState)
    /// `peripheralManager(_:willRestoreState:)`, first, before the first `.stateUpdated`.
    case willRestoreState(RestoredPeripheralManagerState)
    /// `peripheralManager(_:didReceiveRead:)`: answer with `respond(to:withResult:)`.
    case readRequest(ATTRequest)
    /// `peripheralManager(_:didReceiveWrite:)`: answer the first with `respond(to:withResult:)`
    /// (Write Commands need no answer).
    case writeRequests([ATTRequest])
    /// `peripheralManager(_:central:didSubscribeTo:)`.
    case subscribed(Central, Characteristic)
    /// `peripheralManager(_:central:didUnsubscribeFrom:)`.
    case unsubscribed(Central, Characteristic)
    /// `peripheralManagerIsReady(toUpdateSubscribers:)`, after `updateValue` returned false.
    case readyToUpdateSubscribers
}

/// What `centralManager(_:willRestoreState:)` hands back: the dictionary's
/// `CBCentralManagerRestoredStatePeripheralsKey`, `…ScanServicesKey` and `…ScanOptionsKey`.
public struct RestoredState: Sendable {
    /// The peripherals the system kept for the app: `.connected`, or `.connecting` for a
    /// pending connect (phone-rules.md correction 2: connect them again once powered on).
    public var peripherals: [PhonePeripheral]
    /// The services of the scan in progress, when there was one (nil: no scan, or a scan for
    /// every peripheral).
    public var scanServices: [BluetoothUUID]?
    /// The scan's options, when there was a scan.
    public var scanOptions: PhoneScanOptions?
    /// The characteristics the app was subscribed to, with their peripherals.
    public var subscriptions: [(peripheral: PhonePeripheral, characteristic: Characteristic)]
    /// Whether a scan was in progress.
    public var wasScanning: Bool { scanOptions != nil }
}

/// What `peripheralManager(_:willRestoreState:)` hands back:
/// `CBPeripheralManagerRestoredStateServicesKey` and `…AdvertisementDataKey`, plus the
/// centrals subscribed to the app's characteristics.
public struct RestoredPeripheralManagerState: Sendable {
    /// The app's services, still published.
    public var services: [Service]
    /// What the app was advertising (nil: it was not).
    public var advertisement: PhoneAdvertisement?
    /// The subscriptions to its characteristics.
    public var subscribedCentrals: [(central: Central, characteristic: Characteristic)]
}

/// Core Bluetooth's scan options (`CBCentralManagerScanOptionAllowDuplicatesKey`).
public struct PhoneScanOptions: Sendable, Hashable, Codable {
    /// Report every advertisement of a peripheral, not only the first (ignored in the
    /// background: Core Bluetooth Programming Guide, "Core Bluetooth Background Processing for
    /// iOS Apps").
    public var allowDuplicates: Bool

    public init(allowDuplicates: Bool = false) {
        self.allowDuplicates = allowDuplicates
    }
}

/// Core Bluetooth's connect options (`CBConnectPeripheralOptionNotifyOn…Key`): whether the
/// system shows an alert for the event while the app is suspended (Core Bluetooth Programming
/// Guide, "Core Bluetooth Background Processing for iOS Apps": the alert is how a foreground-only
/// app's user learns of the event).
public struct PhoneConnectOptions: Sendable, Hashable, Codable {
    public var notifyOnConnection: Bool
    public var notifyOnDisconnection: Bool
    public var notifyOnNotification: Bool

    public init(
        notifyOnConnection: Bool = false, notifyOnDisconnection: Bool = false, notifyOnNotification: Bool = false
    ) {
        self.notifyOnConnection = notifyOnConnection
        self.notifyOnDisconnection = notifyOnDisconnection
        self.notifyOnNotification = notifyOnNotification
    }
}

/// What an app asks to advertise: the only two keys Core Bluetooth's
/// `startAdvertising(_:)` supports (`CBAdvertisementDataLocalNameKey`,
/// `CBAdvertisementDataServiceUUIDsKey`).
public struct PhoneAdvertisement: Sendable, Hashable {
    public var localName: String?
    public var serviceUUIDs: [BluetoothUUID]

    public init(localName: String? = nil, serviceUUIDs: [BluetoothUUID] = []) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
    }
}
