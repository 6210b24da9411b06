import BLEController
import BLELocking
import BLESimulation
import Testing

@testable import BLEPhone

/// What the test apps did, readable without going through an app's executor (which the phone
/// holds while the app is suspended): entries "what@seconds since the world's start".
final class CallLog: Sendable {
    private let entries = Locked<[String]>([])
    let simulation: Simulation
    let start: Locked<VirtualInstant>

    init(simulation: Simulation) {
        self.simulation = simulation
        start = Locked(.zero)
    }

    func add(_ what: String) {
        let seconds = seconds(since: start.withLock { $0 }, to: simulation.now)
        entries.withLock { $0.append("\(what)@\(seconds)") }
    }

    var all: [String] { entries.withLock { $0 } }

    func names(_ prefix: String = "") -> [String] {
        all.compactMap { $0.hasPrefix(prefix) ? String($0.split(separator: "@")[0]) : nil }
    }
}

/// Whole seconds between two instants, with a fraction when not whole ("25" or "0.5").
func seconds(since start: VirtualInstant, to end: VirtualInstant) -> String {
    let nanoseconds = end.nanoseconds - start.nanoseconds
    if nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000)" }
    return "\(Double(nanoseconds) / 1e9)"
}

/// How a test app behaves in its callbacks.
struct AppBehaviour: Sendable {
    /// Virtual time spent in `didFinishLaunching` (awaiting the virtual clock).
    var launchTakes: Duration = .zero
    /// Virtual time spent in the callback that enters the background.
    var enteringBackgroundTakes: Duration = .zero
    /// Begin a background task when entering the background; end it in the expiration handler
    /// when `endOnExpiration`.
    var taskInBackground = false
    var endOnExpiration = false
    /// Start a timer of this length on the app's clock at launch.
    var appTimer: Duration?
    /// On each event, work this long on the virtual clock before logging "worked".
    var workPerEvent: Duration?
    /// On each event, begin a background task and never end it.
    var taskPerEvent = false
}

/// A test app: records every callback in the log (name@seconds).
actor RecordingApp: PhoneApp {
    nonisolated let context: AppContext
    let log: CallLog
    let behaviour: AppBehaviour
    var task = BackgroundTaskIdentifier.invalid

    init(context: AppContext, log: CallLog, behaviour: AppBehaviour) {
        self.context = context
        self.log = log
        self.behaviour = behaviour
    }

    func didFinishLaunching(options: LaunchOptions) async {
        log.add("didFinishLaunching")
        if let appTimer = behaviour.appTimer {
            let clock = context.clock
            let log = self.log
            Task(executorPreference: context.executor) {
                try? await clock.sleep(for: appTimer)
                log.add("appTimer")
            }
        }
        if behaviour.launchTakes > .zero { try? await context.phone.simulation.clock.sleep(for: behaviour.launchTakes) }
    }
    func willEnterForeground() async { log.add("willEnterForeground") }
    func didBecomeActive() async { log.add("didBecomeActive") }
    func willResignActive() async { log.add("willResignActive") }
    func didEnterBackground() async {
        log.add("didEnterBackground")
        await enteringBackground()
    }
    func willTerminate() async { log.add("willTerminate") }
    func sceneWillConnect() async { log.add("sceneWillConnect") }
    func sceneDidDisconnect() async { log.add("sceneDidDisconnect") }
    func sceneWillEnterForeground() async { log.add("sceneWillEnterForeground") }
    func sceneDidBecomeActive() async { log.add("sceneDidBecomeActive") }
    func sceneWillResignActive() async { log.add("sceneWillResignActive") }
    func sceneDidEnterBackground() async {
        log.add("sceneDidEnterBackground")
        await enteringBackground()
    }

    private func enteringBackground() async {
        if behaviour.taskInBackground {
            let endOnExpiration = behaviour.endOnExpiration
            task = await context.beginBackgroundTask(withName: "upload") { [self] in
                log.add("expirationHandler")
                if endOnExpiration { await self.endTask() }
            }
        }
        if behaviour.enteringBackgroundTakes > .zero {
            try? await context.phone.simulation.clock.sleep(for: behaviour.enteringBackgroundTakes)
        }
    }

    func endTask() async {
        await context.endBackgroundTask(task)
        task = .invalid
    }

    /// A Bluetooth event reached the app.
    func received(_ name: String) async {
        log.add("event \(name)")
        if behaviour.taskPerEvent {
            let task = await context.beginBackgroundTask(withName: name)
            log.add("task \(task)")
        }
        if let work = behaviour.workPerEvent {
            try? await context.phone.simulation.clock.sleep(for: work)
            log.add("worked \(name)")
        }
    }
}

/// A phone on a fresh virtual radio, and a log its test apps write to.
struct PhoneWorld: Sendable {
    let radio: VirtualRadio
    let phone: Phone
    let log: CallLog
    var simulation: Simulation { radio.simulation }

    /// Made inside `simulation.run` (the phone's Bluetooth service may take virtual time to
    /// start); the log's seconds count from the end of the setup.
    static func make(_ profile: PhoneProfile, radio: VirtualRadio) async -> PhoneWorld {
        let phone = await Phone(profile: profile, radio: radio)
        let log = CallLog(simulation: radio.simulation)
        log.start.withLock { $0 = radio.simulation.now }
        return PhoneWorld(radio: radio, phone: phone, log: log)
    }

    /// Installs a recording app.
    @discardableResult
    func install(
        _ name: String, modes: Set<BackgroundMode> = [], restoreIdentifiers: Set<String> = [],
        accessorySetupKit: Bool = false, behaviour: AppBehaviour = AppBehaviour()
    ) async -> AppIdentifier {
        let log = self.log
        await phone.install(
            AppDeclaration(
                bundleIdentifier: name, backgroundModes: modes, restoreIdentifiers: restoreIdentifiers,
                usesAccessorySetupKit: accessorySetupKit)
        ) { context in RecordingApp(context: context, log: log, behaviour: behaviour) }
        let app = AppIdentifier(name)
        // The recording app makes no manager: the system preserves one central manager per
        // declared restore identifier as if it had (what a relaunch needs, TN3115).
        if !restoreIdentifiers.isEmpty {
            await phone.bluetooth.restore(
                RestorationRecord(
                    backgroundModes: modes,
                    centrals: restoreIdentifiers.sorted().map { RestorationRecord.Central(restoreIdentifier: $0) }),
                for: app)
        }
        return app
    }

    /// Sleeps until `seconds` after the world's start.
    func at(_ seconds: Double) async throws {
        let start = log.start.withLock { $0 }
        try await simulation.clock.sleep(until: start.advanced(by: .milliseconds(Int64(seconds * 1000))))
    }

    /// The trace as "event@seconds" lines for `app` (seconds since the world's start).
    func trace(of app: AppIdentifier?) async -> [String] {
        let start = log.start.withLock { $0 }
        return await phone.trace.filter { app == nil || $0.app == app }.map {
            "\(describe($0.event))@\(seconds(since: start, to: $0.time))"
        }
    }

    /// A Bluetooth event for `app`'s manager whose delivery calls the app's `received`.
    func delivery(
        _ name: String, for app: AppIdentifier, role: ManagerRole = .central, restoreIdentifier: String? = nil,
        kind: BluetoothEventKind = .valueUpdate, key: String? = nil, alert: String? = nil
    ) -> AppBluetoothDelivery {
        let phone = self.phone
        return AppBluetoothDelivery(
            manager: ManagerID(role: role, restoreIdentifier: restoreIdentifier, serial: 1), kind: kind,
            summary: name, coalescingKey: key, alert: alert
        ) {
            Task(executorPreference: phone.simulation.executor) {
                guard let instance = await phone.instance(of: app) as? RecordingApp else { return }
                await instance.received(name)
            }
        }
    }
}

/// The trace event in a short form for assertions.
func describe(_ event: PhoneTraceEvent) -> String {
    switch event {
    case .user(let action): "user \(action)"
    case .system(let action): "system \(action)"
    case .launched(let reason):
        switch reason {
        case .user: "launched"
        case .bluetoothRestoration(let options):
            "relaunched \(options.bluetoothCentrals) \(options.bluetoothPeripherals)"
        case .processRestart: "restarted"
        case .scheduledTask, .location, .urlSession, .voipPush, .silentPush, .openDocument: "launched \(reason.name)"
        }
    case .stateChanged(_, let to): "\(to)"
    case .sceneStateChanged(_, let to): "scene \(to)"
    case .callbackStarted(let callback): "\(callback)"
    case .callbackFinished(let callback): "\(callback) returned"
    case .eventQueued(_, let summary): "queued \(summary)"
    case .eventCoalesced(_, let summary): "coalesced \(summary)"
    case .eventDelivered(_, let summary): "delivered \(summary)"
    case .eventDropped(_, let summary, _): "dropped \(summary)"
    case .woken: "woken"
    case .alert(let text): "alert \(text)"
    case .backgroundTaskBegan(let id, _): "task \(id) began"
    case .backgroundTaskEnded(let id, _): "task \(id) ended"
    case .backgroundTaskRefused: "task refused"
    case .backgroundTaskExpiring(let id, _): "task \(id) expiring"
    case .killed(let reason): "killed \(reason)"
    case .relaunchDenied: "relaunch denied"
    case .restored(let identifier, _): "restored \(identifier)"
    case .note(let text): "note \(text)"
    case .scheduledTask, .audio, .keepAlive, .document: event.record.type
    }
}

/// Every truncation of a scenario file's bytes (without its final newline, so that each prefix is
/// incomplete) is a located error, and substituting bytes every `step` gives an error or a
/// scenario, never a trap (docs/phone-scenarios.md: "bad files get errors that point at the
/// place").
func expectDamageIsLocated(_ original: [UInt8], every step: Int) {
    var bytes = original
    while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    var errors = 0
    for length in 0..<bytes.count {
        do {
            _ = try PhoneScenario(parsing: Array(bytes[..<length]))
        } catch {
            errors += 1
            #expect(error.line >= 1 && error.column >= 1)
        }
    }
    #expect(errors == bytes.count)
    for index in stride(from: 0, to: bytes.count, by: step) {
        for replacement: UInt8 in [0x00, 0x22, 0x7B, 0xFF] {
            var damaged = bytes
            damaged[index] = replacement
            do {
                _ = try PhoneScenario(parsing: damaged)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
