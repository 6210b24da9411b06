import BLESimulation
import Foundation

/// A point on the Earth (CLLocationCoordinate2D), in degrees.
public struct CLLocationCoordinate2D: Sendable, Hashable, Codable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether the coordinate is on the Earth (CLLocationCoordinate2DIsValid).
    public var isValid: Bool { (-90...90).contains(latitude) && (-180...180).contains(longitude) }

    /// The great-circle distance in metres (haversine, on a sphere of the Earth's mean radius).
    public func distance(to other: CLLocationCoordinate2D) -> Double {
        let radius = 6_371_008.8
        let (φ1, φ2) = (latitude * .pi / 180, other.latitude * .pi / 180)
        let Δφ = φ2 - φ1
        let Δλ = (other.longitude - longitude) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * radius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    public var description: String { "(\(latitude), \(longitude))" }
}

/// A location fix (CLLocation): where, and when on the phone's virtual clock.
public struct CLLocation: Sendable, Hashable {
    public var coordinate: CLLocationCoordinate2D
    public var timestamp: VirtualInstant

    public init(coordinate: CLLocationCoordinate2D, timestamp: VirtualInstant) {
        self.coordinate = coordinate
        self.timestamp = timestamp
    }
}

/// A circular region to monitor (CLCircularRegion), named by its identifier: monitoring a
/// second region with the same identifier replaces the first (CLLocationManager
/// `startMonitoring(for:)`).
public struct CLCircularRegion: Sendable, Hashable {
    public var center: CLLocationCoordinate2D
    /// Metres.
    public var radius: Double
    public var identifier: String

    public init(center: CLLocationCoordinate2D, radius: Double, identifier: String) {
        self.center = center
        self.radius = radius
        self.identifier = identifier
    }

    public func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        center.distance(to: coordinate) <= radius
    }
}

/// The location manager's delegate (CLLocationManagerDelegate): its methods run on the app's
/// executor (the app's actor), traced as `locationUpdate` callbacks. Every method has an empty
/// default.
public protocol CLLocationManagerDelegate: AnyObject, Sendable {
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) async
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLCircularRegion) async
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLCircularRegion) async
}

extension CLLocationManagerDelegate {
    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) async {}
    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLCircularRegion) async {}
    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLCircularRegion) async {}
}

/// A location event as the trace names it.
public enum LocationEventKind: Sendable, Hashable, CustomStringConvertible {
    /// A standard update (`startUpdatingLocation`).
    case update
    /// The significant-change service.
    case significantChange
    case enterRegion(String)
    case exitRegion(String)

    public var name: String {
        switch self {
        case .update: "update"
        case .significantChange: "significant_change"
        case .enterRegion: "enter_region"
        case .exitRegion: "exit_region"
        }
    }

    public var description: String {
        switch self {
        case .update: "location update"
        case .significantChange: "significant location change"
        case .enterRegion(let id): "entered region '\(id)'"
        case .exitRegion(let id): "exited region '\(id)'"
        }
    }

    /// Significant changes and region crossings are the system's to watch: they wake a suspended
    /// app and relaunch a terminated one; standard updates do neither.
    var wakesApp: Bool {
        switch self {
        case .update: false
        case .significantChange, .enterRegion, .exitRegion: true
        }
    }
}

/// One location event for an app: its kind, the fix, and the region for a crossing.
package struct LocationEvent: Sendable, Hashable {
    package var kind: LocationEventKind
    package var location: CLLocation
    package var region: CLCircularRegion?
}
