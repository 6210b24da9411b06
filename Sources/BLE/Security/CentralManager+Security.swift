import BLEHost
import BLEWire

// Pairing agent, bonds and pairing outcomes of a central manager (Core 5.4 Vol 3 Part H).
extension CentralManager {
    /// Replaces the agent that answers what pairing asks of the user (a passkey to show or
    /// type, a number to confirm); Just Works (`JustWorksPairingAgent`) unless given, here or
    /// as `HostConfiguration.pairingAgent`.
    public func setPairingAgent(_ agent: any PairingAgent) async {
        await stack.host.setPairingAgent(agent)
    }

    /// The bonds this manager's host keeps (`HostConfiguration.bondStore`).
    public var bonds: [Bond] {
        get async { await stack.host.bonds }
    }

    /// Forgets the bond with the peer whose identity address is `peer`; true when there was one.
    /// The next connection to it is unencrypted until it pairs again.
    @discardableResult
    public func removeBond(peer: LEAddress) async throws(BLEError) -> Bool {
        do throws(BondStoreError) {
            return try await stack.host.removeBond(peer: peer)
        } catch {
            throw .bondStore(error)
        }
    }

    /// A link's security event: to its peripheral's listeners, and pairing outcomes to the
    /// manager's.
    func securityEvent(_ event: SecurityEvent, on handle: ConnectionHandle) async {
        guard let peripheral = links[handle] else { return }
        await peripheral.securityEvent(event)
        switch event {
        case .paired(let bond): eventSink.yield(.paired(peripheral, bond: bond))
        case .pairingFailed(let error): eventSink.yield(.pairingFailed(peripheral, error))
        case .peerLostBond: eventSink.yield(.peerLostBond(peripheral))
        case .changed, .pairingStarted, .identityResolved: return
        }
    }
}
