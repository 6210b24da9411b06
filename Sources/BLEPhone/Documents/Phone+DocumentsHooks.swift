import Foundation

extension Phone {
    /// An app changed state: documents chosen for it are delivered when it becomes active
    /// (after `didFinishLaunching` or `willEnterForeground`, before `didBecomeActive`).
    func documentsSawStateChange(of app: AppIdentifier, from old: AppState, to new: AppState) {
        guard new == .active, let pending = runtime.documents.pendingDeliveries.removeValue(forKey: app) else { return }
        for delivery in pending { deliver(delivery, to: app) }
    }

    /// An app's process ended: documents not yet delivered are lost with it (traced, counted),
    /// and its alerts go away unanswered.
    func documentsSawTermination(of app: AppIdentifier, reason: TerminationReason) {
        if let lost = runtime.documents.pendingDeliveries.removeValue(forKey: app) {
            for delivery in lost {
                runtime.documents.counters.refused += 1
                logger.notice("\(app) ended before it got \(delivery.url.lastPathComponent)")
                record(
                    .document(.refused(file: delivery.url.lastPathComponent, why: "the app ended first (\(reason))")),
                    app: app)
            }
        }
        for id in runtime.documents.promptOrder where runtime.documents.prompts[id]?.app == app {
            answer(id, with: nil)
        }
    }
}
