import Foundation

/// User code that runs as an app on a simulated phone: UIApplicationDelegate's and
/// UISceneDelegate's callbacks, as async methods of an actor whose executor is the app's
/// (`AppContext.executor`) — so when the phone suspends the app, none of its code runs.
///
/// The phone makes a new instance at each launch (`Phone.install(_:make:)`), so nothing in
/// memory survives a kill: what must outlive one goes to `AppContext.storageDirectory` or comes
/// back through state restoration. Every callback has an empty default.
public protocol PhoneApp: Actor {
    /// The context the phone made this instance with.
    nonisolated var context: AppContext { get }

    /// `application(_:didFinishLaunchingWithOptions:)`: launch, in front (a user launch) or in
    /// the background (a relaunch for a Bluetooth event, with the managers to restore named in
    /// `options`).
    func didFinishLaunching(options: LaunchOptions) async
    func willEnterForeground() async
    func didBecomeActive() async
    func willResignActive() async
    /// Has `PhoneProfile.didEnterBackgroundAllowance` (~5 s) before the watchdog kills the app.
    func didEnterBackground() async
    /// Only for an app running in the background, never for a suspended one.
    func willTerminate() async

    // UISceneDelegate (profiles with scenes): the app's one scene.
    func sceneWillConnect() async
    func sceneDidDisconnect() async
    func sceneWillEnterForeground() async
    func sceneDidBecomeActive() async
    func sceneWillResignActive() async
    func sceneDidEnterBackground() async

    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`: a background
    /// session's transfers finished while the app did not run; it was woken or relaunched for
    /// them. Call `completionHandler` once the session's events are handled (typically from
    /// `URLSessionDelegate.urlSessionDidFinishEvents`), within
    /// `KeepAliveRules.urlSessionCompletionAllowance`, or the app is killed (0x2182bad3). The
    /// default calls it at once (an app without the method is not held to it).
    func handleEventsForBackgroundURLSession(
        identifier: String, completionHandler: @escaping @Sendable () async -> Void) async
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`: a silent push; the
    /// handler has 30 s. The default completes at once with `.noData`.
    func didReceiveRemoteNotification(
        _ userInfo: [String: String],
        fetchCompletionHandler: @escaping @Sendable (UIBackgroundFetchResult) async -> Void) async
    // Documents shared to the app ("Open in…"): the phone calls the one its profile has
    // (`OpenURLSignature`); each returns whether the app handled the URL.
    /// `application(_:open:options:)` (iOS 9+, apps without scenes).
    func application(open url: URL, options: OpenURLOptions) async -> Bool
    /// `application(_:openURL:sourceApplication:annotation:)` (before iOS 9).
    func application(openURL url: URL, sourceApplication: String?, annotation: String?) async -> Bool
    /// `scene(_:openURLContexts:)` (iOS 13+, a running app with a scene).
    func scene(openURLContexts contexts: [OpenURLContext]) async
}

extension PhoneApp {
    /// The app's actor runs on the app's executor, which the phone holds while the app is
    /// suspended.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { context.executor.asUnownedSerialExecutor() }

    public func didFinishLaunching(options: LaunchOptions) async {}
    public func willEnterForeground() async {}
    public func didBecomeActive() async {}
    public func willResignActive() async {}
    public func didEnterBackground() async {}
    public func willTerminate() async {}
    public func sceneWillConnect() async {}
    public func sceneDidDisconnect() async {}
    public func sceneWillEnterForeground() async {}
    public func sceneDidBecomeActive() async {}
    public func sceneWillResignActive() async {}
    public func sceneDidEnterBackground() async {}
    public func handleEventsForBackgroundURLSession(
        identifier: String, completionHandler: @escaping @Sendable () async -> Void
    ) async { await completionHandler() }
    public func didReceiveRemoteNotification(
        _ userInfo: [String: String],
        fetchCompletionHandler: @escaping @Sendable (UIBackgroundFetchResult) async -> Void
    ) async { await fetchCompletionHandler(.noData) }
    public func application(open url: URL, options: OpenURLOptions) async -> Bool { false }
    public func application(openURL url: URL, sourceApplication: String?, annotation: String?) async -> Bool {
        false
    }
    public func scene(openURLContexts contexts: [OpenURLContext]) async {}
}

/// Why an app was launched, and what to restore (UIApplication.LaunchOptionsKey).
public struct LaunchOptions: Sendable, Hashable, Codable {
    /// `.bluetoothCentrals`: the restore identifiers of the central managers the system
    /// preserved for this app (a relaunch for a Bluetooth event).
    public var bluetoothCentrals: [String]
    /// `.bluetoothPeripherals`: the same for peripheral managers.
    public var bluetoothPeripherals: [String]
    /// `.url`: the document the app was launched to open ("Open in…").
    public var url: String?
    /// `.location`: relaunched for a location event.
    public var location: Bool
    /// `.remoteNotification`: launched for a push.
    public var remoteNotification: Bool

    public init(
        bluetoothCentrals: [String] = [], bluetoothPeripherals: [String] = [], url: String? = nil,
        location: Bool = false, remoteNotification: Bool = false
    ) {
        self.bluetoothCentrals = bluetoothCentrals
        self.bluetoothPeripherals = bluetoothPeripherals
        self.url = url
        self.location = location
        self.remoteNotification = remoteNotification
    }

    /// A launch by the user (no options).
    public var isUserLaunch: Bool {
        bluetoothCentrals.isEmpty && bluetoothPeripherals.isEmpty && url == nil && !location && !remoteNotification
    }
}

/// One of the app's callbacks, as the trace names it.
public enum AppCallback: String, Sendable, Hashable, Codable, CaseIterable {
    case didFinishLaunching, willEnterForeground, didBecomeActive, willResignActive, didEnterBackground
    case willTerminate
    case sceneWillConnect, sceneDidDisconnect, sceneWillEnterForeground, sceneDidBecomeActive
    case sceneWillResignActive, sceneDidEnterBackground
    /// A background task's expiration handler.
    case expirationHandler
    /// A BGTaskScheduler launch handler or a scheduled task's expiration handler.
    case scheduledTaskLaunchHandler, scheduledTaskExpirationHandler
    /// `application(_:open:options:)`: a document shared to the app.
    case openURL
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`.
    case handleEventsForBackgroundURLSession
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` (a silent push).
    case didReceiveRemoteNotification
    /// PushKit's `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`.
    case didReceiveIncomingPush
    /// A location manager delegate callback.
    case locationUpdate
    /// An AVAudioSession notification handler (interruption, route change).
    case audioSessionNotification
    /// A background URLSession's delegate: task completions, `urlSessionDidFinishEvents`.
    case urlSessionDelegate
}
