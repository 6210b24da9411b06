import UnixSignals

/// How an app run as a daemon stops, as a value-type machine: it takes one input at a time (a
/// request for graceful shutdown, a signal, the app's end, the grace period's end, the last
/// steps done) and returns what the daemon must do, doing nothing itself.
///
/// The rules:
/// - a graceful shutdown (ServiceLifecycle's, from SIGTERM or SIGINT) ends the app as iOS ends
///   an app running in the background (`willTerminate` first), and starts the grace period;
/// - once the app has ended, the record is saved a last time and the transport closed
///   (`finish`), and the daemon ends cleanly;
/// - a second signal, or the grace period's end before the daemon finished, ends it at once:
///   no waiting for the app, no last save (the record saved at its last change stays);
/// - an app that ends while nobody asked (its launch's watchdog) is finished the same way, and
///   the daemon ends with that reason;
/// - the daemon's task cancelled ends it at once.
package struct DaemonStopRules: Sendable {
    package enum Phase: Sendable, Equatable {
        case running
        /// The app is being ended.
        case stopping
        /// The app ended: the last save and closing the transport are under way.
        case finishing(ended: TerminationReason, requested: Bool)
        case done
    }

    package enum Input: Sendable, Equatable {
        case shutdownRequested
        /// The second signal (the first asked for the graceful shutdown).
        case secondSignal(UnixSignal)
        case appEnded(TerminationReason)
        case gracePeriodEnded
        /// The last save and the transport's closing are done.
        case finished
        case cancelled
    }

    package enum Action: Sendable, Equatable {
        /// End the app: in front → background → `willTerminate` → `.processStopped`.
        case stopApp
        case startGracePeriod
        /// Save the record a last time and close the transport.
        case finish
        case exit(AppDaemonExit)
    }

    package private(set) var phase = Phase.running

    package init() {}

    package mutating func handle(_ input: Input) -> [Action] {
        switch (phase, input) {
        case (.done, _):
            return []
        case (_, .cancelled):
            phase = .done
            return [.exit(.cancelled)]
        case (_, .secondSignal(let signal)):
            phase = .done
            return [.exit(.interrupted(signal))]
        case (.running, .shutdownRequested):
            phase = .stopping
            return [.startGracePeriod, .stopApp]
        case (.running, .appEnded(let reason)):
            phase = .finishing(ended: reason, requested: false)
            return [.finish]
        case (.stopping, .appEnded(let reason)):
            phase = .finishing(ended: reason, requested: true)
            return [.finish]
        case (.stopping, .gracePeriodEnded), (.finishing(_, true), .gracePeriodEnded):
            phase = .done
            return [.exit(.gracePeriodEnded)]
        case (.finishing(let reason, let requested), .finished):
            phase = .done
            return [.exit(requested ? .stopped : .appEnded(reason))]
        case (.running, .gracePeriodEnded), (.running, .finished), (.stopping, .shutdownRequested),
            (.stopping, .finished), (.finishing, .shutdownRequested), (.finishing, .appEnded),
            (.finishing(_, false), .gracePeriodEnded):
            // Nothing to do: a repeated request, or a timer of a phase that is over.
            return []
        }
    }
}

/// How an app daemon ended.
public enum AppDaemonExit: Sendable, Hashable, CustomStringConvertible {
    /// Stopped by a signal within the grace period: the app got `willTerminate`, the record was
    /// saved and the transport closed.
    case stopped
    /// The app ended while nobody asked (a watchdog at launch); record saved, transport closed.
    case appEnded(TerminationReason)
    /// The grace period ended before the app and the daemon were done: ended at once.
    case gracePeriodEnded
    /// A second signal: ended at once.
    case interrupted(UnixSignal)
    /// The daemon's task was cancelled.
    case cancelled

    /// Whether the daemon ended as asked, with its record saved at the end.
    public var isClean: Bool { self == .stopped }

    /// The process's exit status for this end: 0 stopped; 2 the app ended by itself; 3 the
    /// grace period ended; 128 + the signal's number for a second signal (as a shell reports
    /// a process a signal ended); 1 cancelled.
    public var status: Int32 {
        switch self {
        case .stopped: 0
        case .appEnded: 2
        case .gracePeriodEnded: 3
        case .interrupted(let signal): 128 + signal.rawValue
        case .cancelled: 1
        }
    }

    public var description: String {
        switch self {
        case .stopped: "stopped"
        case .appEnded(let reason): "the app ended by itself (\(reason))"
        case .gracePeriodEnded: "the grace period ended before the app did"
        case .interrupted(let signal): "a second signal (\(signal)) ended it at once"
        case .cancelled: "cancelled"
        }
    }
}
