import BLEHost
import BLEWire

/// The links to centrals as the peripheral sees them, and its requests for connection
/// parameters (Core Bluetooth's `setDesiredConnectionLatency(_:for:)`; Core 5.4 Vol 3 Part A
/// §4.20, Vol 4 Part E §7.8.18).
extension PeripheralManager {
    /// The link to `central` as it is now; nil when it is gone. Changes are reported as
    /// `.linkChanged`.
    public func linkParameters(for central: Central) -> LinkParameters? {
        guard centrals[central.connection] != nil else { return nil }
        return stack.inPlace(passing: central.connection) { $0.connection($1) }.map(LinkParameters.init)
    }

    /// Asks `central` for connection parameters suited to `latency`; true when it took them (the
    /// link then runs with them), false when it refused.
    @discardableResult
    public func setDesiredConnectionLatency(_ latency: ConnectionLatency, for central: Central) async throws(BLEError)
        -> Bool
    {
        try await requestConnectionParameters(latency.parameters, for: central)
    }

    /// Asks `central` for these connection parameters: through the LL Connection Parameters
    /// Request procedure when both controllers have it, else the L2CAP Connection Parameter Update
    /// Request. True when the central took them, false when it refused.
    @discardableResult
    public func requestConnectionParameters(_ parameters: ConnectionParameters, for central: Central)
        async throws(BLEError) -> Bool
    {
        guard centrals[central.connection] != nil else { throw .notConnected }
        do {
            switch try await stack.host.requestConnectionParameters(central.connection, parameters) {
            case .accepted: return true
            case .rejected: return false
            }
        } catch {
            throw .host(error)
        }
    }

    /// The host reported a change of a central's link: reported as it is now, once per change.
    func linkChanged(_ handle: ConnectionHandle) {
        guard centrals[handle] != nil,
            let now = stack.inPlace(passing: handle, { $0.connection($1) }).map(LinkParameters.init),
            now != reportedLinks[handle]
        else { return }
        reportedLinks[handle] = now
        eventSink.yield(.linkChanged(central(handle), now))
    }
}
