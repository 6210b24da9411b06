import BLE

/// Why one reconnection attempt failed.
public enum ReconnectFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The scan did not see the device within the policy's scan timeout.
    case notFound
    /// The registry does not know the device's key (it was forgotten).
    case unknownDevice
    /// Scanning or connecting failed.
    case ble(BLEError)

    public var description: String {
        switch self {
        case .notFound: "the device was not seen"
        case .unknownDevice: "the device is not in the registry"
        case .ble(let error): "\(error)"
        }
    }
}

/// What a `Reconnector` reports, in order.
public enum ReconnectEvent: Sendable, Equatable {
    /// The device's link went down unexpectedly (the controller's reason, Core 5.4 Vol 4
    /// Part E §7.7.5); reconnection begins.
    case linkLost(reason: HCIStatus)
    /// The link was closed by this side while the radio is on: not reconnected.
    case closedLocally
    /// The radio is not powered on: no attempt until it is.
    case paused(ManagerState)
    /// The radio is on again; attempts start over from the first.
    case resumed
    /// Waiting `delay` before attempt `attempt`.
    case waiting(attempt: Int, delay: Duration)
    /// Attempt `attempt` begins: a scan for the device's key, then a connection.
    case attempting(Int)
    /// The device was found at a new address; its record was re-bound.
    case rebound(old: KnownDevice, new: KnownDevice)
    /// The registry could not be read or written (a damaged or unreachable database): the
    /// reconnector goes on, but the record was not looked up or not brought up to date.
    case registryFailed(KnownDevicesError)
    case attemptFailed(attempt: Int, ReconnectFailure)
    case connected(Peripheral, attempt: Int)
    /// `maximumAttempts` failed; the reconnector stopped.
    case gaveUp(attempts: Int)
    /// `cancel()` stopped the reconnector.
    case cancelled
}

/// Where a `Reconnector` is.
public enum ReconnectPhase: Sendable, Hashable {
    /// Not started.
    case idle
    /// Connected to the device, watching for a disconnection.
    case connected(Peripheral)
    /// Waiting for the device's first connection (started without one).
    case watching
    /// Between attempts or in one.
    case reconnecting(attempt: Int)
    /// The radio is off.
    case paused
    case gaveUp
    case cancelled
}
