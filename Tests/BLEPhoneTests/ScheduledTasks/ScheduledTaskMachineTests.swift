import BLESimulation
import Testing

@testable import BLEPhone

/// `ScheduledTaskMachine` one input at a time, without a phone.
@Suite("Scheduled tasks: the machine")
struct ScheduledTaskMachineTests {
    let app = AppIdentifier("com.example.tasks")
    let declaration = AppDeclaration(
        bundleIdentifier: "com.example.tasks", backgroundModes: [.fetch], permittedTaskIdentifiers: ["refresh"])
    let policy = DefaultTaskSchedulingPolicy()

    func facts(_ state: AppState, locked: Bool = false) -> ScheduledTaskMachine.PhoneFacts {
        .init(conditions: PhoneConditions(), locked: locked, majorVersion: 17, states: [app: state], front: nil)
    }

    @Test(
        "Registration is per launch: registered in one launch, refused after it ends, needed again after a termination")
    func registrationPerLaunch() {
        var machine = ScheduledTaskMachine(majorVersion: 17)
        machine.launched(app)
        #expect(machine.register(app, "refresh", declaration: declaration, currentLaunch: true).0 == nil)
        _ = machine.launchEnded(app, now: .zero, policy: policy)
        #expect(
            machine.register(app, "refresh", declaration: declaration, currentLaunch: true).0 == .afterLaunch("refresh")
        )
        _ = machine.terminated(app, reason: .memoryPressure)
        #expect(machine.apps[app]?.registered.isEmpty == true)
        #expect(ScheduledTaskMachine(majorVersion: 12).available == false)
    }

    @Test("A start for a not-running app asks for a launch and waits for the launch to end before the handler")
    func startWaitsForLaunch() {
        var machine = ScheduledTaskMachine(majorVersion: 17)
        machine.usedByUser(app, now: .zero)
        _ = machine.submit(
            ScheduledTaskRequest(identifier: "refresh", kind: .appRefresh), for: app, declaration: declaration,
            conditions: PhoneConditions(), now: .zero)
        let actions = machine.evaluate(now: .zero, facts: facts(.notRunning), policy: policy)
        #expect(actions.contains { if case .begin(_, _, _, true, _) = $0 { true } else { false } })
        #expect(!actions.contains { if case .runHandler = $0 { true } else { false } })
        machine.launched(app)
        _ = machine.register(app, "refresh", declaration: declaration, currentLaunch: true)
        let later = machine.launchEnded(app, now: .zero, policy: policy)
        #expect(later.contains { if case .runHandler(_, "refresh", _) = $0 { true } else { false } })
        #expect(
            later.contains {
                if case .schedule(.expiration(_), let at) = $0 {
                    at == VirtualInstant(nanoseconds: 30_000_000_000)
                } else {
                    false
                }
            })
    }

    @Test("Force-quit holds requests until the user uses the app again")
    func forceQuitUntilUse() {
        var machine = ScheduledTaskMachine(majorVersion: 17)
        machine.usedByUser(app, now: .zero)
        _ = machine.submit(
            ScheduledTaskRequest(identifier: "refresh", kind: .appRefresh), for: app, declaration: declaration,
            conditions: PhoneConditions(), now: .zero)
        _ = machine.terminated(app, reason: .forceQuit)
        let waiting = machine.evaluate(now: .zero, facts: facts(.notRunning), policy: policy)
        #expect(!waiting.contains { if case .begin = $0 { true } else { false } })
        machine.usedByUser(app, now: .zero)
        let running = machine.evaluate(now: .zero, facts: facts(.background), policy: policy)
        #expect(running.contains { if case .begin = $0 { true } else { false } })
    }
}
