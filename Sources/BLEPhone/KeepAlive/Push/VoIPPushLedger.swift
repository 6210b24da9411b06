/// One app's VoIP pushes as a value-type state machine (PushKit
/// "pushRegistry(_:didReceiveIncomingPushWith:for:completion:)": "On iOS 13.0 and later, incoming
/// Voice over IP calls must be reported when they are received and before this method finishes
/// execution using the CallKit framework, or the system will terminate your app. Repeatedly
/// failing to report calls may prevent your app from receiving any more incoming call
/// notifications"). Before iOS 13 there is no such rule.
package struct VoIPPushLedger: Sendable {
    package enum Outcome: Sendable, Equatable {
        /// The push is settled: its hold ends.
        case settled
        /// Not reported: kill the app (0xbaadca11).
        case kill
    }

    private let mustReport: Bool
    private let failuresBeforeStop: Int
    /// Pushes handed to the app and not yet completed, by serial: whether a call was reported.
    package private(set) var pending: [Int: Bool] = [:]
    /// Pushes not reported (they survive the process: the system keeps count).
    package private(set) var failures = 0

    package init(profile: PhoneProfile, rules: KeepAliveRules) {
        mustReport = profile.voipPushMustReportCall
        failuresBeforeStop = rules.voipFailuresBeforeDeliveryStops
    }

    /// Whether PushKit still delivers to the app.
    package var deliveryStopped: Bool { mustReport && failures >= failuresBeforeStop }

    /// A push is handed to the app.
    package mutating func received(_ serial: Int) { pending[serial] = false }

    /// The app reported a new incoming call: every push it is handling counts as reported.
    package mutating func callReported() {
        for serial in pending.keys { pending[serial] = true }
    }

    /// The handler's completion was called (or its allowance ran out): nil for an unknown push.
    package mutating func finished(_ serial: Int) -> Outcome? {
        guard let reported = pending.removeValue(forKey: serial) else { return nil }
        guard mustReport, !reported else { return .settled }
        failures += 1
        return .kill
    }

    /// The process ended: its pushes are gone with it.
    package mutating func processEnded() { pending.removeAll() }
}
