/// An app's execution state (UIApplication.State plus the two states without a process;
/// "About the app launch sequence", "Managing your app's life cycle").
public enum AppState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// No process.
    case notRunning
    /// In front but not receiving events (launching, a system alert, leaving the screen).
    case inactive
    /// In front and receiving events.
    case active
    /// Running, not in front.
    case background
    /// In memory, running no code: the app's executor holds its jobs and its clock stands.
    case suspended

    public var description: String { rawValue }

    /// Whether the app's code runs in this state.
    public var runsCode: Bool {
        switch self {
        case .inactive, .active, .background: true
        case .notRunning, .suspended: false
        }
    }
}

/// The app's one scene, on profiles with scenes (UIScene.ActivationState, iOS 13+). A scene can
/// be disconnected while the process lives on.
public enum SceneState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case unattached
    case foregroundInactive
    case foregroundActive
    case background

    public var description: String { rawValue }
}

/// Why the system ended an app's process, as a crash report's termination reason shows it.
public enum TerminationReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 0x8badf00d: the watchdog — a launch or `applicationDidEnterBackground` took too long.
    case watchdog
    /// 0x2182bad2: background tasks not ended when their time ran out.
    case backgroundTaskOverrun
    /// Purged while suspended, for memory (no report, no callback).
    case memoryPressure
    /// Swiped away in the app switcher.
    case forceQuit
    /// The app crashed.
    case crash
    /// The phone restarted.
    case reboot
    /// The user turned Bluetooth off in Settings: apps using Bluetooth are ended.
    case bluetoothOffInSettings
    /// The process of an app run as a Linux daemon (`AppDaemon`) was stopped by SIGTERM or
    /// SIGINT; like a background app the system ends, it got `willTerminate` first.
    case processStopped
    /// 0x2182bad3: a background URLSession's completion handler was not called in time.
    case urlSessionCompletionOverrun
    /// 0xbaadca11: a VoIP push was not reported to CallKit as a call.
    case voipPushNotReported
    /// A BGTaskScheduler task neither completed nor expired gracefully: the system ended the app
    /// when the task's time ran out.
    case scheduledTaskOverrun

    /// The reason's code, for the ones that have one.
    public var code: UInt32? {
        switch self {
        case .watchdog: 0x8bad_f00d
        case .backgroundTaskOverrun: 0x2182_bad2
        case .urlSessionCompletionOverrun: 0x2182_bad3
        case .voipPushNotReported: 0xbaad_ca11
        case .memoryPressure, .forceQuit, .crash, .reboot, .bluetoothOffInSettings, .processStopped,
            .scheduledTaskOverrun:
            nil
        }
    }

    /// The row of the relaunch table this termination falls under.
    public var cause: TerminationCause {
        switch self {
        case .watchdog, .backgroundTaskOverrun, .crash, .urlSessionCompletionOverrun, .voipPushNotReported,
            .scheduledTaskOverrun:
            .crash
        case .memoryPressure: .memoryPressure
        case .forceQuit: .forceQuit
        case .reboot: .reboot
        case .bluetoothOffInSettings: .bluetoothOffInSettings
        // The system ended the process, as at a restart; the daemon's phone ends with it, and
        // the next process restores the record itself (no relaunch decision is made).
        case .processStopped: .reboot
        }
    }

    public var description: String {
        switch self {
        case .watchdog: "watchdog (0x8badf00d)"
        case .backgroundTaskOverrun: "background task overrun (0x2182bad2)"
        case .memoryPressure: "memory pressure"
        case .forceQuit: "force-quit"
        case .crash: "crash"
        case .reboot: "reboot"
        case .bluetoothOffInSettings: "Bluetooth turned off in Settings"
        case .processStopped: "the daemon's process was stopped"
        case .urlSessionCompletionOverrun: "URLSession completion handler not called in time (0x2182bad3)"
        case .voipPushNotReported: "VoIP push not reported as a call (0xbaadca11)"
        case .scheduledTaskOverrun: "scheduled task not completed when its time ran out"
        }
    }
}
