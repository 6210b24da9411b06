import BLESimulation

/// One app's location services as a value-type state machine (CLLocationManager; "Handling
/// location updates in the background"): it takes one input (an API call, a move of the phone,
/// the app's termination) and returns the events to hand the app; whether the `location` mode
/// keeps the app running is `keepsAppRunning`, which the phone turns into `ExecutionHold.location`.
///
/// - Standard updates (`startUpdatingLocation`) keep a background app running only with the
///   `location` mode and, from iOS 9, `allowsBackgroundLocationUpdates`; otherwise they pause
///   while the app is suspended. They end with the process.
/// - The significant-change service and region monitoring are the system's: they survive the
///   process, wake a suspended app and relaunch a terminated one (phone-rules.md, "Keep-alive":
///   "region/significant change relaunch").
package struct LocationMonitor: Sendable {
    private let hasMode: Bool
    private let needsFlag: Bool
    private let significantDistance: Double
    private let significantInterval: Duration

    package private(set) var updating = false
    package private(set) var allowsBackgroundUpdates = false
    package private(set) var significantChanges = false
    package private(set) var regions: [String: CLCircularRegion] = [:]
    /// The monitored regions the phone is inside now.
    private var inside: Set<String> = []
    /// The last significant-change event (or the start of the service).
    private var lastSignificant: CLLocation?

    package init(hasLocationMode: Bool, profile: PhoneProfile, rules: KeepAliveRules) {
        hasMode = hasLocationMode
        needsFlag = profile.backgroundLocationNeedsFlag
        significantDistance = rules.significantChangeDistance
        significantInterval = rules.significantChangeInterval
    }

    /// Whether location updates keep the app running in the background.
    package var keepsAppRunning: Bool { updating && hasMode && (allowsBackgroundUpdates || !needsFlag) }

    /// Whether anything is on (the machine can be forgotten when not).
    package var isIdle: Bool { !updating && !significantChanges && regions.isEmpty }

    // MARK: Inputs

    package mutating func startUpdating() { updating = true }
    package mutating func stopUpdating() { updating = false }
    package mutating func setAllowsBackgroundUpdates(_ allowed: Bool) { allowsBackgroundUpdates = allowed }

    /// Starts the significant-change service at `location`: the next event needs a move from
    /// here.
    package mutating func startSignificantChanges(at location: CLLocation) {
        if !significantChanges { lastSignificant = location }
        significantChanges = true
    }

    package mutating func stopSignificantChanges() {
        significantChanges = false
        lastSignificant = nil
    }

    /// Monitors `region` (replacing one with its identifier); whether the phone is inside now is
    /// its starting state, not an event.
    package mutating func startMonitoring(_ region: CLCircularRegion, at position: CLLocationCoordinate2D) {
        regions[region.identifier] = region
        if region.contains(position) { inside.insert(region.identifier) } else { inside.remove(region.identifier) }
    }

    package mutating func stopMonitoring(_ identifier: String) {
        regions[identifier] = nil
        inside.remove(identifier)
    }

    /// The phone moved to `location`: the events for the app, in order (a standard update, a
    /// significant change, region crossings by identifier). `appRuns`: the app runs code now —
    /// a standard update is produced for it only then or when updates keep it running.
    package mutating func moved(to location: CLLocation, appRuns: Bool) -> (events: [LocationEvent], paused: Bool) {
        var events: [LocationEvent] = []
        var paused = false
        if updating {
            if appRuns || keepsAppRunning {
                events.append(LocationEvent(kind: .update, location: location))
            } else {
                paused = true
            }
        }
        if significantChanges, let last = lastSignificant,
            last.coordinate.distance(to: location.coordinate) >= significantDistance,
            last.timestamp.duration(to: location.timestamp) >= significantInterval
        {
            lastSignificant = location
            events.append(LocationEvent(kind: .significantChange, location: location))
        }
        for identifier in regions.keys.sorted() {
            let region = regions[identifier]!
            let nowInside = region.contains(location.coordinate)
            guard nowInside != inside.contains(identifier) else { continue }
            if nowInside {
                inside.insert(identifier)
                events.append(LocationEvent(kind: .enterRegion(identifier), location: location, region: region))
            } else {
                inside.remove(identifier)
                events.append(LocationEvent(kind: .exitRegion(identifier), location: location, region: region))
            }
        }
        return (events, paused)
    }

    /// The process ended: standard updates end with it (the app must start them again); the
    /// system keeps watching significant changes and regions.
    package mutating func processEnded() {
        updating = false
        allowsBackgroundUpdates = false
    }
}
