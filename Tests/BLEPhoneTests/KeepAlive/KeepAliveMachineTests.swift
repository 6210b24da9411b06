import BLESimulation
import Testing

@testable import BLEPhone

/// The keep-alive rule machines, one input at a time, no phone.
@Suite("Keep-alive: rule machines")
struct KeepAliveMachineTests {
    static let home = CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522)
    /// ~556 m north of `home` (0.005° of latitude).
    static let away = CLLocationCoordinate2D(latitude: 48.8616, longitude: 2.3522)

    static func fix(_ coordinate: CLLocationCoordinate2D, _ seconds: Int64) -> CLLocation {
        CLLocation(coordinate: coordinate, timestamp: .zero.advanced(by: .seconds(seconds)))
    }

    @Test(
        "Location mode: updates keep the app running only with the mode and, from iOS 9, allowsBackgroundLocationUpdates"
    )
    func locationHoldPerProfile() {
        var ios17 = LocationMonitor(hasLocationMode: true, profile: .ios17, rules: KeepAliveRules())
        ios17.startUpdating()
        #expect(!ios17.keepsAppRunning)
        ios17.setAllowsBackgroundUpdates(true)
        #expect(ios17.keepsAppRunning)
        ios17.stopUpdating()
        #expect(!ios17.keepsAppRunning)

        var ios6 = LocationMonitor(hasLocationMode: true, profile: .ios6, rules: KeepAliveRules())
        ios6.startUpdating()
        #expect(ios6.keepsAppRunning)

        var noMode = LocationMonitor(hasLocationMode: false, profile: .ios17, rules: KeepAliveRules())
        noMode.startUpdating()
        noMode.setAllowsBackgroundUpdates(true)
        #expect(!noMode.keepsAppRunning)
        // Without the hold, a suspended app's updates pause.
        let (events, paused) = noMode.moved(to: Self.fix(Self.away, 1), appRuns: false)
        #expect(events.isEmpty && paused)
    }

    @Test("Significant change: 500 m and five minutes since the last one (startMonitoringSignificantLocationChanges)")
    func significantChange() {
        var monitor = LocationMonitor(hasLocationMode: false, profile: .ios17, rules: KeepAliveRules())
        monitor.startSignificantChanges(at: Self.fix(Self.home, 0))
        // 556 m but only 60 s: not yet.
        #expect(monitor.moved(to: Self.fix(Self.away, 60), appRuns: false).events.isEmpty)
        // Back near home after 5 min: moved 0 m from the start.
        #expect(monitor.moved(to: Self.fix(Self.home, 300), appRuns: false).events.isEmpty)
        let event = monitor.moved(to: Self.fix(Self.away, 301), appRuns: false).events
        #expect(event.map(\.kind) == [.significantChange])
        // 299 m further (0.0027°) is not significant.
        let near = CLLocationCoordinate2D(latitude: 48.8643, longitude: 2.3522)
        #expect(monitor.moved(to: Self.fix(near, 1_000), appRuns: false).events.isEmpty)
        monitor.processEnded()
        #expect(monitor.significantChanges)
    }

    @Test(
        "Region monitoring: enter and exit once per crossing; the starting state is no event; it outlives the process")
    func regions() {
        var monitor = LocationMonitor(hasLocationMode: false, profile: .ios17, rules: KeepAliveRules())
        monitor.startMonitoring(CLCircularRegion(center: Self.home, radius: 200, identifier: "home"), at: Self.home)
        monitor.processEnded()
        #expect(monitor.moved(to: Self.fix(Self.home, 1), appRuns: false).events.isEmpty)
        #expect(monitor.moved(to: Self.fix(Self.away, 2), appRuns: false).events.map(\.kind) == [.exitRegion("home")])
        #expect(monitor.moved(to: Self.fix(Self.away, 3), appRuns: false).events.isEmpty)
        #expect(monitor.moved(to: Self.fix(Self.home, 4), appRuns: false).events.map(\.kind) == [.enterRegion("home")])
    }

    @Test("Background transfer: bytes ÷ rate, shared equally by running tasks; no network waits; the rest resumes")
    func transfers() {
        var session = BackgroundSession(identifier: "s", bytesPerSecond: 1_000_000, at: .zero)
        let (first, a1) = session.add(url: "u", upload: false, bytes: 1_000_000, at: .zero)
        #expect(a1 == [.schedule(at: .zero.advanced(by: .seconds(1)))])
        // A second task at 0.5 s: the first has 500 kB left, now at half rate → ends at 1.5 s.
        let (_, a2) = session.add(url: "u", upload: true, bytes: 2_000_000, at: .zero.advanced(by: .milliseconds(500)))
        #expect(a2 == [.schedule(at: .zero.advanced(by: .milliseconds(1_500)))])
        // No network at 1 s: waits with 250 kB left.
        let a3 = session.setRate(0, at: .zero.advanced(by: .seconds(1)))
        #expect(a3 == [.cancelTimer, .waiting])
        // Network back at 10 s: 250 kB at half of 1 MB/s → 10.5 s.
        let a4 = session.setRate(1_000_000, at: .zero.advanced(by: .seconds(10)))
        #expect(a4 == [.schedule(at: .zero.advanced(by: .milliseconds(10_500)))])
        let a5 = session.timerFired(at: .zero.advanced(by: .milliseconds(10_500)))
        #expect(a5.first == .completed(.init(task: first, url: "u", upload: false, bytes: 1_000_000, error: nil)))
        // The upload had 2 MB − 0.25 − 0.25 = 1.5 MB left, alone at 1 MB/s → 12 s.
        #expect(a5.last == .schedule(at: .zero.advanced(by: .seconds(12))))
        let a6 = session.timerFired(at: .zero.advanced(by: .seconds(12)))
        #expect(a6.contains(.allFinished))
        #expect(session.takeCompletions().map(\.task) == [1, 2])
    }

    @Test("Silent pushes: 3 per hour; the 4th waits for the oldest to leave the hour; only the latest waits")
    func silentPushRate() {
        var gate = SilentPushGate(limit: 3, period: .seconds(3_600))
        let t = { (s: Int64) in VirtualInstant.zero.advanced(by: .seconds(s)) }
        #expect(gate.offer(1, at: t(0)) == .deliver)
        #expect(gate.offer(2, at: t(10)) == .deliver)
        #expect(gate.offer(3, at: t(20)) == .deliver)
        #expect(gate.offer(4, at: t(30)) == .wait(until: t(3_600), replacing: nil))
        #expect(gate.offer(5, at: t(40)) == .wait(until: t(3_600), replacing: 4))
        #expect(gate.timerFired(at: t(3_599)) == (nil, t(3_600)))
        let fired = gate.timerFired(at: t(3_600))
        #expect(fired.deliver == 5 && fired.retryAt == nil)
        #expect(gate.offer(6, at: t(3_601)) == .wait(until: t(3_610), replacing: nil))
    }

    @Test("VoIP ledger: from iOS 13 an unreported push kills, and 3 failures stop delivery; iOS 12 has no rule")
    func voipLedger() {
        var ios17 = VoIPPushLedger(profile: .ios17, rules: KeepAliveRules())
        ios17.received(1)
        ios17.callReported()
        #expect(ios17.finished(1) == .settled)
        for serial in 2...4 {
            #expect(!ios17.deliveryStopped)
            ios17.received(serial)
            #expect(ios17.finished(serial) == .kill)
        }
        #expect(ios17.deliveryStopped)
        #expect(ios17.finished(99) == nil)

        var ios12 = VoIPPushLedger(profile: .ios12, rules: KeepAliveRules())
        for serial in 1...5 {
            ios12.received(serial)
            #expect(ios12.finished(serial) == .settled)
        }
        #expect(!ios12.deliveryStopped)
    }
}
