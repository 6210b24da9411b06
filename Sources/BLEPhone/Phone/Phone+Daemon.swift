// What an app run as a Linux daemon (`AppDaemon`) asks of the phone: a launch in front, with
// or without a record to restore, the trace as it happens, and an end like a background app's.

extension Phone {
    /// Hands every entry to `observer` as it is recorded. With `retaining` false the phone keeps
    /// no trace of its own: a daemon runs for days, and a heartbeat a second would grow it
    /// without bound.
    package func observeTrace(retaining: Bool, _ observer: @escaping @Sendable (PhoneTraceEntry) -> Void) {
        retainsTrace = retaining
        if !retaining { trace.removeAll() }
        traceObserver = observer
    }

    /// Launches `app` in front: as the user does (`.user`), or for a new process of a daemon
    /// that restored a record into the Bluetooth service first (`.processRestart`: the managers
    /// the options name get `willRestoreState`). A daemon's app stays in front: a Linux process
    /// is never suspended, so none of the background rules apply to it.
    package func launchInFront(_ app: AppIdentifier, reason: LaunchReason) {
        guard let entry = runtime.apps[app] else {
            logger.warning("launch: \(app) is not installed")
            return
        }
        guard entry.lifecycle.state == .notRunning else { return }
        if reason == .user { record(.user(.open(app)), app: app) }
        sendFrontAppToBackground()
        runtime.front = app
        launch(app, inFront: true, reason: reason)
        restartIdleTimer()
    }

    /// Ends `app` as the system ends an app running in the background
    /// (UIApplicationDelegate `applicationWillTerminate(_:)`: called "when the app is running in
    /// the background, not suspended, and the system needs to terminate it"): an app in front
    /// first leaves it (`didEnterBackground`), then `willTerminate` runs, then the process ends
    /// with `.processStopped`. The callbacks keep their watchdog allowances.
    package func stopProcess(of app: AppIdentifier) {
        guard runtime.apps[app] != nil else { return }
        if runtime.front == app { sendFrontAppToBackground() }
        feed(app) { $0.terminate(.processStopped) }
    }
}
