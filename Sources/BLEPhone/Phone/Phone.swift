import BLE
import BLEController
import BLESimulation
import Logging

/// A simulated handset on virtual time: the apps installed on it, their execution states, the
/// user's and the system's actions, and the system Bluetooth service (bluetoothd) that keeps
/// links, pending connects and subscriptions whatever happens to the apps.
///
/// The phone applies its profile's rules (`PhoneProfile`) to the apps' real code: a suspended
/// app's executor holds its jobs, a killed app's instance is discarded, a relaunch makes a new
/// instance. Everything it does is recorded in `trace`.
public actor Phone {
    public nonisolated let profile: PhoneProfile
    public nonisolated let simulation: Simulation
    /// The system Bluetooth service: one host on the phone's own controller, shared by every app.
    package let bluetooth: SystemBluetooth
    package let logger: Logger
    /// Where each app's storage directory is made (nil: apps have none).
    package nonisolated let storageRoot: String?

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        simulation.executor.asUnownedSerialExecutor()
    }

    /// Everything recorded so far, in order.
    public internal(set) var trace: [PhoneTraceEntry] = []
    /// The apps and the handset's state (Phone+Apps, Phone+UserActions, …).
    var runtime = PhoneRuntime()
    /// How events queued for a suspended foreground-only app are merged (default: not at all).
    public var eventCoalescing: EventCoalescing = .none
    /// Sees each entry as it is recorded; with `retainsTrace` false, `trace` stays empty (a
    /// daemon runs for days: Phone+Daemon).
    var traceObserver: (@Sendable (PhoneTraceEntry) -> Void)?
    var retainsTrace = true

    /// A phone whose Bluetooth service is a host on a new controller of `radio` at `position`.
    public init(
        profile: PhoneProfile, radio: VirtualRadio, position: AirPosition = .origin,
        storageRoot: String? = nil,
        logger: Logger = Logger(label: "swift-ble.phone", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async {
        self.profile = profile
        self.simulation = radio.simulation
        self.storageRoot = storageRoot
        self.logger = logger
        self.bluetooth = await SystemBluetooth(radio: .virtual(radio, position: position), logger: logger)
        await bluetooth.attach(to: self)
    }

    /// A phone whose Bluetooth service is a host on `radio` — any radio, a transport to a real or
    /// served controller included — with its timers and its apps' executors on `simulation`
    /// (paced to the wall clock for a daemon, `AppDaemon`). With `knownPeripheralsFile` the
    /// service remembers the peripherals it sees in that file, so that a restoration record
    /// saved by an earlier process names peripherals this one can reach.
    public init(
        profile: PhoneProfile, simulation: Simulation, radio: Radio, knownPeripheralsFile: String? = nil,
        storageRoot: String? = nil,
        logger: Logger = Logger(label: "swift-ble.phone", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async {
        self.profile = profile
        self.simulation = simulation
        self.storageRoot = storageRoot
        self.logger = logger
        self.bluetooth = await SystemBluetooth(radio: radio, logger: logger, knownPeripheralsFile: knownPeripheralsFile)
        await bluetooth.attach(to: self)
    }

    /// Records `event` at the current virtual time.
    package func record(_ event: PhoneTraceEvent, app: AppIdentifier? = nil) {
        let entry = PhoneTraceEntry(time: simulation.now, app: app, event: event)
        if retainsTrace { trace.append(entry) }
        traceObserver?(entry)
    }
}
