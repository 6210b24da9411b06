/// Telling a keeper of restoration records when to save (a daemon keeps the record in a file,
/// `AppDaemon`): every change of what `restorationRecord(for:)` is made of — links, pending
/// connects and subscriptions (`carryOut`, `setNotifyValue`), scans (`refreshScan`), services,
/// advertising and subscribed centrals — calls the handler. It may be called when nothing
/// changed; the keeper compares records, so a save happens only for a real change.
extension SystemBluetooth {
    /// Calls `handler` (on the service's executor, synchronously: it must only signal) after
    /// each such change; nil stops.
    package func onRestorationChange(_ handler: (@Sendable () -> Void)?) {
        restorationChanged = handler
    }

    func restorationMayHaveChanged() {
        restorationChanged?()
    }
}
