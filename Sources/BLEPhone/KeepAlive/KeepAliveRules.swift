/// The numbers the phone uses for keep-alive modes and their wake sources. What Apple documents
/// is the default; what it does not (an allowance, a rate) is an inference, a field here so a test
/// or scenario can change it (phone-rules.md: "where a fact is O or I, make it a parameter").
public struct KeepAliveRules: Sendable, Hashable {
    /// How long a suspended app is woken, or a relaunched one kept running, for a significant
    /// change or a region crossing: "a small amount of time (around 10 seconds)" (Location and
    /// Maps Programming Guide, "Monitoring the user's proximity to geographic regions").
    public var locationEventWindow: Duration
    /// Significant-change service: an event when the phone moved at least this far from the
    /// last one (startMonitoringSignificantLocationChanges(): "500 meters or more")…
    public var significantChangeDistance: Double
    /// …and not more often than this ("not … more frequently than once every five minutes").
    public var significantChangeInterval: Duration
    /// Whether significant-change and region events relaunch an app the user force-quit. The
    /// issue and this default say no; developers observed relaunches after force-quit since iOS
    /// 7.1 (O), and phone-rules.md does not settle it: a parameter.
    public var locationRelaunchesAfterForceQuit: Bool
    /// How long `handleEventsForBackgroundURLSession`'s completion handler may wait before the
    /// app is killed with 0x2182bad3. Apple gives no number; 30 s is the background allowance
    /// phone-rules.md gives for the kindred wakes (silent push ≤ 30 s, app refresh up to 30 s,
    /// the wake window's ~30 s upper bound) (I).
    public var urlSessionCompletionAllowance: Duration
    /// Transfer rate of a background URLSession on Wi-Fi and on cellular, in bytes per second,
    /// shared equally by a session's running tasks (I: a model, not a measurement).
    public var wifiBytesPerSecond: Double
    public var cellularBytesPerSecond: Double
    /// How long a silent push's handler may run: "up to 30 seconds" (phone-rules.md, D).
    public var silentPushWindow: Duration
    /// Silent pushes delivered to a background app per `silentPushRatePeriod`: "two or three per
    /// hour" (phone-rules.md: ~3/hour, D); pushes over it wait for the period to allow one (only
    /// the latest waits, as APNs keeps one background push per app).
    public var silentPushesPerPeriod: Int
    public var silentPushRatePeriod: Duration
    /// How long a VoIP push's handler may take to report a call before its completion is due
    /// (I: 30 s as above; the system's own limit is not published).
    public var voipReportAllowance: Duration
    /// Unreported VoIP pushes after which PushKit stops delivering to the app ("Repeatedly
    /// failing to report calls may prevent your app from receiving any more incoming call
    /// notifications": the number is not published, I).
    public var voipFailuresBeforeDeliveryStops: Int

    public init(
        locationEventWindow: Duration = .seconds(10), significantChangeDistance: Double = 500,
        significantChangeInterval: Duration = .seconds(300), locationRelaunchesAfterForceQuit: Bool = false,
        urlSessionCompletionAllowance: Duration = .seconds(30), wifiBytesPerSecond: Double = 5_000_000,
        cellularBytesPerSecond: Double = 1_000_000, silentPushWindow: Duration = .seconds(30),
        silentPushesPerPeriod: Int = 3, silentPushRatePeriod: Duration = .seconds(3_600),
        voipReportAllowance: Duration = .seconds(30), voipFailuresBeforeDeliveryStops: Int = 3
    ) {
        self.locationEventWindow = locationEventWindow
        self.significantChangeDistance = significantChangeDistance
        self.significantChangeInterval = significantChangeInterval
        self.locationRelaunchesAfterForceQuit = locationRelaunchesAfterForceQuit
        self.urlSessionCompletionAllowance = urlSessionCompletionAllowance
        self.wifiBytesPerSecond = wifiBytesPerSecond
        self.cellularBytesPerSecond = cellularBytesPerSecond
        self.silentPushWindow = silentPushWindow
        self.silentPushesPerPeriod = silentPushesPerPeriod
        self.silentPushRatePeriod = silentPushRatePeriod
        self.voipReportAllowance = voipReportAllowance
        self.voipFailuresBeforeDeliveryStops = voipFailuresBeforeDeliveryStops
    }

    /// The rate of a background transfer on `network` (zero: it waits for one).
    func bytesPerSecond(on network: PhoneConditions.Network) -> Double {
        switch network {
        case .none: 0
        case .cellular: cellularBytesPerSecond
        case .wifi: wifiBytesPerSecond
        }
    }
}

extension PhoneProfile {
    /// PushKit exists from iOS 8 ("PKPushRegistry", iOS 8.0+).
    var hasPushKit: Bool { majorVersion >= 8 }
    /// From iOS 13 a VoIP push must be reported to CallKit before its completion, or the app is
    /// killed (PushKit "pushRegistry(_:didReceiveIncomingPushWith:for:completion:)").
    var voipPushMustReportCall: Bool { majorVersion >= 13 }
    /// From iOS 9 background location updates also need `allowsBackgroundLocationUpdates`
    /// (CLLocationManager reference, iOS 9.0+); before, the `location` mode sufficed.
    var backgroundLocationNeedsFlag: Bool { majorVersion >= 9 }
}
