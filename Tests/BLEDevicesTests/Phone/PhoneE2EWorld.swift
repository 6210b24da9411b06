import BLE
import BLECompanion
import BLEController
import BLEDevices
import BLEPhone
import BLESimulation
import Testing

/// A test that cannot go on.
struct E2EFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The whole phone on the virtual radio: a `Phone` with its system Bluetooth service on its
/// own controller, a `VirtualHeadset` 2 m away on another, and the probe apps' record. Every
/// time is virtual; `origin` is the end of the setup.
struct PhoneE2E: Sendable {
    static let probe = AppIdentifier("com.example.probe")
    static let restoreID = "probe-central"

    let radio: VirtualRadio
    let phone: Phone
    let headset: VirtualHeadset
    let log: ProbeLog
    let origin: VirtualInstant

    var simulation: Simulation { radio.simulation }
    var profile: PhoneProfile { phone.profile }

    /// Runs `body` on a fresh radio with a phone of `profile` and a headset whose heartbeat is
    /// off until the test sets it (`startHeartbeat`), so its phase is the test's.
    static func run<T: Sendable>(
        _ profile: PhoneProfile, _ body: @escaping @Sendable (PhoneE2E) async throws -> T
    ) async throws -> T {
        let radio = VirtualRadio()
        return try await radio.simulation.run {
            let headset = try await VirtualHeadset.start(
                on: radio, position: AirPosition(x: 2, y: 0, z: 0),
                configuration: VirtualHeadsetConfiguration(heartbeatPeriod: nil))
            let phone = await Phone(profile: profile, radio: radio)
            let world = PhoneE2E(
                radio: radio, phone: phone, headset: headset, log: ProbeLog(simulation: radio.simulation),
                origin: radio.simulation.now)
            do {
                let result = try await body(world)
                await headset.stop()
                return result
            } catch {
                await headset.stop()
                throw error
            }
        }
    }

    /// Installs a probe app.
    @discardableResult
    func install(
        _ configuration: ProbeConfiguration = ProbeConfiguration(), app: AppIdentifier = PhoneE2E.probe,
        modes: Set<BackgroundMode> = [], restoreIdentifiers: Set<String> = [], accessorySetupKit: Bool = false
    ) async -> AppIdentifier {
        let log = self.log
        await phone.install(
            AppDeclaration(
                bundleIdentifier: app.bundleIdentifier, backgroundModes: modes, restoreIdentifiers: restoreIdentifiers,
                usesAccessorySetupKit: accessorySetupKit)
        ) { context in ProbeApp(context: context, configuration: configuration, log: log) }
        return app
    }

    /// A `bluetooth-central` probe with state restoration.
    @discardableResult
    func installRestorable(
        _ configuration: ProbeConfiguration = ProbeConfiguration(), app: AppIdentifier = PhoneE2E.probe,
        accessorySetupKit: Bool = false
    ) async -> AppIdentifier {
        var configuration = configuration
        configuration.restoreIdentifier = Self.restoreID
        return await install(
            configuration, app: app, modes: [.bluetoothCentral], restoreIdentifiers: [Self.restoreID],
            accessorySetupKit: accessorySetupKit)
    }

    /// Starts the headset's heartbeat now: tick k leaves the headset at now + k × period.
    func startHeartbeat(every period: Duration) {
        headset.setHeartbeat(period)
    }

    func stopHeartbeat() {
        headset.setHeartbeat(nil)
    }

    /// The instant `offset` after the origin.
    func time(_ offset: Duration) -> VirtualInstant { origin.advanced(by: offset) }

    /// Sleeps until `offset` after the origin.
    func at(_ offset: Duration) async throws {
        try await simulation.clock.sleep(until: time(offset))
    }

    func sleep(for duration: Duration) async throws {
        try await simulation.clock.sleep(for: duration)
    }

    /// Opens the app and lets it find, connect and subscribe to the headset (5 s of virtual
    /// time is ample on the virtual radio); fails when it did not.
    func openAndSubscribe(_ app: AppIdentifier = PhoneE2E.probe, launch: Int = 1) async throws {
        await phone.open(app)
        try await sleep(for: .seconds(5))
        guard log.count(.subscribed, launch: launch) == 1 else {
            throw E2EFailure("\(app) (launch \(launch)) did not subscribe: \(log.entries(launch: launch).map(\.event))")
        }
    }

    /// The app's trace entries.
    func trace(of app: AppIdentifier = PhoneE2E.probe) async -> [PhoneTraceEntry] {
        await phone.trace.filter { $0.app == app }
    }

    /// When the app's state became `state`, in order.
    func times(_ app: AppIdentifier = PhoneE2E.probe, enteredState state: AppState) async -> [VirtualInstant] {
        await trace(of: app).compactMap { entry in
            if case .stateChanged(_, let to) = entry.event, to == state { return entry.time }
            return nil
        }
    }

    /// The app's state at `instant`, as the trace shows (its last state change at or before).
    func state(_ app: AppIdentifier = PhoneE2E.probe, at instant: VirtualInstant) async -> AppState {
        var state = AppState.notRunning
        for entry in await trace(of: app) where entry.time <= instant {
            if case .stateChanged(_, let to) = entry.event { state = to }
        }
        return state
    }
}

extension PhoneTraceEntry {
    var isValueQueued: Bool {
        if case .eventQueued(.valueUpdate, _) = event { return true }
        return false
    }

    var isValueDelivered: Bool {
        if case .eventDelivered(.valueUpdate, _) = event { return true }
        return false
    }

    var isValueCoalesced: Bool {
        if case .eventCoalesced(.valueUpdate, _) = event { return true }
        return false
    }

    var isRestorationLaunch: Bool {
        if case .launched(.bluetoothRestoration) = event { return true }
        return false
    }

    var isRelaunchDenied: Bool {
        if case .relaunchDenied = event { return true }
        return false
    }

    var isAlert: Bool {
        if case .alert = event { return true }
        return false
    }

    var wokenUntil: VirtualInstant? {
        if case .woken(_, let until) = event { return until }
        return nil
    }
}

/// Whether `counts` are consecutive, each one more than the one before.
func consecutive(_ counts: [UInt32]) -> Bool {
    zip(counts, counts.dropFirst()).allSatisfy { $1 == $0 &+ 1 }
}
