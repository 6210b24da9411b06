import BLE
import BLEHost
import BLEWire
import BLELocking
import BLESimulation
import Foundation
import Logging

/// The phone's Bluetooth service (bluetoothd): one central and one peripheral manager on the
/// phone's own radio, shared by every app. Links, pending connects and subscriptions belong to
/// it, so they outlive an app's suspension and kill; it hands each app its events through the
/// phone (`Phone.offer`) and keeps each app's restoration record.
///
/// Apps are clients (`PhoneCentralManager`, `PhonePeripheralManager`), one entry per app and
/// manager. A link is held by every app whose connect completed or waits: one app's
/// `cancelPeripheralConnection` ends only its own hold, and the link goes down when the last
/// holder leaves (as bluetoothd keeps a link while any app uses it). A characteristic's Client
/// Characteristic Configuration is written by the first app to subscribe and cleared by the last.
///
/// It runs on the executor of its central manager's host (the simulation's, on a virtual
/// radio), so calls into its managers switch in place.
package actor SystemBluetooth {
    package let radio: Radio
    package let logger: Logger
    package weak var phone: Phone?
    /// The phone's central manager: the one scan, every link and pending connect.
    package nonisolated let central: CentralManager
    /// The phone's peripheral manager: the one GATT server and advertisement (nil when it
    /// could not be made; peripheral managers then report `.unsupported`).
    package nonisolated let peripheralManager: PeripheralManager?
    /// Where tasks of the service run (the simulation's executor on a virtual radio).
    nonisolated let taskExecutor: (any TaskExecutor)?

    package nonisolated var unownedExecutor: UnownedSerialExecutor { central.unownedExecutor }

    /// Every app that made a manager, or has one preserved.
    var apps: [AppIdentifier: AppBluetooth] = [:]
    /// Every app's execution state, as the phone reports it.
    var appStates: [AppIdentifier: AppState] = [:]
    /// When each app last came to the front (for alerts: the most recently foregrounded app).
    var foregroundedAt: [AppIdentifier: Int] = [:]
    /// Whether the user or the system turned the radio off (`radioPowerChanged(on:)`).
    var radioOn = true
    /// Whether the system scan is (being) started, and the task reading it.
    var systemScanOn = false
    var systemScan: Task<Void, Never>?
    /// When set, deliveries go here instead of to the phone (tests and tools that play the
    /// phone's part).
    var deliveryInterceptor: (@Sendable (AppBluetoothDelivery, AppIdentifier) -> Void)?
    /// Peripherals whose values are taken (`watch`), by identifier.
    var watched: Set<UUID> = []
    /// Whether the phone runs on this service's executor (a virtual radio of the phone's
    /// simulation), so that `send` hands it deliveries in place. Release builds do not check
    /// the isolation of an in-place call (`inPlace(passing:)`): this identity is what makes it
    /// hold.
    var phoneSharesExecutor = false
    /// Deliveries `send` cannot hand over in place, for the task `attach` starts, which offers
    /// them in order.
    var offers: EventStream<PendingOffer>.Continuation?
    /// Who holds which link and subscription (the decisions; this actor carries them out).
    var links = LinkTable()
    /// Per characteristic notifying apps: the words of its notifications' summaries and its
    /// coalescing key, made again only when the peripheral's name (or, for the summary, the
    /// value's length) changes (one a second for a day would otherwise format the same UUIDs
    /// 86,400 times).
    var notificationLabels: [CharacteristicKey: NotificationLabel] = [:]
    /// The system's connect attempts, by peripheral, each with its token.
    var attempts: [UUID: (token: UInt64, task: Task<Void, Never>)] = [:]
    var nextAttempt: UInt64 = 0
    /// The advertisement the peripheral manager sends now.
    var advertised: AdvertisementData?
    /// Counts what went wrong without an app to tell (each also logged).
    package internal(set) var statistics = SystemBluetoothStatistics()
    /// Foreground arrivals, counted (the most recent wins the alerts).
    var foregroundClock = 0
    var pumps: [Task<Void, Never>] = []
    /// Deliveries the phone made when no manager of the app was attached (counted where the
    /// phone calls them, outside the actor).
    nonisolated let unattachedDeliveries = Locked(0)
    /// Told when what the restoration record holds may have changed (SystemBluetooth+Changes).
    var restorationChanged: (@Sendable () -> Void)?

    /// The service on a new host of `radio`. With `knownPeripheralsFile`, the central manager
    /// remembers every peripheral it sees in that file, so that a new process restoring a
    /// record (`restore(_:for:)`) can connect to the peripherals of the old one; a file that
    /// cannot be read is logged and not used.
    package init(radio: Radio, logger: Logger, knownPeripheralsFile: String? = nil) async {
        self.radio = radio
        self.logger = logger
        taskExecutor = Self.taskExecutor(of: radio)
        if let knownPeripheralsFile {
            do {
                central = try await CentralManager(radio: radio, knownPeripheralsFile: knownPeripheralsFile)
            } catch {
                logger.error("system Bluetooth: known peripherals not used: \(error)")
                central = await CentralManager(radio: radio)
            }
        } else {
            central = await CentralManager(radio: radio)
        }
        if Self.isTransport(radio) {
            // A transport reaches one controller, which takes one host: a second host would
            // reset it under the central's. Peripheral managers report `.unsupported` there.
            logger.notice("system Bluetooth: on a transport, the phone has no peripheral manager")
            peripheralManager = nil
        } else {
            do {
                peripheralManager = try await PeripheralManager(radio: radio)
            } catch {
                logger.error("system Bluetooth: no peripheral manager: \(error)")
                peripheralManager = nil
            }
        }
        await powerOn()
        startPumps()
    }

    private static func taskExecutor(of radio: Radio) -> (any TaskExecutor)? {
        switch radio {
        case .virtual(let virtual, _, _): virtual.simulation.executor
        case .captured(let inner, _): taskExecutor(of: inner)
        case .transport: nil
        }
    }

    private static func isTransport(_ radio: Radio) -> Bool {
        switch radio {
        case .virtual: false
        case .captured(let inner, _): isTransport(inner)
        case .transport: true
        }
    }

    package func attach(to phone: Phone) {
        self.phone = phone
        phoneSharesExecutor = (central.stack.executor as AnyObject) === phone.simulation.executor
        guard !phoneSharesExecutor, offers == nil else { return }
        let (stream, continuation) = EventStream.makeStream(of: PendingOffer.self)
        offers = continuation
        spawn {
            for await offer in stream { await offer.phone.offer(offer.delivery, to: offer.app) }
        }
    }

    /// Sends deliveries to `interceptor` instead of the phone (nil: to the phone again).
    package func interceptDeliveries(_ interceptor: (@Sendable (AppBluetoothDelivery, AppIdentifier) -> Void)?) {
        deliveryInterceptor = interceptor
    }

    /// Starts a task of the service (on the simulation, so virtual time waits for it).
    @discardableResult
    nonisolated func spawn(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: taskExecutor, operation: operation)
    }

    // MARK: State

    package var centralState: ManagerState {
        get async { await central.state }
    }

    package var peripheralManagerState: ManagerState {
        get async { await peripheralManager?.state ?? .unsupported }
    }

    /// The app's execution state changed: its scans and advertising follow the background
    /// rules (Core Bluetooth Programming Guide, "Core Bluetooth Background Processing for iOS
    /// Apps").
    package func appStateChanged(_ app: AppIdentifier, to state: AppState) async {
        let wasInFront = isInFront(app)
        appStates[app] = state
        if isInFront(app), !wasInFront {
            foregroundClock += 1
            foregroundedAt[app] = foregroundClock
        }
        await refreshScan()
        await refreshAdvertising()
    }

    /// Whether the app is in front (active or inactive).
    func isInFront(_ app: AppIdentifier) -> Bool {
        switch appStates[app] ?? .notRunning {
        case .active, .inactive: true
        case .background, .suspended, .notRunning: false
        }
    }

    /// How `app`'s scans are treated now.
    func scanMode(_ app: AppIdentifier) -> ScanMode {
        guard let entry = apps[app] else { return .paused }
        if isInFront(app) { return .foreground }
        return entry.declaration.backgroundModes.contains(.bluetoothCentral) ? .background : .paused
    }

    /// How `app`'s advertising is treated now.
    func advertisingMode(_ app: AppIdentifier) -> AdvertisingMode {
        guard let entry = apps[app] else { return .off }
        if isInFront(app) { return .foreground }
        return entry.declaration.backgroundModes.contains(.bluetoothPeripheral) ? .background : .off
    }

    // MARK: Offering events

    /// Hands `delivery` to the phone, which decides when the app sees it, without waiting: in
    /// place when the phone runs on this service's executor (every caller is isolated to the
    /// service, so it is on the phone's executor then), else to the task that offers them one
    /// after the other — every delivery the same way, so they reach the phone in the order
    /// they were sent.
    func send(_ delivery: AppBluetoothDelivery, to app: AppIdentifier) {
        guard let phone = route(delivery, to: app) else { return }
        if phoneSharesExecutor {
            phone.inPlace(passing: (delivery, app)) { $0.offer($1.0, to: $1.1) }
            return
        }
        guard offers?.yield(PendingOffer(phone: phone, delivery: delivery, app: app)) == .enqueued else {
            statistics.undelivered += 1
            logger.warning("system Bluetooth: offers to the phone have ended; \(app)'s \(delivery.kind) (\(delivery.summary)) not delivered")
            return
        }
    }

    /// The phone to hand `delivery` to; nil when the interceptor took it, or when there is no
    /// phone (counted and logged).
    func route(_ delivery: AppBluetoothDelivery, to app: AppIdentifier) -> Phone? {
        if let deliveryInterceptor {
            deliveryInterceptor(delivery, app)
            return nil
        }
        guard let phone else {
            statistics.undelivered += 1
            logger.warning("system Bluetooth: no phone for \(app)'s \(delivery.kind) (\(delivery.summary))")
            return nil
        }
        return phone
    }

    /// Offers a central-manager event; `make` builds it with the manager attached when the
    /// phone delivers it.
    func offerCentral(
        _ app: AppIdentifier, _ id: ManagerID, _ kind: BluetoothEventKind, _ summary: String,
        coalescingKey: String? = nil, alert: String? = nil,
        _ make: @escaping @Sendable (PhoneCentralManager) -> PhoneCentralManagerEvent
    ) {
        guard
            let delivery = centralDelivery(
                app, id, kind, summary, coalescingKey: coalescingKey, alert: alert, make)
        else { return }
        send(delivery, to: app)
    }

    /// A central-manager event for `app`'s manager `id`, nil when the app has no such manager.
    func centralDelivery(
        _ app: AppIdentifier, _ id: ManagerID, _ kind: BluetoothEventKind, _ summary: String,
        coalescingKey: String?, alert: String?,
        _ make: @escaping @Sendable (PhoneCentralManager) -> PhoneCentralManagerEvent
    ) -> AppBluetoothDelivery? {
        guard let mailbox = apps[app]?.centrals[id]?.mailbox else { return nil }
        let logger = self.logger
        let lost = unattachedDeliveries
        return AppBluetoothDelivery(
            manager: id, kind: kind, summary: summary, coalescingKey: coalescingKey, alert: alert
        ) {
            let delivered = mailbox.deliver { manager in manager.yield(make(manager)) }
            guard !delivered else { return }
            lost.withLock { $0 += 1 }
            logger.warning("system Bluetooth: \(app)'s \(id) is not attached; \(kind) not delivered")
        }
    }

    /// Offers a peripheral-manager event.
    func offerPeripheral(
        _ app: AppIdentifier, _ id: ManagerID, _ kind: BluetoothEventKind, _ summary: String,
        coalescingKey: String? = nil, _ event: PhonePeripheralManagerEvent
    ) {
        guard let mailbox = apps[app]?.peripherals[id]?.mailbox else { return }
        let logger = self.logger
        let lost = unattachedDeliveries
        let delivery = AppBluetoothDelivery(manager: id, kind: kind, summary: summary, coalescingKey: coalescingKey) {
            let delivered = mailbox.deliver { manager in manager.yield(event) }
            guard !delivered else { return }
            lost.withLock { $0 += 1 }
            logger.warning("system Bluetooth: \(app)'s \(id) is not attached; \(kind) not delivered")
        }
        send(delivery, to: app)
    }

    /// A name that came over the air, quoted for summaries and alerts.
    nonisolated static func quoted(_ name: String?) -> String {
        name.map(TerminalText.quoted) ?? "unnamed"
    }
}

/// What the system Bluetooth service could not hand to an app or do, counted.
package struct SystemBluetoothStatistics: Sendable, Hashable {
    /// Events with no phone to offer them to.
    package var undelivered = 0
    /// Requests for characteristics no app owns any more (answered with an error).
    package var orphanRequests = 0
    /// Reads of a foreground-only app's values while it is in the background (refused).
    package var refusedReads = 0
    /// Advertising the controller refused.
    package var advertisingFailures = 0
    /// Restore identifiers the declaration does not list (ignored).
    package var undeclaredRestoreIdentifiers = 0
}

/// A delivery on its way to the phone from a service on another executor (`send`).
struct PendingOffer: Sendable {
    /// Held until the offer is made: what was routed to it is not lost on the way.
    let phone: Phone
    let delivery: AppBluetoothDelivery
    let app: AppIdentifier
}
