import BLELocking
import Logging

/// Sends a firmware image to a device over any `OTATarget`: numbered packets sized to the link,
/// written without response under the target's flow control, with the packets the device names
/// one by one resent alone (selective repeat) or, on a go-back-N report, rewound to the packet it
/// names, resumed from the device's own report after a link loss, a device restart or a new
/// process, and committed only once the device holds every packet. Time (idle and overall
/// timeouts, rate, ETA) comes from the injected clock, so the virtual radio's clock runs it
/// deterministically.
///
/// One engine runs one update: call `run()` once; read `progress` from another task; `abort()`
/// from anywhere. A process killed mid-update needs no state of its own to resume: a new engine
/// for the same image asks the device where it stands.
public final class OTAEngine<Target: OTATarget, C: Clock<Duration>>: Sendable {
    public let target: Target
    public let image: FirmwareImage
    public let configuration: OTAConfiguration
    /// Progress reports, newest kept when the reader lags; finishes when `run()` returns.
    public let progress: AsyncStream<OTAProgress>
    private let clock: C
    private let logger: Logger
    private let progressSink: AsyncStream<OTAProgress>.Continuation
    private let abortRequests: AsyncStream<Void>
    private let abortSink: AsyncStream<Void>.Continuation

    /// - Parameter logger: hears each recovery (link lost, request unanswered, session lost)
    ///   at `.notice` and how the update ended; silent unless given.
    public init(
        image: FirmwareImage, target: Target, configuration: OTAConfiguration = .init(), clock: C,
        logger: Logger = Logger(label: "ble.ota", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.logger = logger
        self.image = image
        self.target = target
        self.configuration = configuration
        self.clock = clock
        (progress, progressSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        (abortRequests, abortSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Stops the update: the running `run()` tells the device to drop its staging and returns
    /// `.aborted`. Before `run()`, the run aborts at once.
    public func abort() {
        abortSink.yield()
    }

    /// Runs the update to its end.
    public func run() async -> OTAOutcome {
        let started = clock.now
        let log = OTARunLog(now: started)
        let inbox = OTAReportInbox()
        // Subscribed before anything is sent, so no report can slip past.
        let reports = target.reportStream()
        let ending = await withTaskGroup(of: Ending?.self) { group in
            group.addTask { [self] in
                var transfer = OTATransfer(
                    target: target, image: image, configuration: configuration, clock: clock, log: log,
                    inbox: inbox, progress: progressSink, started: started, logger: logger)
                do throws(OTAFailure) {
                    try await transfer.run()
                    return .finished
                } catch {
                    return .failed(error)
                }
            }
            group.addTask { [self] in await watchdog(log: log, started: started) }
            group.addTask { [abortRequests] in
                for await _ in abortRequests { return .failed(.aborted) }
                return nil
            }
            group.addTask {
                for await report in reports { inbox.post(report) }
                return nil
            }
            for await ending in group {
                guard let ending else { continue }
                group.cancelAll()
                return ending
            }
            return .failed(.cancelled)
        }
        progressSink.finish()
        abortSink.finish()
        var summary = log.summary
        summary.elapsed = started.duration(to: clock.now)
        switch ending {
        case .finished:
            logger.info("OTA update installed (\(summary.recoveries) recoveries)")
            return .succeeded(summary)
        case .failed(.aborted):
            // Best effort: a device that does not hear it keeps the staging, which a later
            // start with other parameters replaces anyway.
            do {
                try await target.abort()
            } catch {
                logger.notice("OTA aborted; the device did not take the abort: \(error)")
            }
            return .failed(.aborted, summary)
        case .failed(let failure):
            logger.warning("OTA update failed: \(failure)")
            return .failed(failure, summary)
        }
    }

    private enum Ending: Sendable {
        case finished
        case failed(OTAFailure)
    }

    /// Ends the run when the overall deadline passes, or when no call to the device has completed
    /// for the idle timeout.
    private func watchdog(log: OTARunLog<C.Instant>, started: C.Instant) async -> Ending? {
        let overallDeadline = configuration.overallTimeout.map { started.advanced(by: $0) }
        while true {
            let lastActivity = log.lastActivity
            let idleDeadline = lastActivity.advanced(by: configuration.idleTimeout)
            let deadline = overallDeadline.map { min($0, idleDeadline) } ?? idleDeadline
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return nil
            }
            let now = clock.now
            if let overallDeadline, let limit = configuration.overallTimeout, now >= overallDeadline {
                return .failed(.overallTimeout(limit))
            }
            if log.lastActivity == lastActivity, now >= idleDeadline {
                return .failed(.idleTimeout(configuration.idleTimeout))
            }
        }
    }
}

/// What a run has done so far, shared between the transfer and the watchdog (and kept when the
/// transfer is cancelled, for the summary).
final class OTARunLog<Instant: InstantProtocol>: Sendable {
    private struct State {
        var summary = OTASummary()
        var lastActivity: Instant
    }

    private let state: Locked<State>

    init(now: Instant) {
        state = Locked(State(lastActivity: now))
    }

    var summary: OTASummary { state.withLock { $0.summary } }
    var lastActivity: Instant { state.withLock { $0.lastActivity } }

    func recordActivity(at instant: Instant) {
        state.withLock { $0.lastActivity = instant }
    }

    func update(_ change: (inout OTASummary) -> Void) {
        state.withLock { change(&$0.summary) }
    }
}

/// Reports that arrived while the transfer was busy, taken at its next turn.
final class OTAReportInbox: Sendable {
    private let pending = Locked<[OTADeviceReport]>([])

    func post(_ report: OTADeviceReport) {
        pending.withLock { $0.append(report) }
    }

    func take() -> [OTADeviceReport] {
        pending.withLock { reports in
            defer { reports.removeAll() }
            return reports
        }
    }
}
