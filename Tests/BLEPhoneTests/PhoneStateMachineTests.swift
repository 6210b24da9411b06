import BLESimulation
import Testing

@testable import BLEPhone

/// The phone's rule machines, one input at a time (no phone, no clock).
@Suite("Phone: lifecycle, budget and inbox machines")
struct PhoneStateMachineTests {
    @Test(
        "Lifecycle without scenes: launch in front, then the active state after didFinishLaunching returns (launch watchdog 20 s)"
    )
    func launchSteps() {
        var lifecycle = AppLifecycle(profile: .ios12)
        #expect(
            lifecycle.launch(inFront: true) == [
                .openExecutor, .setState(from: .notRunning, to: .inactive), .run(.didFinishLaunching),
                .schedule(.watchdog, after: .seconds(20)),
            ])
        // Nothing else starts while a callback runs.
        #expect(lifecycle.enterBackground() == [])
        #expect(
            lifecycle.callbackFinished(.didFinishLaunching) == [
                .cancel(.watchdog), .setState(from: .inactive, to: .active), .run(.didBecomeActive),
            ])
        #expect(lifecycle.callbackFinished(.didBecomeActive) == [.run(.willResignActive)])
        #expect(
            lifecycle.callbackFinished(.willResignActive) == [
                .setState(from: .active, to: .inactive), .setState(from: .inactive, to: .background),
                .run(.didEnterBackground), .schedule(.watchdog, after: .seconds(5)),
            ])
        #expect(
            lifecycle.callbackFinished(.didEnterBackground) == [
                .cancel(.watchdog), .schedule(.suspension, after: .seconds(1)),
            ])
        #expect(lifecycle.timerFired(.suspension) == [.holdExecutor, .setState(from: .background, to: .suspended)])
    }

    @Test(
        "Lifecycle: a wake resumes a suspended app for the window; a task keeps it past the window; its end suspends after the delay"
    )
    func wakeAndTaskHold() {
        var lifecycle = AppLifecycle(profile: .ios17)
        _ = lifecycle.launch(inFront: false)
        #expect(
            lifecycle.callbackFinished(.didFinishLaunching) == [
                .cancel(.watchdog), .schedule(.suspension, after: .seconds(1)),
            ])
        _ = lifecycle.timerFired(.suspension)
        #expect(lifecycle.state == .suspended)
        #expect(
            lifecycle.wake(for: .seconds(10)) == [
                .openExecutor, .setState(from: .suspended, to: .background), .schedule(.wakeEnd, after: .seconds(10)),
            ])
        #expect(lifecycle.setTaskHold(true) == [])
        #expect(lifecycle.timerFired(.wakeEnd) == [])
        #expect(lifecycle.state == .background)
        #expect(lifecycle.setTaskHold(false) == [.schedule(.suspension, after: .seconds(1))])
        // A wake while the suspension is pending cancels it; the window's end suspends at once.
        #expect(lifecycle.wake(for: .seconds(10)) == [.schedule(.wakeEnd, after: .seconds(10)), .cancel(.suspension)])
        #expect(lifecycle.timerFired(.wakeEnd) == [.holdExecutor, .setState(from: .background, to: .suspended)])
    }

    @Test("Lifecycle: terminate calls willTerminate only for an app running in the background")
    func terminate() {
        var running = AppLifecycle(profile: .ios17)
        _ = running.launch(inFront: false)
        _ = running.callbackFinished(.didFinishLaunching)
        #expect(
            running.terminate(.forceQuit) == [
                .run(.willTerminate), .schedule(.watchdog, after: .seconds(5)), .cancel(.suspension),
            ])
        #expect(running.runningCallback == .willTerminate)
        let end = running.callbackFinished(.willTerminate)
        #expect(end.contains(.terminated(.forceQuit)))
        #expect(running.state == .notRunning)

        var suspended = AppLifecycle(profile: .ios17)
        _ = suspended.launch(inFront: false)
        _ = suspended.callbackFinished(.didFinishLaunching)
        _ = suspended.timerFired(.suspension)
        let actions = suspended.terminate(.forceQuit)
        #expect(!actions.contains(.run(.willTerminate)))
        #expect(actions.contains(.discardExecutor))
        #expect(actions.last == .terminated(.forceQuit))
    }

    @Test(
        "Budget: one budget for all tasks from the background entry; expiration at budget − lead, overrun at the budget"
    )
    func budget() {
        var budget = BackgroundTaskBudget(profile: .ios12)
        let (first, began) = budget.begin(name: "a", at: .zero, appRuns: true)
        #expect(first == 1)
        #expect(began == [.began(.init(identifier: 1, name: "a")), .holdChanged(true)])
        #expect(budget.remaining(at: .zero) == .unlimited)
        let t10 = VirtualInstant.zero.advanced(by: .seconds(10))
        #expect(
            budget.startBudget(at: t10) == [
                .schedule(.expiration, at: t10.advanced(by: .seconds(175))),
                .schedule(.deadline, at: t10.advanced(by: .seconds(180))),
            ])
        let (second, _) = budget.begin(name: "b", at: t10.advanced(by: .seconds(100)), appRuns: true)
        #expect(second == 2)
        #expect(budget.remaining(at: t10.advanced(by: .seconds(100))) == .limited(.seconds(80)))
        #expect(
            budget.timerFired(.expiration) == [
                .expire([.init(identifier: 1, name: "a"), .init(identifier: 2, name: "b")])
            ])
        #expect(budget.begin(name: "late", at: t10.advanced(by: .seconds(176)), appRuns: true).0 == nil)
        #expect(budget.timerFired(.deadline) == [.overrun])
        #expect(budget.begin(name: "x", at: .zero, appRuns: false).0 == nil)
    }

    @Test("Budget: ending every task cancels the timers and releases the hold")
    func budgetEnd() {
        var budget = BackgroundTaskBudget(profile: .ios17)
        _ = budget.startBudget(at: .zero)
        let (task, actions) = budget.begin(name: nil, at: .zero, appRuns: true)
        #expect(actions.contains(.schedule(.deadline, at: VirtualInstant.zero.advanced(by: .seconds(30)))))
        #expect(
            budget.end(task!) == [
                .ended(.init(identifier: 1, name: nil)), .holdChanged(false), .cancel(.expiration), .cancel(.deadline),
            ])
        #expect(budget.end(task!) == [])
    }

    @Test("Inbox: bounded(3) over a long backlog keeps the last three, in order")
    func boundedInbox() {
        var inbox = AppInbox()
        var coalesced = 0
        for index in 0..<1000 {
            let delivery = AppBluetoothDelivery(
                manager: ManagerID(role: .central, restoreIdentifier: nil, serial: 1), kind: .valueUpdate,
                summary: "\(index)", coalescingKey: "k\(index % 2)"
            ) {}
            coalesced += inbox.enqueue(delivery, policy: .bounded(3)).count
        }
        #expect(coalesced == 997)
        #expect(inbox.drain().map(\.summary) == ["997", "998", "999"])
        #expect(inbox.count == 0)
    }

    @Test("Inbox: latest per key keeps one event per key, at the latest one's place; events without a key are kept")
    func latestPerKey() {
        var inbox = AppInbox()
        func delivery(_ summary: String, _ key: String?) -> AppBluetoothDelivery {
            AppBluetoothDelivery(
                manager: ManagerID(role: .central, restoreIdentifier: nil, serial: 1), kind: .valueUpdate,
                summary: summary, coalescingKey: key
            ) {}
        }
        for (summary, key) in [("a1", "a"), ("c", nil), ("b1", "b"), ("a2", "a"), ("a3", "a")] {
            _ = inbox.enqueue(delivery(summary, key), policy: .latestPerKey)
        }
        #expect(inbox.drain().map(\.summary) == ["c", "b1", "a3"])
    }
}
