/// A manager's power state, the listeners of its changes and the callers waiting out a reset:
/// the one state machine `CentralManager` and `PeripheralManager` share (Core Bluetooth's
/// `CBManagerState`). Lives inside the manager's actor.
struct ManagerPower {
    private(set) var state = ManagerState.poweredOff
    /// Closed for good: every call that needs the radio throws `.closed`.
    var isClosed = false
    private var listeners = Subscribers<ManagerState>()
    private var resetWaiters = WaiterQueue()

    /// The state now, then every change.
    mutating func updates() -> EventStream<ManagerState> {
        listeners.make(initial: state)
    }

    /// Moves to `new`, tells the listeners, and lets callers waiting out a reset go on.
    mutating func set(_ new: ManagerState) {
        guard new != state else { return }
        state = new
        listeners.yield(new)
        if new != .resetting { resetWaiters.resumeAll() }
    }

    /// Keeps `waiter` until the reset under way ends.
    mutating func waitOutReset(_ waiter: WaiterQueue.Waiter) {
        resetWaiters.append(waiter)
    }

    /// Throws unless the manager is open and powered on.
    func checkPoweredOn() throws(BLEError) {
        guard !isClosed else { throw .closed }
        guard state == .poweredOn else { throw .notPoweredOn(state) }
    }

    /// Ends the listeners' streams (the manager closed).
    mutating func finish() {
        listeners.finish()
    }
}
