import BLE
import BLELocking
import BLESimulation
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// One app as a Linux daemon: the same `PhoneApp` the simulated phone runs, on a phone whose
/// system Bluetooth service is a host on a real radio (a transport to a real or served
/// controller), on wall-clock time, with its restoration record in a file so that the next
/// process picks up where this one left off.
///
/// - **First start** (no record): the app is launched in front, as the user would.
/// - **Restart** (a record saved by the last process): the record is restored into the
///   service — each preserved central manager's scan, and a pending connect to each of its
///   peripherals — and the app is launched with `LaunchReason.processRestart` and launch
///   options naming the restored managers. Making a manager with a restored identifier gives it
///   `.willRestoreState` first, with its peripherals `.connecting`: unlike iOS, where bluetoothd
///   outlives the app and keeps its links, the links here died with the process, so the app
///   connects and subscribes again (as Apple advises in any case: phone-rules.md correction 2).
/// - **While it runs**, the record is saved at each change (`RecordSaver`): a process killed
///   without warning loses at most the change under way.
/// - **Stopping** (`DaemonStopRules`): the first SIGTERM or SIGINT — ServiceLifecycle's graceful
///   shutdown — ends the app as iOS ends an app running in the background (`willTerminate`
///   first); the record is saved a last time and the transport closed, within
///   `gracePeriod`. A second signal, or the end of the grace period, ends the daemon at once.
///
/// The app stays in front while it runs: a Linux process is never suspended, so the phone's
/// background rules (suspension, wake windows, background scans) do not apply to it.
///
/// A `Service` for a `ServiceGroup`; `runUntilSignalled()` makes the group with the
/// configuration's signals and runs it.
public final class AppDaemon: ServiceLifecycle.Service {
    public let declaration: AppDeclaration
    public let configuration: AppDaemonConfiguration
    /// The record the last process saved (nil on a first start).
    public let savedRecord: RestorationRecord?
    let make: @Sendable (AppContext) -> any PhoneApp
    let openRadio: @Sendable () async throws -> Radio
    let onEvent: @Sendable (AppDaemonEvent) -> Void
    let store: RestorationStore
    private let outcome = Locked<AppDaemonExit?>(nil)

    /// Opens the state directory and reads the record the last process saved — before any
    /// radio is opened: a record file that is not usable (damaged, not SQLite, written by a
    /// newer version) throws `.store` naming the file, and is left untouched.
    ///
    /// - Parameters:
    ///   - radio: opens the radio when the daemon runs (a transport to the controller).
    ///   - onEvent: told of what happens, in order, on the daemon's and the phone's executors
    ///     (it must not block).
    ///   - make: builds a new app instance at each launch, as `Phone.install(_:make:)`.
    public init(
        _ declaration: AppDeclaration, configuration: AppDaemonConfiguration,
        radio: @escaping @Sendable () async throws -> Radio,
        onEvent: @escaping @Sendable (AppDaemonEvent) -> Void = { _ in },
        make: @escaping @Sendable (AppContext) -> any PhoneApp
    ) throws(AppDaemonError) {
        self.declaration = declaration
        self.configuration = configuration
        self.make = make
        self.openRadio = radio
        self.onEvent = onEvent
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.stateDirectory, withIntermediateDirectories: true)
        } catch {
            throw .stateDirectory(path: configuration.stateDirectory, reason: "\(error.localizedDescription)")
        }
        do throws(RestorationStoreError) {
            store = try RestorationStore(path: configuration.recordFile)
            savedRecord = try store.record(for: AppIdentifier(declaration.bundleIdentifier))
        } catch {
            throw .store(error)
        }
    }

    /// How the last run ended (nil before it ended).
    public var exit: AppDaemonExit? { outcome.withLock { $0 } }

    /// Runs the daemon in a `ServiceGroup` whose graceful-shutdown signals are the
    /// configuration's, until it ends; returns how.
    public func runUntilSignalled() async throws -> AppDaemonExit {
        var group = ServiceGroupConfiguration(
            services: [ServiceGroupConfiguration.ServiceConfiguration(service: self)],
            gracefulShutdownSignals: configuration.signals, logger: configuration.logger)
        // The daemon keeps its own grace period (it says which deadline ended it); the group's
        // would cancel the daemon's task without a word.
        group.maximumGracefulShutdownDuration = nil
        try await ServiceGroup(configuration: group).run()
        return exit ?? .cancelled
    }

    /// `Service.run()`: runs until a graceful shutdown, a second signal, the grace period's end,
    /// the app's own end or cancellation (`exit` says which). Throws only when the radio cannot
    /// be opened.
    public func run() async throws {
        let result = try await runDaemon()
        outcome.withLock { $0 = result }
    }

    private func runDaemon() async throws(AppDaemonError) -> AppDaemonExit {
        let app = AppIdentifier(declaration.bundleIdentifier)
        let logger = configuration.logger
        let onEvent = self.onEvent
        let (inputs, input) = AsyncStream.makeStream(of: DaemonStopRules.Input.self)
        // The first signal reaches the daemon as ServiceLifecycle's graceful shutdown; this
        // watch counts them, to end the daemon at once at the second.
        let signals = await UnixSignalsSequence(trapping: configuration.signals)
        let signalWatch = Task {
            var count = 0
            for await signal in signals {
                count += 1
                onEvent(.signal(signal))
                if count >= 2 { input.yield(.secondSignal(signal)) }
            }
        }
        defer { signalWatch.cancel() }

        let radio: Radio
        do {
            radio = try await openRadio()
        } catch {
            throw .radio("\(error)")
        }
        let (phone, reason) = await start(app, on: radio, input: input)
        let saver = await RecordSaver.start(
            app, of: phone.bluetooth, into: store, last: savedRecord, onEvent: onEvent, logger: logger)
        await phone.launchInFront(app, reason: reason)

        var rules = DaemonStopRules()
        var grace: Task<Void, Never>?
        defer { grace?.cancel() }
        let gracePeriod = configuration.gracePeriod
        return await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await next in inputs {
                    for action in rules.handle(next) {
                        switch action {
                        case .startGracePeriod:
                            onEvent(.stopping(gracePeriod: gracePeriod))
                            grace = Task {
                                guard (try? await Task.sleep(for: gracePeriod)) != nil else { return }
                                input.yield(.gracePeriodEnded)
                            }
                        case .stopApp:
                            await phone.stopProcess(of: app)
                        case .finish:
                            Task {
                                await self.finish(app, phone: phone, saver: saver)
                                input.yield(.finished)
                            }
                        case .exit(let exit):
                            if exit.isClean {
                                logger.info("daemon: \(exit)")
                            } else {
                                logger.error("daemon: \(exit)")
                            }
                            return exit
                        }
                    }
                }
                return .cancelled
            } onGracefulShutdown: {
                input.yield(.shutdownRequested)
            }
        } onCancel: {
            input.yield(.cancelled)
        }
    }

    /// A phone on wall-clock time with the app installed and, on a restart, the saved record
    /// restored into its Bluetooth service; and how to launch the app.
    private func start(
        _ app: AppIdentifier, on radio: Radio, input: AsyncStream<DaemonStopRules.Input>.Continuation
    ) async -> (Phone, LaunchReason) {
        let simulation = Simulation(pacing: .paced(rate: 1))
        // Starts the simulation's thread, its time following the wall clock. Paced time moves
        // only when an event runs (the simulation reads the time of the last one), and the
        // phone sets its timers from it: a tick keeps it within `tick` of the wall clock.
        simulation.perform { queue in Self.tick(queue) }
        var profile = configuration.profile
        profile.autoLock = nil
        let phone = await Phone(
            profile: profile, simulation: simulation, radio: radio,
            knownPeripheralsFile: configuration.knownPeripheralsFile, storageRoot: configuration.appsDirectory,
            logger: configuration.logger)
        let onEvent = self.onEvent
        await phone.observeTrace(retaining: false) { entry in
            onEvent(.trace(entry))
            if entry.app == app, case .killed(let reason) = entry.event { input.yield(.appEnded(reason)) }
        }
        await phone.install(declaration, make: make)
        guard let saved = savedRecord, !saved.isEmpty else { return (phone, .user) }
        onEvent(.restoring(saved))
        await phone.bluetooth.restore(saved, for: app)
        let identifiers = await phone.bluetooth.restoreIdentifiers(for: app)
        let options = LaunchOptions(bluetoothCentrals: identifiers.centrals, bluetoothPeripherals: identifiers.peripherals)
        return (phone, .processRestart(options))
    }

    static let tick = Duration.milliseconds(20)

    private static func tick(_ queue: EventQueue) {
        queue.schedule(after: tick) { tick(queue) }
    }

    /// After the app ended: the record saved a last time (what the service preserves for it
    /// now), then the controller's transport closed.
    private func finish(_ app: AppIdentifier, phone: Phone, saver: RecordSaver) async {
        await saver.stop()
        let record = await phone.bluetooth.restorationRecord(for: app)
        do throws(RestorationStoreError) {
            try store.save(record, for: app)
            onEvent(.recordSaved(record, final: true))
        } catch {
            configuration.logger.error("daemon: the restoration record was not saved: \(error)")
            onEvent(.recordNotSaved(error))
        }
        // The links end with the transport: their events must not relaunch the app.
        await phone.bluetooth.interceptDeliveries { _, _ in }
        await phone.bluetooth.central.close()
        await phone.bluetooth.peripheralManager?.close()
        onEvent(.transportClosed)
    }
}
