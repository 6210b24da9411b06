import Foundation

/// The phone's bookkeeping of keep-alive modes and their wake sources (location, URLSession, VoIP
/// and silent pushes), one stored property of `PhoneRuntime`. The rules live in the value-type
/// machines it holds (`LocationMonitor`, `BackgroundSession`, `SilentPushGate`,
/// `VoIPPushLedger`); the Phone extensions in this folder feed them and perform what they return.
struct KeepAliveRuntime {
    var rules = KeepAliveRules()
    /// Where the phone is (Apple Park until it moves).
    var position = CLLocationCoordinate2D(latitude: 37.3349, longitude: -122.0090)
    var apps: [AppIdentifier: AppKeepAlive] = [:]
    var counters = KeepAliveCounters()
    /// Serial numbers of pushes, phone-wide.
    var nextPush = 0
}

/// One app's keep-alive state. What the system keeps for the app (significant-change and region
/// monitoring, background transfers, the count of unreported VoIP pushes) outlives its process;
/// what belongs to an instance (delegates, standard updates, handlers under way) ends with it.
struct AppKeepAlive {
    var location: LocationMonitor?
    var locationDelegate: LocationDelegateSlot?
    /// Significant-change and region events for a relaunched app, until it sets a delegate.
    var pendingLocation: [LocationEvent] = []

    var sessions: [String: BackgroundSession] = [:]
    var sessionDelegates: [String: SessionDelegateSlot] = [:]
    /// Sessions whose completions the app may be handed now (it runs, or its
    /// `handleEventsForBackgroundURLSession` returned).
    var sessionsReady: Set<String> = []

    var silentGate: SilentPushGate?
    /// The silent push waiting for the rate limit (only the latest).
    var silentWaiting: (serial: Int, payload: [String: String])?
    var voip: VoIPPushLedger?
    var pushRegistry: PushRegistrySlot?
    /// VoIP pushes for a launched app, until it sets its registry's delegate.
    var voipWaiting: [(serial: Int, payload: [String: String])] = []
    /// Calls reported to CallKit and not ended.
    var calls: [UUID] = []

    /// What runs once `didFinishLaunching` returns (a launch for a URLSession or a push).
    var afterLaunch: [AfterLaunch] = []
    /// Background events being handled within their allowance: `ExecutionHold.eventHandling`.
    var handlings: Set<Handling> = []
}

/// An event the app is handling in the background, which holds it running.
enum Handling: Hashable {
    case urlSession(String)
    case silentPush(Int)
    case voipPush(Int)
}

enum AfterLaunch {
    case urlSessionEvents(String)
    case silentPush(Int, [String: String])
    case voipPush(Int, [String: String])
}

struct LocationDelegateSlot {
    var launch: Int
    var manager: CLLocationManager
    var delegate: any CLLocationManagerDelegate
}

struct SessionDelegateSlot {
    var launch: Int
    var session: URLSession
    var delegate: (any URLSessionDelegate)?
}

struct PushRegistrySlot {
    var launch: Int
    var registry: PKPushRegistry
    var delegate: any PKPushRegistryDelegate
}

/// The keep-alive timers: per app (`PhoneTimer.keepAlive`).
enum KeepAliveTimer: Hashable {
    /// The next task of the session ends.
    case transfer(String)
    /// `handleEventsForBackgroundURLSession`'s completion handler is due.
    case urlSessionCompletion(String)
    /// A silent push's handling time ends.
    case silentPushWindow(Int)
    /// A silent push waiting for the rate limit may go.
    case silentPushWaiting
    /// A VoIP push's call report is due.
    case voipReport(Int)
}

/// What the phone counted of keep-alive modes (nothing is dropped without a count, a log line
/// and a trace entry).
public struct KeepAliveCounters: Sendable, Hashable {
    public var locationEventsDelivered = 0
    /// Standard updates not delivered because the app was suspended (updates pause).
    public var locationUpdatesPaused = 0
    /// Location events lost (a relaunched app that never set a delegate).
    public var locationEventsDropped = 0
    public var transfersCompleted = 0
    public var transfersCancelled = 0
    public var pushesDelivered = 0
    public var pushesDeferred = 0
    public var pushesDropped = 0
    /// Handlers whose completion was not called in their allowance.
    public var completionsMissed = 0
    public var callsReported = 0
}
