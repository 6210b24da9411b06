import BLEHost
import BLEWire

// Pairing agent, bonds, Security Request and link security of a peripheral manager
// (Core 5.4 Vol 3 Part H).
extension PeripheralManager {
    /// Replaces the agent that answers what pairing asks of the user; Just Works unless given,
    /// here or as `HostConfiguration.pairingAgent`.
    public func setPairingAgent(_ agent: any PairingAgent) async {
        await stack.host.setPairingAgent(agent)
    }

    /// The bonds this manager's host keeps (`HostConfiguration.bondStore`).
    public var bonds: [Bond] {
        get async { await stack.host.bonds }
    }

    /// Forgets the bond with the central whose identity address is `peer`; true when there
    /// was one.
    @discardableResult
    public func removeBond(peer: LEAddress) async throws(BLEError) -> Bool {
        do throws(BondStoreError) {
            return try await stack.host.removeBond(peer: peer)
        } catch {
            throw .bondStore(error)
        }
    }

    /// The security of a central's link now (`.none` when it is not connected).
    public func security(of central: Central) async -> LinkSecurity {
        await stack.host.security(of: central.connection)
    }

    /// Asks a connected central to pair (a Security Request, Core 5.4 Vol 3 Part H §3.6.7) and
    /// returns the link's security once it paired — or encrypted with the bond it holds.
    public func pair(_ central: Central) async throws(BLEError) -> LinkSecurity {
        guard centrals[central.connection] != nil else { throw .notConnected }
        do throws(PairingError) {
            return try await stack.host.pair(central.connection)
        } catch {
            if case .disconnected(let reason) = error { throw .disconnected(reason: reason) }
            throw .pairing(error)
        }
    }

    /// A link's security event, to the manager's listeners.
    func securityEvent(_ event: SecurityEvent, on handle: ConnectionHandle) {
        guard centrals[handle] != nil else { return }
        let central = central(handle)
        switch event {
        case .changed(let security): eventSink.yield(.securityChanged(central, security))
        case .pairingStarted(let method): eventSink.yield(.pairingStarted(central, method))
        case .paired(let bond): eventSink.yield(.paired(central, bond: bond))
        case .pairingFailed(let error): eventSink.yield(.pairingFailed(central, error))
        case .peerLostBond, .identityResolved: return
        }
    }
}
