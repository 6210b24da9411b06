import BLETransport

/// The power rules a manager follows (Core Bluetooth's `CBManagerState`), one input at a time:
/// the first power-on starts the host (HCI Reset and initialisation, Core 5.4 Vol 4 Part E
/// §7.3.2, while `.resetting`); later ones only switch the radio back on; a host that cannot be
/// brought up leaves the manager `.unsupported` for good.
///
/// A value that does no I/O: each method takes one input and says what the manager does next.
/// `ManagerPower` carries it together with the state's listeners and the callers waiting out a
/// reset.
struct PowerStateMachine: Hashable {
    enum Phase: Hashable {
        /// Off; `hostStarted` once a first power-on brought the host up.
        case off(hostStarted: Bool)
        /// The host's first start is under way.
        case starting
        case on
        /// The controller reported a Hardware Error and is being reset (Core 5.4 Vol 4 Part E
        /// §7.7.16); `on` is the phase to return to. Reported as `.resetting`.
        case recovering(on: Bool)
        /// The host could not be brought up.
        case unsupported
        /// The transport to the controller ended on its own (the controller was killed or
        /// unplugged): the host stopped, until a new transport is attached (`reattach()`).
        /// Reported as `.poweredOff`.
        case transportLost(HCITransportError)
    }

    /// What a power-on asks of the manager.
    enum PowerOnStep: Equatable {
        /// A start is under way: wait until it ends, then ask again.
        case waitOutReset
        /// Start the host, then report with `hostStartEnded(succeeded:)`.
        case startHost
        /// Powered on.
        case done
        case fail(BLEError)
    }

    private(set) var phase = Phase.off(hostStarted: false)
    /// Closed for good: every call that needs the radio throws `.closed`. Orthogonal to the
    /// phase: a start under way when the manager closes still ends in its phase.
    private(set) var isClosed = false

    var state: ManagerState {
        switch phase {
        case .off, .transportLost: .poweredOff
        case .starting, .recovering: .resetting
        case .on: .poweredOn
        case .unsupported: .unsupported
        }
    }

    /// Why the controller is gone, once its transport ended.
    var lostTransport: HCITransportError? {
        if case .transportLost(let error) = phase { return error }
        return nil
    }

    /// A first power-on brought the host up.
    var hostStarted: Bool {
        switch phase {
        case .on, .off(hostStarted: true), .recovering: true
        case .off(hostStarted: false), .starting, .unsupported, .transportLost: false
        }
    }

    mutating func powerOn() -> PowerOnStep {
        switch phase {
        // A reset under way is waited out even by a closed manager; after it, a closed one
        // refuses.
        case .starting, .recovering:
            return .waitOutReset
        case _ where isClosed:
            return .fail(.closed)
        case .on:
            return .done
        case .unsupported:
            return .fail(.notPoweredOn(.unsupported))
        case .transportLost(let error):
            return .fail(.host(.transport(error)))
        case .off(hostStarted: false):
            phase = .starting
            return .startHost
        case .off(hostStarted: true):
            phase = .on
            return .done
        }
    }

    mutating func hostStartEnded(succeeded: Bool) {
        guard phase == .starting else { return }
        phase = succeeded ? .on : .unsupported
    }

    /// True when the radio was on and is now off: the manager then stops what it was doing.
    mutating func powerOff() -> Bool {
        if phase == .recovering(on: true) { phase = .recovering(on: false) }
        guard phase == .on else { return false }
        phase = .off(hostStarted: true)
        return true
    }

    mutating func close() {
        isClosed = true
    }

    /// The transport to the controller ended: whatever the phase, the radio is gone for good
    /// (true when this is news: the manager then fails what it was doing).
    mutating func transportLost(_ error: HCITransportError) -> Bool {
        if case .transportLost = phase { return false }
        phase = .transportLost(error)
        return true
    }

    /// An HCI Hardware Error: true when the manager resets the controller now (its host was
    /// started and no reset is under way); `.resetting` until `recoveryEnded`.
    mutating func hardwareError() -> Bool {
        switch phase {
        case .on: phase = .recovering(on: true)
        case .off(hostStarted: true): phase = .recovering(on: false)
        case .off(hostStarted: false), .starting, .recovering, .unsupported, .transportLost: return false
        }
        return true
    }

    /// The reset after a Hardware Error ended: back to the phase before, or `.unsupported`
    /// when the controller did not come back.
    mutating func recoveryEnded(succeeded: Bool) {
        guard case .recovering(let on) = phase else { return }
        phase = succeeded ? (on ? .on : .off(hostStarted: true)) : .unsupported
    }

    /// A new transport replaces the lost one: true when the host starts again on it
    /// (`.resetting`, then `hostStartEnded`).
    mutating func reattach() -> Bool {
        guard case .transportLost = phase, !isClosed else { return false }
        phase = .starting
        return true
    }

    /// Throws unless the manager is open and powered on.
    func checkPoweredOn() throws(BLEError) {
        guard !isClosed else { throw .closed }
        if case .transportLost(let error) = phase { throw .host(.transport(error)) }
        guard phase == .on else { throw .notPoweredOn(state) }
    }
}
