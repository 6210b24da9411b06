import Testing
import UnixSignals

@testable import BLEPhone

/// How an app daemon stops (`DaemonStopRules`), one input at a time: the first signal is a
/// graceful shutdown within a grace period, a second signal or the grace period's end ends it
/// at once.
@Suite("DaemonStopRules: graceful shutdown, grace period, second signal")
struct DaemonStopRulesTests {
    @Test("Graceful: the grace period starts, the app is ended; once it ended, finish; then stopped (status 0)")
    func graceful() {
        var rules = DaemonStopRules()
        #expect(rules.handle(.shutdownRequested) == [.startGracePeriod, .stopApp])
        #expect(rules.handle(.shutdownRequested) == [])
        #expect(rules.handle(.appEnded(.processStopped)) == [.finish])
        #expect(rules.handle(.finished) == [.exit(.stopped)])
        #expect(rules.phase == .done)
        #expect(AppDaemonExit.stopped.status == 0)
        // Nothing after the end.
        #expect(rules.handle(.gracePeriodEnded) == [])
        #expect(rules.handle(.secondSignal(.sigterm)) == [])
    }

    @Test("The grace period's end before the app ended ends the daemon at once (status 3)")
    func graceEndsWhileStopping() {
        var rules = DaemonStopRules()
        _ = rules.handle(.shutdownRequested)
        #expect(rules.handle(.gracePeriodEnded) == [.exit(.gracePeriodEnded)])
        #expect(rules.handle(.appEnded(.processStopped)) == [])
        #expect(AppDaemonExit.gracePeriodEnded.status == 3)
    }

    @Test("The grace period's end while the last save and close run ends the daemon at once")
    func graceEndsWhileFinishing() {
        var rules = DaemonStopRules()
        _ = rules.handle(.shutdownRequested)
        _ = rules.handle(.appEnded(.processStopped))
        #expect(rules.handle(.gracePeriodEnded) == [.exit(.gracePeriodEnded)])
        #expect(rules.handle(.finished) == [])
    }

    @Test("A second signal ends the daemon at once, in any phase (status 128 + the signal)")
    func secondSignal() {
        for prefix: [DaemonStopRules.Input] in [[], [.shutdownRequested], [.shutdownRequested, .appEnded(.processStopped)]]
        {
            var rules = DaemonStopRules()
            for input in prefix { _ = rules.handle(input) }
            #expect(rules.handle(.secondSignal(.sigint)) == [.exit(.interrupted(.sigint))])
            #expect(rules.phase == .done)
        }
        #expect(AppDaemonExit.interrupted(.sigterm).status == 143)
        #expect(AppDaemonExit.interrupted(.sigint).status == 130)
    }

    @Test("An app that ends while nobody asked is finished the same way, and the daemon ends with its reason")
    func appEndsByItself() {
        var rules = DaemonStopRules()
        #expect(rules.handle(.appEnded(.watchdog)) == [.finish])
        // A signal now asks for nothing more: the app is already gone.
        #expect(rules.handle(.shutdownRequested) == [])
        // No grace period runs for an end nobody asked for.
        #expect(rules.handle(.gracePeriodEnded) == [])
        #expect(rules.handle(.finished) == [.exit(.appEnded(.watchdog))])
        #expect(AppDaemonExit.appEnded(.watchdog).status == 2)
    }

    @Test("Cancellation ends the daemon at once")
    func cancelled() {
        var rules = DaemonStopRules()
        _ = rules.handle(.shutdownRequested)
        #expect(rules.handle(.cancelled) == [.exit(.cancelled)])
    }
}
