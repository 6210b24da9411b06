/// Where the user turns Bluetooth off or on (TN3115 tells them apart).
public enum BluetoothSwitch: String, Sendable, Hashable, Codable {
    /// Settings › Bluetooth: turns the radio off, and apps using Bluetooth are ended.
    case settings
    /// Control Center: disconnects accessories; the radio stays available to the system.
    case controlCenter
}

extension Phone {
    /// The system purges the app for memory: a suspended or background app is ended without
    /// any callback ("suspended apps are purged without notice"; UIApplicationDelegate); the
    /// app in front is never purged (noted in the trace).
    public func memoryPressure(_ app: AppIdentifier) {
        record(.system(.memoryPressure(app)), app: app)
        guard runtime.front != app else {
            record(.note("memory pressure spares the app in front"), app: app)
            return
        }
        kill(app, .memoryPressure)
    }

    /// The app crashes, in whatever state it runs.
    public func crash(_ app: AppIdentifier) {
        record(.system(.crash(app)), app: app)
        if runtime.front == app { runtime.front = nil }
        kill(app, .crash)
    }

    /// The phone restarts: every app ends (no callback), the phone comes up locked. With a
    /// passcode, nothing is relaunched before `firstUnlock()` (TN3115: "after the first unlock").
    public func reboot(passcode: Bool) {
        record(.user(.reboot))
        runtime.front = nil
        for app in runtime.apps.keys.sorted() { kill(app, .reboot) }
        runtime.locked = true
        runtime.frontBeforeLock = nil
        runtime.awaitingFirstUnlock = passcode && profile.relaunch.rebootWaitsForFirstUnlock
        cancel(.autoLock)
    }

    /// The first unlock after a restart with a passcode: relaunches held since then happen now.
    public func firstUnlock() {
        record(.user(.firstUnlock))
        runtime.awaitingFirstUnlock = false
        unlockScreen()
        restartIdleTimer()
        let waiting = runtime.relaunchesAwaitingUnlock
        runtime.relaunchesAwaitingUnlock.removeAll()
        for (app, delivery) in waiting { offer(delivery, to: app) }
    }

    /// The user turns Bluetooth off or on, in Settings or in Control Center.
    ///
    /// Settings off ends the apps that use Bluetooth (background modes or restore identifiers)
    /// except the one in front, with `.bluetoothOffInSettings`; Control Center off ends none.
    /// Either way, an app not running while the switch is off has that TN3115 row recorded
    /// against it: Settings never relaunches, Control Center does (iOS 11–25; on iOS 26 only
    /// AccessorySetupKit apps).
    public func setBluetooth(on: Bool, in place: BluetoothSwitch) {
        switch place {
        case .settings:
            record(.user(.bluetoothInSettings(on: on)))
            let wasOn = runtime.radioOn
            runtime.bluetoothOffInSettings = !on
            if !on {
                for app in runtime.apps.keys.sorted() where usesBluetooth(app) && runtime.front != app {
                    kill(app, .bluetoothOffInSettings)
                }
            }
            radioMayHaveChanged(wasOn: wasOn)
        case .controlCenter:
            record(.user(.bluetoothInControlCenter(on: on)))
            let wasOn = runtime.radioOn
            runtime.bluetoothOffInControlCenter = !on
            radioMayHaveChanged(wasOn: wasOn)
        }
        if !on { markTerminatedApps() }
        restartIdleTimer()
    }

    /// The user turns airplane mode on or off. It turns the Bluetooth radio off here (the
    /// TN3115 row "airplane mode"); with Bluetooth also off in Settings the row is "airplane
    /// mode with Bluetooth off", which never relaunches.
    public func setAirplaneMode(on: Bool) {
        record(.user(.airplaneMode(on: on)))
        let wasOn = runtime.radioOn
        runtime.airplaneMode = on
        radioMayHaveChanged(wasOn: wasOn)
        if on { markTerminatedApps() }
        restartIdleTimer()
    }

    /// The relaunch-table rows in force now (what a termination now also falls under).
    func causesInForce() -> Set<TerminationCause> {
        var causes: Set<TerminationCause> = []
        if runtime.bluetoothOffInSettings { causes.insert(.bluetoothOffInSettings) }
        if runtime.bluetoothOffInControlCenter { causes.insert(.bluetoothOffInControlCenter) }
        if runtime.airplaneMode {
            causes.insert(runtime.bluetoothOffInSettings ? .airplaneModeWithBluetoothOff : .airplaneMode)
        }
        return causes
    }

    /// Adds the rows in force to every app that is not running.
    private func markTerminatedApps() {
        let causes = causesInForce()
        for app in runtime.apps.keys where runtime.apps[app]!.lifecycle.state == .notRunning {
            runtime.apps[app]!.causesSinceRun.formUnion(causes)
        }
    }

    private func usesBluetooth(_ app: AppIdentifier) -> Bool {
        guard let declaration = runtime.apps[app]?.declaration else { return false }
        return !declaration.restoreIdentifiers.isEmpty
            || declaration.backgroundModes.contains(.bluetoothCentral)
            || declaration.backgroundModes.contains(.bluetoothPeripheral)
    }

    private func radioMayHaveChanged(wasOn: Bool) {
        let isOn = runtime.radioOn
        guard isOn != wasOn else { return }
        let bluetooth = self.bluetooth
        Task(executorPreference: simulation.executor) { await bluetooth.radioPowerChanged(on: isOn) }
    }
}
