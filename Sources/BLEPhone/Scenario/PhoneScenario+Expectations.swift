import BLESimulation

/// An expectation checked against a trace: passed or not, and what the trace showed.
public struct PhoneExpectationResult: Sendable, Equatable, CustomStringConvertible {
    public var expectation: PhoneScenario.Expectation
    public var passed: Bool
    /// What the trace showed (the count, the state, the reasons): why it passed or failed.
    public var observed: String

    public var description: String { "\(passed ? "pass" : "FAIL")  \(expectation): \(observed)" }
}

extension PhoneScenario.Expectation: CustomStringConvertible {
    public var description: String {
        switch self {
        case .state(let state, let at):
            "state \(state)" + (at.map { " at \(ScenarioParser.format($0.inSeconds)) s" } ?? " at the end")
        case .killed(let reason): "killed for \(reason)"
        case .neverKilled: "never killed"
        case .launches(let count): "\(count) launch\(count == 1 ? "" : "es")"
        case .relaunches(let count): "\(count) relaunch\(count == 1 ? "" : "es") by state restoration"
        case .deliveredAtLeast(let count, let kind): "at least \(count) \(kind.map { "\($0) " } ?? "")events delivered"
        case .deliveredAtMost(let count, let kind): "at most \(count) \(kind.map { "\($0) " } ?? "")events delivered"
        case .noEventDropped: "no event dropped"
        case .alertsAtLeast(let count): "at least \(count) system alert\(count == 1 ? "" : "s")"
        case .noted(let text): "note \"\(text)\""
        case .keepAlive(let expectation): KeepAliveScenario.description(expectation)
        case .tasks(let expectation): expectation.description
        case .audio(let audio): audio.description
        case .document(let expectation): expectation.description
        }
    }

    /// Checks the expectation against `trace` for `app`, whose run began at `origin` (the
    /// scenario's time zero) and ended at `end`.
    public func evaluate(
        _ trace: [PhoneTraceEntry], app: AppIdentifier, origin: VirtualInstant = .zero, end: VirtualInstant
    ) -> PhoneExpectationResult {
        let entries = trace.lazy.filter { $0.app == app }
        func result(_ passed: Bool, _ observed: String) -> PhoneExpectationResult {
            PhoneExpectationResult(expectation: self, passed: passed, observed: observed)
        }
        switch self {
        case .state(let expected, let at):
            let instant = at.map { origin.advanced(by: $0) } ?? end
            var state = AppState.notRunning
            for entry in entries where entry.time <= instant {
                if case .stateChanged(_, let to) = entry.event { state = to }
            }
            return result(state == expected, "\(state) at \(PhoneTraceText.time(instant))")
        case .killed(let expected):
            let reasons = Self.kills(entries)
            return result(reasons.contains(expected), Self.killsText(reasons))
        case .neverKilled:
            let reasons = Self.kills(entries)
            return result(reasons.isEmpty, Self.killsText(reasons))
        case .launches(let expected):
            let count = entries.count { if case .launched = $0.event { true } else { false } }
            return result(count == expected, "\(count) launch\(count == 1 ? "" : "es")")
        case .relaunches(let expected):
            let count = entries.count { if case .launched(.bluetoothRestoration) = $0.event { true } else { false } }
            return result(count == expected, "\(count) relaunch\(count == 1 ? "" : "es")")
        case .deliveredAtLeast(let minimum, let kind):
            let count = Self.delivered(entries, kind: kind)
            return result(count >= minimum, "\(count) delivered")
        case .deliveredAtMost(let maximum, let kind):
            let count = Self.delivered(entries, kind: kind)
            return result(count <= maximum, "\(count) delivered")
        case .noEventDropped:
            let count = entries.count { if case .eventDropped = $0.event { true } else { false } }
            return result(count == 0, "\(count) dropped")
        case .alertsAtLeast(let minimum):
            let count = entries.count { if case .alert = $0.event { true } else { false } }
            return result(count >= minimum, "\(count) alert\(count == 1 ? "" : "s")")
        case .noted(let text):
            let found = entries.contains { $0.event == .note(text) }
            return result(found, found ? "noted" : "no such note")
        case .keepAlive(let expectation):
            let (passed, observed) = KeepAliveScenario.evaluate(expectation, entries)
            return result(passed, observed)
        case .tasks(let expectation):
            let (passed, observed) = expectation.evaluate(Array(entries), origin: origin)
            return result(passed, observed)
        case .audio(let audio):
            let (passed, observed) = audio.evaluate(trace, app: app, end: end)
            return result(passed, observed)
        case .document(let expectation):
            let (passed, observed) = expectation.evaluate(entries)
            return result(passed, observed)
        }
    }

    private static func kills(_ entries: some Sequence<PhoneTraceEntry>) -> [TerminationReason] {
        entries.compactMap { if case .killed(let reason) = $0.event { reason } else { nil } }
    }

    private static func killsText(_ reasons: [TerminationReason]) -> String {
        reasons.isEmpty ? "never killed" : "killed for " + reasons.map(\.description).joined(separator: ", ")
    }

    private static func delivered(_ entries: some Sequence<PhoneTraceEntry>, kind: BluetoothEventKind?) -> Int {
        entries.count {
            if case .eventDelivered(let delivered, _) = $0.event { kind == nil || kind == delivered } else { false }
        }
    }
}
