import BLEController
import BLESimulation

@testable import BLEPhone

/// How a test app treats its scheduled tasks.
struct TaskBehaviour: Sendable {
    /// Registered in `didFinishLaunching` (before the launch ends).
    var register: [String] = []
    /// Registered in a task started by `didFinishLaunching`, after the launch has ended.
    var registerLate: [String] = []
    /// In the launch handler: complete after this long (nil: never).
    var completeAfter: Duration? = .zero
    var success = true
    /// In the launch handler: set an expiration handler.
    var expirationHandler = true
    /// The expiration handler completes the task (unsuccessfully); else it leaves it open.
    var completeOnExpiration = true
}

/// A test app that registers launch handlers and logs its tasks ("handler id@s",
/// "expiration id@s", "registration error …@s").
actor TaskApp: PhoneApp {
    nonisolated let context: AppContext
    let log: CallLog
    let behaviour: TaskBehaviour

    init(context: AppContext, log: CallLog, behaviour: TaskBehaviour) {
        self.context = context
        self.log = log
        self.behaviour = behaviour
    }

    func didFinishLaunching(options: LaunchOptions) async {
        log.add("didFinishLaunching")
        let scheduler = context.taskScheduler
        for identifier in behaviour.register { await register(identifier, scheduler) }
        let late = behaviour.registerLate
        if !late.isEmpty {
            Task(executorPreference: context.executor) {
                for identifier in late { await self.register(identifier, scheduler) }
            }
        }
    }

    private func register(_ identifier: String, _ scheduler: BGTaskScheduler) async {
        let log = self.log
        let behaviour = self.behaviour
        let clock = context.phone.simulation.clock
        do throws(BGTaskRegistrationError) {
            try await scheduler.register(forTaskWithIdentifier: identifier) { task in
                log.add("handler \(task.identifier)")
                if behaviour.expirationHandler {
                    task.expirationHandler = {
                        log.add("expiration \(task.identifier)")
                        if behaviour.completeOnExpiration { await task.setTaskCompleted(success: false) }
                    }
                }
                if let after = behaviour.completeAfter {
                    if after > .zero { try? await clock.sleep(for: after) }
                    await task.setTaskCompleted(success: behaviour.success)
                }
            }
        } catch {
            log.add("registration error \(error.name)")
        }
    }
}

extension PhoneWorld {
    /// Installs a task app declaring `modes` and `permitted` identifiers.
    @discardableResult
    func installTaskApp(
        _ name: String = "com.example.tasks", modes: Set<BackgroundMode> = [.fetch, .processing],
        permitted: Set<String> = ["refresh", "nightly"],
        behaviour: TaskBehaviour = TaskBehaviour(register: ["refresh", "nightly"])
    ) async -> AppIdentifier {
        let log = self.log
        await phone.install(
            AppDeclaration(bundleIdentifier: name, backgroundModes: modes, permittedTaskIdentifiers: permitted)
        ) { context in TaskApp(context: context, log: log, behaviour: behaviour) }
        return AppIdentifier(name)
    }

    /// The running instance's scheduler (the object is nonisolated: it works while the app is
    /// suspended, as a test's stand-in for code the app ran earlier).
    func scheduler(_ app: AppIdentifier) async -> BGTaskScheduler? {
        await phone.instance(of: app)?.context.taskScheduler
    }

    /// An instant `seconds` after the world's start.
    func instant(_ seconds: Double) -> VirtualInstant {
        log.start.withLock { $0 }.advanced(by: .milliseconds(Int64(seconds * 1000)))
    }

    /// The scheduled-task records and kills of `app`, as "type id@seconds" ("killed reason@s").
    func taskTrace(_ app: AppIdentifier) async -> [String] {
        let start = log.start.withLock { $0 }
        return await phone.trace.compactMap { entry -> String? in
            guard entry.app == app else { return nil }
            let at = "@" + seconds(since: start, to: entry.time)
            switch entry.event {
            case .scheduledTask(let event):
                let record = event.record
                var text = record.type
                for field in record.fields {
                    switch (field.name, field.value) {
                    case ("task", .text(let id)): text += " " + id
                    case ("error", .text(let error)): text += " " + error
                    case ("success", .flag(let success)): text += success ? " success" : " failure"
                    default: break
                    }
                }
                return text + at
            case .killed(let reason): return "killed \(reason.name)" + at
            case .launched(.scheduledTask(let id)): return "launched for \(id)" + at
            case .woken(.scheduledTask(let id), _): return "woken for \(id)" + at
            case .stateChanged(_, .suspended): return "suspended" + at
            default: return nil
            }
        }
    }
}
