import BLEHost
import BLEWire

// Pairing and link security as a central sees a peripheral (Core 5.4 Vol 3 Part H; Part C §10).
extension Peripheral {
    /// The link's security now: `.none` when not connected.
    public var security: LinkSecurity {
        get async {
            guard case .connected(let handle) = link else { return .none }
            return await stack.host.security(of: handle)
        }
    }

    /// Pairs with the peripheral (a Pairing Request, Core 5.4 Vol 3 Part H §3.5.1) and returns
    /// the link's security once it is encrypted with the new key and the keys are exchanged.
    /// The manager's pairing agent answers what the method asks of the user; the bond is kept
    /// when both sides bond (`SecurityPolicy.bondable`). A call while pairing runs waits for
    /// the same outcome.
    public func pair() async throws(BLEError) -> LinkSecurity {
        guard case .connected(let handle) = link else { throw .notConnected }
        do throws(PairingError) {
            return try await stack.host.pair(handle)
        } catch {
            if case .disconnected(let reason) = error { throw .disconnected(reason: reason) }
            throw .pairing(error)
        }
    }

    /// Encrypts the link with the bond's key — or waits for the encryption the manager starts
    /// by itself when it connects to a bonded peripheral (Core 5.4 Vol 3 Part C §10.3.2) — and
    /// returns the link's security. Throws `.pairing(.notBonded)` without a bond.
    public func encrypt() async throws(BLEError) -> LinkSecurity {
        guard case .connected(let handle) = link else { throw .notConnected }
        do throws(PairingError) {
            return try await stack.host.encrypt(handle)
        } catch {
            if case .disconnected(let reason) = error { throw .disconnected(reason: reason) }
            throw .pairing(error)
        }
    }

    /// A security event of this peripheral's link, from its manager.
    func securityEvent(_ event: SecurityEvent) {
        switch event {
        case .changed(let security): eventListeners.yield(.securityChanged(security))
        case .pairingStarted(let method): eventListeners.yield(.pairingStarted(method))
        case .paired(let bond): eventListeners.yield(.paired(bond: bond))
        case .pairingFailed(let error): eventListeners.yield(.pairingFailed(error))
        case .peerLostBond: eventListeners.yield(.peerLostBond)
        case .identityResolved: return
        }
    }
}
