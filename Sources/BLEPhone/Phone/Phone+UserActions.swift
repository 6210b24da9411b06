extension Phone {
    /// The user taps the app's icon: launches it, or brings it to the front (resuming it if
    /// suspended); the app in front before goes to the background ("Managing your app's life
    /// cycle"). Opening while locked unlocks first.
    public func open(_ app: AppIdentifier) {
        guard runtime.apps[app] != nil else {
            logger.warning("open: \(app) is not installed")
            record(.note("open: not installed"), app: app)
            return
        }
        record(.user(.open(app)), app: app)
        if runtime.awaitingFirstUnlock {
            firstUnlock()
        } else if runtime.locked {
            unlockScreen()
        }
        bringToFront(app)
        restartIdleTimer()
    }

    /// The user goes to the home screen: the app in front goes to the background.
    public func home() {
        record(.user(.home))
        sendFrontAppToBackground()
        restartIdleTimer()
    }

    /// The user presses the side button: the app in front goes to the background, and comes
    /// back at the unlock.
    public func lock() {
        record(.user(.lock))
        lockScreen()
    }

    /// The user unlocks the phone: the app that was in front when it locked comes back. After
    /// a restart with a passcode, this is the first unlock (`firstUnlock()`).
    public func unlock() {
        if runtime.awaitingFirstUnlock {
            firstUnlock()
            return
        }
        record(.user(.unlock))
        unlockScreen()
        restartIdleTimer()
    }

    /// The user swipes the app away in the app switcher: `willTerminate` for an app running in
    /// the background, nothing for a suspended one (UIApplicationDelegate
    /// `applicationWillTerminate(_:)`); a Bluetooth event never relaunches it (TN3115), except
    /// an AccessorySetupKit app on iOS 26 (note 5).
    public func forceQuit(_ app: AppIdentifier) {
        record(.user(.forceQuit(app)), app: app)
        if runtime.front == app { sendFrontAppToBackground() }
        feed(app) { $0.terminate(.forceQuit) }
        restartIdleTimer()
    }

    /// `UIApplication.isIdleTimerDisabled` for the instance of `launch`: while the app in front
    /// has it set, the phone does not lock by itself.
    func setIdleTimerDisabled(_ disabled: Bool, for app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch) else { return }
        runtime.apps[app]!.idleTimerDisabled = disabled
        if runtime.front == app { restartIdleTimer() }
    }

    func idleTimerDisabled(for app: AppIdentifier, launch: Int) -> Bool {
        guard isCurrent(app, launch: launch) else { return false }
        return runtime.apps[app]!.idleTimerDisabled
    }

    // MARK: Shared steps

    func bringToFront(_ app: AppIdentifier, reason: LaunchReason = .user) {
        guard runtime.front != app || runtime.apps[app]?.lifecycle.state == .notRunning else { return }
        sendFrontAppToBackground()
        runtime.front = app
        runtime.foregroundSerial += 1
        runtime.apps[app]!.lastForegrounded = runtime.foregroundSerial
        if runtime.apps[app]!.lifecycle.state == .notRunning {
            launch(app, inFront: true, reason: reason)
        } else {
            feed(app) { $0.enterForeground() }
        }
    }

    func sendFrontAppToBackground() {
        guard let front = runtime.front else { return }
        runtime.front = nil
        feed(front) { $0.enterBackground() }
    }

    func lockScreen() {
        guard !runtime.locked else { return }
        runtime.locked = true
        runtime.frontBeforeLock = runtime.front
        sendFrontAppToBackground()
        cancel(.autoLock)
        scheduledTasksSawLockChange()
    }

    func unlockScreen() {
        guard runtime.locked else { return }
        runtime.locked = false
        if let previous = runtime.frontBeforeLock, runtime.apps[previous]?.lifecycle.state != .notRunning {
            bringToFront(previous)
        }
        runtime.frontBeforeLock = nil
        scheduledTasksSawLockChange()
    }

    /// Idle time restarts at each user action; the phone locks after `profile.autoLock` unless
    /// the app in front disabled the idle timer.
    func restartIdleTimer() {
        cancel(.autoLock)
        guard let autoLock = profile.autoLock, !runtime.locked else { return }
        if let front = runtime.front, runtime.apps[front]?.idleTimerDisabled == true { return }
        schedule(.autoLock, after: autoLock)
    }

    func autoLockFired() {
        guard !runtime.locked else { return }
        record(.system(.autoLock))
        lockScreen()
    }
}

extension AppContext {
    /// `UIApplication.isIdleTimerDisabled` (set while the app is in front, it keeps the phone
    /// from locking by itself).
    public var isIdleTimerDisabled: Bool {
        get async { await phone.idleTimerDisabled(for: app, launch: launchNumber) }
    }

    /// Sets `UIApplication.isIdleTimerDisabled`.
    public func setIdleTimerDisabled(_ disabled: Bool) async {
        await phone.setIdleTimerDisabled(disabled, for: app, launch: launchNumber)
    }
}
