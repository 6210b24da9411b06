import BLE
import BLECompanion
import BLELocking
import BLEPhone
import BLESimulation

/// What a probe app instance saw or did, in the order it saw it.
enum ProbeEvent: Sendable, Hashable {
    case launched(LaunchOptions)
    /// `willRestoreState`: the restored peripherals' states and how many subscriptions.
    case willRestoreState(peripherals: [PeripheralState], subscriptions: Int)
    case state(ManagerState)
    case discovered(localName: String?)
    case connected
    case failedToConnect
    case disconnected
    case subscribed
    /// A heartbeat tick of the headset, with its count.
    case heartbeat(UInt32)
    /// A firing of the app's own timer (on the app's clock).
    case appTimer
    /// A run of the device-driven job (every N heartbeats).
    case job
    /// Work started on a heartbeat, finished (it outlived the wake window: frozen, not lost).
    case workDone(UInt32)
    case expirationHandler
    case didEnterBackground
    case willEnterForeground
}

struct ProbeEntry: Sendable, Hashable {
    var launch: Int
    var time: VirtualInstant
    var event: ProbeEvent
}

/// The probe apps' record, kept outside their instances (whose memory is gone at a kill): what
/// each launch saw, at which virtual time, in order.
final class ProbeLog: Sendable {
    private let entries = Locked<[ProbeEntry]>([])
    let simulation: Simulation

    init(simulation: Simulation) {
        self.simulation = simulation
    }

    func add(_ event: ProbeEvent, launch: Int) {
        let now = simulation.now
        entries.withLock { $0.append(ProbeEntry(launch: launch, time: now, event: event)) }
    }

    var all: [ProbeEntry] { entries.withLock { $0 } }

    func entries(launch: Int) -> [ProbeEntry] { all.filter { $0.launch == launch } }

    /// The heartbeat counts seen, in order (of one launch, or of all).
    func heartbeats(launch: Int? = nil) -> [UInt32] {
        all.compactMap { entry in
            guard launch == nil || entry.launch == launch, case .heartbeat(let count) = entry.event else { return nil }
            return count
        }
    }

    func heartbeatEntries(launch: Int? = nil) -> [ProbeEntry] {
        all.filter { entry in
            guard launch == nil || entry.launch == launch, case .heartbeat = entry.event else { return false }
            return true
        }
    }

    func count(_ event: ProbeEvent, launch: Int? = nil) -> Int {
        all.filter { ($0.launch == launch || launch == nil) && $0.event == event }.count
    }

    func times(of event: ProbeEvent, launch: Int? = nil) -> [VirtualInstant] {
        all.filter { ($0.launch == launch || launch == nil) && $0.event == event }.map(\.time)
    }
}

/// How a probe app behaves.
struct ProbeConfiguration: Sendable {
    enum TaskBehaviour: Sendable {
        case none
        /// Begin a task on leaving the screen and end it in its expiration handler.
        case endInHandler
        /// Begin a task on leaving the screen and never end it.
        case neverEnd
    }

    var restoreIdentifier: String?
    /// What the app scans for.
    var scanServices: [BluetoothUUID] = [HeadsetProtocol.serviceUUID]
    var connectOptions = PhoneConnectOptions()
    /// Connect to the first headset discovered (else only record discoveries).
    var connectOnDiscovery = true
    var allowDuplicates = false
    /// The app's own timer on the app's clock.
    var appTimer: Duration?
    /// The device-driven job: every this many heartbeats.
    var jobEvery: Int?
    /// On each heartbeat, start work that takes this long on the virtual clock.
    var workPerHeartbeat: Duration?
    var task: TaskBehaviour = .none
}

/// A phone app that finds the virtual headset, connects, subscribes to its protocol's
/// notifications and records everything in a `ProbeLog` — the app's own record of what it saw
/// and in which order, which the tests compare with the phone's trace.
actor ProbeApp: PhoneApp {
    nonisolated let context: AppContext
    let configuration: ProbeConfiguration
    let log: ProbeLog

    var central: PhoneCentralManager?
    var headset: PhonePeripheral?
    var subscribed = false
    var parser = DeviceFrameParser()
    var heartbeatsSinceJob = 0
    var task = BackgroundTaskIdentifier.invalid

    init(context: AppContext, configuration: ProbeConfiguration, log: ProbeLog) {
        self.context = context
        self.configuration = configuration
        self.log = log
    }

    private func add(_ event: ProbeEvent) {
        log.add(event, launch: context.launchNumber)
    }

    // MARK: Life cycle

    func didFinishLaunching(options: LaunchOptions) async {
        add(.launched(options))
        let central = await context.centralManager(restoreIdentifier: configuration.restoreIdentifier)
        self.central = central
        Task(executorPreference: context.executor) { [self] in
            for await event in central.events { await handle(event) }
        }
        if let period = configuration.appTimer {
            Task(executorPreference: context.executor) { [self] in await runAppTimer(period) }
        }
    }

    func didEnterBackground() async { await enteredBackground() }
    func sceneDidEnterBackground() async { await enteredBackground() }
    func willEnterForeground() async { add(.willEnterForeground) }
    func sceneWillEnterForeground() async { add(.willEnterForeground) }

    private func enteredBackground() async {
        add(.didEnterBackground)
        switch configuration.task {
        case .none:
            break
        case .endInHandler:
            task = await context.beginBackgroundTask(withName: "probe") { [self] in
                await expired(end: true)
            }
        case .neverEnd:
            task = await context.beginBackgroundTask(withName: "probe") { [self] in
                await expired(end: false)
            }
        }
    }

    private func expired(end: Bool) async {
        add(.expirationHandler)
        guard end else { return }
        await context.endBackgroundTask(task)
        task = .invalid
    }

    private func runAppTimer(_ period: Duration) async {
        while true {
            do { try await context.clock.sleep(for: period) } catch { return }
            add(.appTimer)
        }
    }

    // MARK: Bluetooth

    private func handle(_ event: PhoneCentralManagerEvent) async {
        switch event {
        case .willRestoreState(let state):
            var states: [PeripheralState] = []
            for peripheral in state.peripherals { states.append(await peripheral.state) }
            add(.willRestoreState(peripherals: states, subscriptions: state.subscriptions.count))
            headset = state.peripherals.first
        case .stateUpdated(let state):
            add(.state(state))
            guard state == .poweredOn, let central else { return }
            if headset == nil, configuration.connectOnDiscovery {
                // Another app's link may be up already (the headset stops advertising then).
                headset = await central.retrieveConnectedPeripherals(withServices: configuration.scanServices).first
            }
            if let headset {
                await connect(headset, with: central)
            } else {
                do {
                    try await central.scanForPeripherals(
                        withServices: configuration.scanServices,
                        options: PhoneScanOptions(allowDuplicates: configuration.allowDuplicates))
                } catch {
                    return
                }
            }
        case .discovered(let peripheral, let advertisement, _):
            add(.discovered(localName: advertisement.localName))
            guard headset == nil else { return }
            headset = peripheral
            guard configuration.connectOnDiscovery, let central else { return }
            await central.stopScan()
            await connect(peripheral, with: central)
        case .connected(let peripheral):
            add(.connected)
            await open(peripheral)
        case .failedToConnect(let peripheral, _):
            add(.failedToConnect)
            guard peripheral == headset, let central else { return }
            subscribed = false
            await connect(peripheral, with: central)
        case .disconnected(let peripheral, _):
            add(.disconnected)
            guard peripheral == headset, let central else { return }
            subscribed = false
            await connect(peripheral, with: central)
        case .valueUpdated(_, let characteristic, let value):
            guard characteristic.uuid == HeadsetProtocol.toAppCharacteristicUUID else { return }
            receive(value)
        }
    }

    /// Connects (a no-op for a peripheral the manager already holds) and, when the link is up,
    /// subscribes (again: harmless for a restored subscription).
    func connect(_ peripheral: PhonePeripheral, with central: PhoneCentralManager) async {
        do {
            try await central.connect(peripheral, options: configuration.connectOptions)
        } catch {
            return
        }
        if await peripheral.state == .connected, !subscribed { await open(peripheral) }
    }

    /// Connects to the headset found by an earlier scan (tests that make the connect pending).
    func connectToHeadset() async {
        guard let headset, let central else { return }
        await connect(headset, with: central)
    }

    private func open(_ peripheral: PhonePeripheral) async {
        guard !subscribed else { return }
        do {
            let toApp = try await peripheral.characteristic(
                HeadsetProtocol.toAppCharacteristicUUID, inService: HeadsetProtocol.serviceUUID)
            try await peripheral.setNotifyValue(true, for: toApp)
            subscribed = true
            add(.subscribed)
        } catch {
            return
        }
    }

    private func receive(_ chunk: [UInt8]) {
        for result in parser.append(chunk) {
            guard case .success(let frame) = result, let message = try? HeadsetDeviceMessage(frame: frame),
                case .heartbeat(let count) = message
            else { continue }
            add(.heartbeat(count))
            if let every = configuration.jobEvery {
                heartbeatsSinceJob += 1
                if heartbeatsSinceJob == every {
                    heartbeatsSinceJob = 0
                    add(.job)
                }
            }
            if let work = configuration.workPerHeartbeat {
                let simulation = context.phone.simulation
                Task(executorPreference: context.executor) { [self] in
                    try? await simulation.clock.sleep(for: work)
                    await workDone(count)
                }
            }
        }
    }

    private func workDone(_ count: UInt32) {
        add(.workDone(count))
    }
}
