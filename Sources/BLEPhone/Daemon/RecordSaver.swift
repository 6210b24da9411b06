import Logging

/// Saves an app's restoration record whenever the system Bluetooth service says it may have
/// changed (`onRestorationChange`): the record is computed, compared with the last one saved,
/// and written (one SQLite transaction) only when it differs. A burst of changes is one save:
/// the signals are coalesced while a save runs. So a process killed without warning loses at
/// most the change under way.
final class RecordSaver: Sendable {
    private let changed: AsyncStream<Void>.Continuation
    private let task: Task<Void, Never>
    private let bluetooth: SystemBluetooth

    /// Starts saving `app`'s record into `store`; `last` is what the store holds now.
    static func start(
        _ app: AppIdentifier, of bluetooth: SystemBluetooth, into store: RestorationStore, last: RestorationRecord?,
        onEvent: @escaping @Sendable (AppDaemonEvent) -> Void, logger: Logger
    ) async -> RecordSaver {
        let saver = RecordSaver(app, of: bluetooth, into: store, last: last, onEvent: onEvent, logger: logger)
        let changed = saver.changed
        await bluetooth.onRestorationChange { changed.yield() }
        return saver
    }

    private init(
        _ app: AppIdentifier, of bluetooth: SystemBluetooth, into store: RestorationStore, last: RestorationRecord?,
        onEvent: @escaping @Sendable (AppDaemonEvent) -> Void, logger: Logger
    ) {
        let (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.changed = changed
        self.bluetooth = bluetooth
        task = Task {
            var saved = last
            for await _ in changes {
                let record = await bluetooth.restorationRecord(for: app)
                guard record != saved else { continue }
                do throws(RestorationStoreError) {
                    try store.save(record, for: app)
                    saved = record
                    onEvent(.recordSaved(record, final: false))
                } catch {
                    // Kept going: the next change tries again (the file keeps the last good record).
                    logger.error("daemon: the restoration record was not saved: \(error)")
                    onEvent(.recordNotSaved(error))
                }
            }
        }
    }

    /// Stops saving once the save under way, if any, is done.
    func stop() async {
        await bluetooth.onRestorationChange(nil)
        changed.finish()
        await task.value
    }
}
