import BLEHost
import BLEWire

/// Requests the app leaves unanswered (`readRequests`, `writeRequests`): what the manager
/// answers for it, and when.
///
/// A central that sends a request gets nothing else through until the response (one
/// outstanding request per bearer, Core 5.4 Vol 3 Part F §3.3.2), and only its 30-second
/// transaction timeout (§3.3.3) ends the wait — by closing the link. So the manager answers for
/// the app, with an ATT Error Response (§3.4.1.1), when nobody can: the request stream's
/// listener has gone, or (by default) the app has not called `respond` within
/// `unansweredRequestTimeout`. Core Bluetooth likewise answers an unanswered request with an
/// error after a timeout of its own.
///
/// The error is Unlikely Error (0x0E: "The attribute request that was requested has
/// encountered an error that was unlikely, and therefore could not be completed as requested",
/// Vol 3 Part F §3.4.1.1 Table 3.4), the code this manager already answers with when a
/// request's link or characteristic is gone.
/// Request Not Supported (0x06) would tell the client that the server does not implement the
/// request's opcode at all — untrue for reads and writes, and a client may stop trying them.
struct UnansweredRequests {
    /// A few seconds: well inside the peer's 30 s, long enough for an app that does answer.
    static let defaultTimeout: Duration = .seconds(5)
    static let errorCode = ATTErrorCode.unlikelyError

    /// Why a request was answered for the app.
    enum Reason: CustomStringConvertible {
        /// The request stream's listener is gone (cancelled): nobody will see it.
        case noListener
        /// The app did not respond in time.
        case timedOut(Duration)

        var description: String {
            switch self {
            case .noListener: "no listener on the request stream"
            case .timedOut(let timeout): "not answered within \(timeout)"
            }
        }
    }

    /// How long the app has to respond; nil waits for as long as the link lasts.
    var timeout: Duration? = defaultTimeout
    /// Requests answered for the app, since the manager was made.
    var count = 0
    /// When each request waiting for the app is answered for it, as time on `timeline`.
    var deadlines: [GATTRequestToken: Duration] = [:]
    /// The host's clock as time since the first request (made then: the manager's
    /// initialiser has no clock of its own to hand).
    var timeline: HostTimeline?
    /// One task for all deadlines, sleeping until the earliest (as the host's ATT transaction
    /// watchdog does): a task per request would cost several task switches per round trip.
    var watchdog: Task<Void, Never>?
    /// When the watchdog wakes.
    var watchdogWake: Duration?

    /// Forgets a request's deadline: it was answered. The watchdog is left to find nothing.
    mutating func answered(_ token: GATTRequestToken) {
        deadlines[token] = nil
    }

    /// Forgets the deadlines of a link's requests: the link is gone.
    mutating func linkEnded(_ connection: GATTConnectionID) {
        for token in deadlines.keys where token.connection == connection { deadlines[token] = nil }
    }

    /// The requests past their deadline at `now`, in a stable order.
    func overdue(at now: Duration) -> [GATTRequestToken] {
        deadlines.filter { $0.value <= now }.sorted { $0.value < $1.value }.map(\.key)
    }
}

extension PeripheralManager {
    /// How long a read or write request waits for `respond` before the manager answers it with
    /// Unlikely Error (0x0E), on the host's clock (virtual time on the virtual radio); nil lets
    /// it wait until the central's own 30 s ATT timeout closes the link. Default 5 s.
    public var unansweredRequestTimeout: Duration? { unanswered.timeout }

    /// Sets `unansweredRequestTimeout`, for requests received from now on. A timeout of zero or
    /// less answers each request at once, as if nobody listened.
    public func setUnansweredRequestTimeout(_ timeout: Duration?) {
        unanswered.timeout = timeout
    }

    /// How many requests the manager answered with an error because the app did not: no
    /// listener, or no answer in time (each also logged at `.notice`).
    public var unansweredRequestCount: Int { unanswered.count }

    /// Hands a request to the app's stream and starts its timer; answers it at once when the
    /// stream has no listener left. Its continuation is already in `pendingReads` or
    /// `pendingWrites`.
    func offer<Element>(_ element: Element, token: GATTRequestToken, to sink: EventStream<Element>.Continuation) {
        guard sink.yield(element) == .enqueued else {
            answerForApp(token, because: .noListener)
            return
        }
        guard let timeout = unanswered.timeout else { return }
        guard timeout > .zero else {
            answerForApp(token, because: .timedOut(timeout))
            return
        }
        let timeline = unanswered.timeline ?? HostTimeline(stack.clock)
        unanswered.timeline = timeline
        let deadline = timeline.now() + timeout
        unanswered.deadlines[token] = deadline
        // A running watchdog wakes no later than this, unless the timeout was shortened.
        if let wake = unanswered.watchdogWake, wake <= deadline { return }
        unanswered.watchdog?.cancel()
        unanswered.watchdogWake = deadline
        unanswered.watchdog = stack.spawn { [weak self] in
            var wake = deadline
            while true {
                do { try await timeline.sleep(until: wake) } catch { return }
                guard let next = await self?.expireRequests(at: timeline.now()) else { return }
                wake = next
            }
        }
    }

    /// Answers the requests past their deadline; returns the next deadline, or nil — and the
    /// watchdog ends — when none is waiting.
    private func expireRequests(at now: Duration) -> Duration? {
        for token in unanswered.overdue(at: now) {
            answerForApp(token, because: .timedOut(unanswered.timeout ?? UnansweredRequests.defaultTimeout))
        }
        let next = unanswered.deadlines.values.min()
        unanswered.watchdogWake = next
        if next == nil { unanswered.watchdog = nil }
        return next
    }

    /// Answers a request still waiting for the app with Unlikely Error; counts and logs it.
    func answerForApp(_ token: GATTRequestToken, because reason: UnansweredRequests.Reason) {
        unanswered.answered(token)
        let code = UnansweredRequests.errorCode
        if let continuation = pendingReads.removeValue(forKey: token) {
            continuation.resume(returning: .error(code))
        } else if let continuation = pendingWrites.removeValue(forKey: token) {
            continuation.resume(returning: .error(code))
        } else {
            return
        }
        unanswered.count += 1
        stack.host.logger.notice(
            "peripheral manager: a request on link \(token.connection.handle.rawValue) answered with \(code): \(reason)"
        )
    }

    /// When the listener of `readRequests` or `writeRequests` cancels, the requests it was
    /// handed and will never answer are answered at once (later ones find no listener).
    func watchRequestListeners() {
        let stack = self.stack
        readSink.onTermination { [weak self] termination in
            guard termination == .cancelled, let self else { return }
            stack.spawn { await self.requestListenerGone(reads: true) }
        }
        writeSink.onTermination { [weak self] termination in
            guard termination == .cancelled, let self else { return }
            stack.spawn { await self.requestListenerGone(reads: false) }
        }
    }

    private func requestListenerGone(reads: Bool) {
        let tokens = reads ? Array(pendingReads.keys) : Array(pendingWrites.keys)
        for token in tokens { answerForApp(token, because: .noListener) }
    }
}
