import BLE
import Foundation

/// What the system preserves for an app's managers with restore identifiers (Core Bluetooth
/// Programming Guide, "Adding Support for State Preservation and Restoration"): per central
/// manager the scan's services and options, the connected and pending peripherals and the
/// subscriptions; per peripheral manager its services, advertising and subscribed centrals.
///
/// Codable: a daemon keeps it in a file between processes. UUIDs of services and
/// characteristics are kept as their text (`BluetoothUUID.description`'s parseable form).
public struct RestorationRecord: Sendable, Hashable, Codable {
    /// The app's background modes when the record was made (a restored process runs its
    /// preserved scans and advertising by them until the app declares itself again).
    public var backgroundModes: Set<BackgroundMode>
    public var centrals: [Central]
    public var peripheralManagers: [PeripheralManager]

    public init(
        backgroundModes: Set<BackgroundMode> = [], centrals: [Central] = [],
        peripheralManagers: [PeripheralManager] = []
    ) {
        self.backgroundModes = backgroundModes
        self.centrals = centrals
        self.peripheralManagers = peripheralManagers
    }

    public var isEmpty: Bool { centrals.isEmpty && peripheralManagers.isEmpty }

    /// A preserved central manager.
    public struct Central: Sendable, Hashable, Codable {
        public var restoreIdentifier: String
        /// The scan in progress (`CBCentralManagerRestoredStateScanServicesKey`,
        /// `…ScanOptionsKey`); nil when none.
        public var scan: Scan?
        /// Connected and pending peripherals (`CBCentralManagerRestoredStatePeripheralsKey`).
        public var peripherals: [Peripheral]
        public var subscriptions: [Subscription]

        public init(
            restoreIdentifier: String, scan: Scan? = nil, peripherals: [Peripheral] = [],
            subscriptions: [Subscription] = []
        ) {
            self.restoreIdentifier = restoreIdentifier
            self.scan = scan
            self.peripherals = peripherals
            self.subscriptions = subscriptions
        }
    }

    public struct Scan: Sendable, Hashable, Codable {
        /// Nil: a scan for every peripheral.
        public var services: [String]?
        public var options: PhoneScanOptions

        public init(services: [String]?, options: PhoneScanOptions) {
            self.services = services
            self.options = options
        }
    }

    public struct Peripheral: Sendable, Hashable, Codable {
        public enum State: String, Sendable, Hashable, Codable {
            case connected
            case connecting
        }

        public var identifier: UUID
        public var state: State
        public var options: PhoneConnectOptions

        public init(identifier: UUID, state: State, options: PhoneConnectOptions = .init()) {
            self.identifier = identifier
            self.state = state
            self.options = options
        }
    }

    public struct Subscription: Sendable, Hashable, Codable {
        public var peripheral: UUID
        public var service: String
        public var characteristic: String
        /// The characteristic's value handle on the peripheral.
        public var valueHandle: UInt16

        public init(peripheral: UUID, service: String, characteristic: String, valueHandle: UInt16) {
            self.peripheral = peripheral
            self.service = service
            self.characteristic = characteristic
            self.valueHandle = valueHandle
        }
    }

    /// A preserved peripheral manager.
    public struct PeripheralManager: Sendable, Hashable, Codable {
        public var restoreIdentifier: String
        /// The UUIDs of its published services (`CBPeripheralManagerRestoredStateServicesKey`;
        /// their definitions stay in the system's GATT server, not in the record).
        public var services: [String]
        /// What it advertised (`…AdvertisementDataKey`).
        public var localName: String?
        public var advertisedServiceUUIDs: [String]?
        public var subscribedCentrals: [SubscribedCentral]

        public init(
            restoreIdentifier: String, services: [String] = [], localName: String? = nil,
            advertisedServiceUUIDs: [String]? = nil, subscribedCentrals: [SubscribedCentral] = []
        ) {
            self.restoreIdentifier = restoreIdentifier
            self.services = services
            self.localName = localName
            self.advertisedServiceUUIDs = advertisedServiceUUIDs
            self.subscribedCentrals = subscribedCentrals
        }
    }

    public struct SubscribedCentral: Sendable, Hashable, Codable {
        public var central: UUID
        public var characteristic: String
        public var valueHandle: UInt16

        public init(central: UUID, characteristic: String, valueHandle: UInt16) {
            self.central = central
            self.characteristic = characteristic
            self.valueHandle = valueHandle
        }
    }
}
