/// A simulated handset's operating-system release: the numbers and rules that changed between
/// iOS versions and that a companion app meets in the background.
///
/// Facts and how sure each is: ../shared/reference/phone-rules.md. What Apple documents is fixed
/// here; what developers observed (budgets, the expiration lead, the wake window) is a field with
/// the observed value as its default, so a test or scenario can change it.
public struct PhoneProfile: Sendable, Hashable, CustomStringConvertible {
    /// The profile's name in scenarios and traces (`ios6`, `ios12`, `ios17`, `ios26`).
    public var name: String
    /// The major version of the release.
    public var majorVersion: Int
    /// What `beginBackgroundTask` grants after the app leaves the foreground: 600 s up to iOS 6,
    /// 180 s in iOS 7–12, 30 s from iOS 13 (observed, 25–40 s; UIApplication Background Task
    /// Notes, Apple DTS).
    public var backgroundTaskBudget: Duration
    /// How long before the budget ends the expiration handlers run (observed ~5 s).
    public var expirationLead: Duration
    /// How long a Bluetooth event keeps a `bluetooth-central` / `bluetooth-peripheral` app
    /// running in the background ("around 10 seconds", Core Bluetooth Programming Guide; Apple DTS
    /// saw anything up to ~30 s). Valid range 0–30 s.
    public var wakeWindow: Duration
    /// How long `applicationDidEnterBackground` may take before the watchdog kills the app with
    /// 0x8badf00d (UIApplicationDelegate reference: "approximately five seconds").
    public var didEnterBackgroundAllowance: Duration
    /// How long launch may take before the watchdog kills the app with 0x8badf00d (observed 20 s).
    public var launchAllowance: Duration
    /// From the end of `applicationDidEnterBackground` (or of the last background task, or of a
    /// wake window) to suspension, when nothing else holds the app (inference: "shortly after").
    public var suspensionDelay: Duration
    /// Whether apps have scenes (UIScene, iOS 13+): scene callbacks beside the app's.
    public var hasScenes: Bool
    /// Which terminations a Bluetooth event relaunches the app after (TN3115, QA1962).
    public var relaunch: RelaunchRules
    /// Auto-lock after this long without a touch, unless the app in front disabled the idle
    /// timer (`isIdleTimerDisabled`); nil never locks by itself.
    public var autoLock: Duration?

    public init(
        name: String, majorVersion: Int, backgroundTaskBudget: Duration,
        expirationLead: Duration = .seconds(5), wakeWindow: Duration = .seconds(10),
        didEnterBackgroundAllowance: Duration = .seconds(5), launchAllowance: Duration = .seconds(20),
        suspensionDelay: Duration = .seconds(1), hasScenes: Bool, relaunch: RelaunchRules,
        autoLock: Duration? = .seconds(30)
    ) {
        self.name = name
        self.majorVersion = majorVersion
        self.backgroundTaskBudget = backgroundTaskBudget
        self.expirationLead = expirationLead
        self.wakeWindow = wakeWindow
        self.didEnterBackgroundAllowance = didEnterBackgroundAllowance
        self.launchAllowance = launchAllowance
        self.suspensionDelay = suspensionDelay
        self.hasScenes = hasScenes
        self.relaunch = relaunch
        self.autoLock = autoLock
    }

    /// iOS 6: 600 s of background task, no scenes; QA1962's relaunch rules (no relaunch after
    /// airplane mode or a reboot).
    public static let ios6 = PhoneProfile(
        name: "ios6", majorVersion: 6, backgroundTaskBudget: .seconds(600), hasScenes: false,
        relaunch: .qa1962)
    /// iOS 12: 180 s of background task, no scenes; TN3115's table.
    public static let ios12 = PhoneProfile(
        name: "ios12", majorVersion: 12, backgroundTaskBudget: .seconds(180), hasScenes: false,
        relaunch: .tn3115)
    /// iOS 17: 30 s of background task, scenes; TN3115's table.
    public static let ios17 = PhoneProfile(
        name: "ios17", majorVersion: 17, backgroundTaskBudget: .seconds(30), hasScenes: true,
        relaunch: .tn3115)
    /// iOS 26: as iOS 17, with TN3115's note 5 (only AccessorySetupKit apps are relaunched after
    /// a force-quit, Control Center's Bluetooth switch or airplane mode).
    public static let ios26 = PhoneProfile(
        name: "ios26", majorVersion: 26, backgroundTaskBudget: .seconds(30), hasScenes: true,
        relaunch: .tn3115iOS26)

    /// Every built-in profile, oldest first.
    public static let all: [PhoneProfile] = [.ios6, .ios12, .ios17, .ios26]

    /// The built-in profile with this name.
    public static func named(_ name: String) -> PhoneProfile? {
        all.first { $0.name == name }
    }

    /// The wake window, checked against its documented range (0–30 s).
    public func checkedWakeWindow() throws(PhoneProfileError) -> Duration {
        guard wakeWindow >= .zero, wakeWindow <= .seconds(30) else {
            throw .wakeWindowOutOfRange(wakeWindow)
        }
        return wakeWindow
    }

    public var description: String { name }
}

/// A profile's value outside what the phone can model.
public enum PhoneProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    case wakeWindowOutOfRange(Duration)

    public var description: String {
        switch self {
        case .wakeWindowOutOfRange(let window): "wake window \(window) is outside 0–30 s"
        }
    }
}
