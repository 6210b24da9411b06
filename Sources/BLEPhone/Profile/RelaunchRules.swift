/// How an app stopped running, as the relaunch rules tell them apart (TN3115's rows).
public enum TerminationCause: String, Sendable, Hashable, Codable, CaseIterable {
    /// The system purged the suspended app for memory.
    case memoryPressure
    /// The app crashed (or a watchdog killed it).
    case crash
    /// The user swiped it away in the app switcher.
    case forceQuit
    /// The user turned Bluetooth off in Settings (and on again).
    case bluetoothOffInSettings
    /// The user turned Bluetooth off in Control Center (which only disconnects accessories).
    case bluetoothOffInControlCenter
    /// Airplane mode, with Bluetooth left on.
    case airplaneMode
    /// Airplane mode, and the user also turned Bluetooth off.
    case airplaneModeWithBluetoothOff
    /// The phone restarted (the first unlock follows when it has a passcode).
    case reboot
}

/// Whether a Bluetooth event for which a terminated app was waiting relaunches it, per cause
/// (Technical Note TN3115 "Bluetooth state restoration app relaunch rules"; QA1962 before it).
public struct RelaunchRules: Sendable, Hashable {
    /// Causes after which any app with state restoration is relaunched.
    public var relaunchesAfter: Set<TerminationCause>
    /// Causes after which only an AccessorySetupKit app is relaunched (TN3115 note 5, iOS 26).
    public var relaunchesAccessorySetupKitAppsAfter: Set<TerminationCause>
    /// A reboot relaunches only after the first unlock when the phone has a passcode.
    public var rebootWaitsForFirstUnlock: Bool

    public init(
        relaunchesAfter: Set<TerminationCause>, relaunchesAccessorySetupKitAppsAfter: Set<TerminationCause> = [],
        rebootWaitsForFirstUnlock: Bool = true
    ) {
        self.relaunchesAfter = relaunchesAfter
        self.relaunchesAccessorySetupKitAppsAfter = relaunchesAccessorySetupKitAppsAfter
        self.rebootWaitsForFirstUnlock = rebootWaitsForFirstUnlock
    }

    /// TN3115 (iOS 11 and later): memory purge yes, crash yes, force-quit no, Bluetooth off in
    /// Settings no, in Control Center yes, airplane mode yes unless Bluetooth was turned off too,
    /// reboot yes (after the first unlock with a passcode).
    public static let tn3115 = RelaunchRules(
        relaunchesAfter: [.memoryPressure, .crash, .bluetoothOffInControlCenter, .airplaneMode, .reboot])

    /// QA1962 (iOS 10 and earlier): as TN3115, but neither airplane mode nor a reboot relaunch.
    public static let qa1962 = RelaunchRules(
        relaunchesAfter: [.memoryPressure, .crash, .bluetoothOffInControlCenter])

    /// TN3115 with its iOS 26 note 5: the force-quit, Control Center and airplane-mode rows
    /// relaunch only AccessorySetupKit apps — and those even after a force-quit.
    public static let tn3115iOS26 = RelaunchRules(
        relaunchesAfter: [.memoryPressure, .crash, .reboot],
        relaunchesAccessorySetupKitAppsAfter: [.forceQuit, .bluetoothOffInControlCenter, .airplaneMode])

    /// Whether an app that stopped for `cause` is relaunched when the Bluetooth event it waits for
    /// occurs.
    public func relaunches(after cause: TerminationCause, usesAccessorySetupKit: Bool) -> Bool {
        if relaunchesAfter.contains(cause) { return true }
        return usesAccessorySetupKit && relaunchesAccessorySetupKitAppsAfter.contains(cause)
    }
}
