/// The app's location manager (CLLocationManager), from `AppContext.locationManager()`. Its
/// methods are async because they reach the phone; its delegate's methods run on the app's
/// executor.
///
/// The app's managers share one state (the system keeps one per app): the significant-change
/// service and monitored regions survive the process (and relaunch it), standard updates end
/// with it. Events go to the delegate set last.
public final class CLLocationManager: Sendable {
    let context: AppContext

    init(context: AppContext) { self.context = context }

    private var phone: Phone { context.phone }
    private var app: AppIdentifier { context.app }
    private var launch: Int { context.launchNumber }

    /// `delegate`: where events go; a relaunched app must set one to get the event it was
    /// relaunched for ("Upon relaunch, you must still configure a location manager object").
    public func setDelegate(_ delegate: (any CLLocationManagerDelegate)?) async {
        await phone.setLocationDelegate(delegate, manager: self, app: app, launch: launch)
    }

    /// `allowsBackgroundLocationUpdates` (iOS 9+): with the `location` mode, updates keep the
    /// app running in the background.
    public func setAllowsBackgroundLocationUpdates(_ allowed: Bool) async {
        await phone.changeLocation(of: app, launch: launch) { $0.setAllowsBackgroundUpdates(allowed) }
    }

    public var allowsBackgroundLocationUpdates: Bool {
        get async { await phone.locationMonitor(of: app)?.allowsBackgroundUpdates ?? false }
    }

    /// `startUpdatingLocation()`: an update at each move of the phone while the app runs; in
    /// the background only with the `location` mode (which then keeps it running).
    public func startUpdatingLocation() async {
        await phone.changeLocation(of: app, launch: launch) { $0.startUpdating() }
    }

    public func stopUpdatingLocation() async {
        await phone.changeLocation(of: app, launch: launch) { $0.stopUpdating() }
    }

    /// `startMonitoringSignificantLocationChanges()`: an event when the phone moved 500 m from
    /// the last one, at most every five minutes; it wakes or relaunches the app.
    public func startMonitoringSignificantLocationChanges() async {
        await phone.changeSignificantChanges(of: app, launch: launch, on: true)
    }

    public func stopMonitoringSignificantLocationChanges() async {
        await phone.changeSignificantChanges(of: app, launch: launch, on: false)
    }

    /// `startMonitoring(for:)`: events when the phone crosses the region's boundary; they wake
    /// or relaunch the app. Throws `.regionMonitoringFailure` for a region that is not on the
    /// Earth or has no positive radius, and past 20 regions per app ("Monitoring the user's
    /// proximity to geographic regions": "limited to 20 regions").
    public func startMonitoring(for region: CLCircularRegion) async throws(CLError) {
        try await phone.startRegionMonitoring(region, app: app, launch: launch)
    }

    public func stopMonitoring(for region: CLCircularRegion) async {
        await phone.stopRegionMonitoring(region.identifier, app: app, launch: launch)
    }

    public var monitoredRegions: Set<CLCircularRegion> {
        get async { Set(await phone.locationMonitor(of: app)?.regions.values.map { $0 } ?? []) }
    }

    /// The most recent fix (the phone's position now).
    public var location: CLLocation? {
        get async { await phone.currentLocation }
    }
}

/// A location service's error (CLError.Code).
public enum CLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `regionMonitoringFailure`, with what was wrong.
    case regionMonitoringFailure(String)

    public var description: String {
        switch self {
        case .regionMonitoringFailure(let why): "region monitoring failed: \(why)"
        }
    }
}

extension AppContext {
    /// A new location manager for this instance (`CLLocationManager()`).
    public func locationManager() -> CLLocationManager { CLLocationManager(context: self) }
}
