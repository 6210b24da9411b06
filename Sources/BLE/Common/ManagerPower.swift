import BLEHost
import BLETransport

/// A manager's power: its `PowerStateMachine`, the listeners of its state and the callers
/// waiting out a reset — what `CentralManager` and `PeripheralManager` share. Lives inside the
/// manager's actor.
struct ManagerPower {
    private(set) var machine = PowerStateMachine()
    private var listeners = Subscribers<ManagerState>()
    private var resetWaiters = WaiterQueue()

    var state: ManagerState { machine.state }
    var isClosed: Bool { machine.isClosed }
    var hostStarted: Bool { machine.hostStarted }
    var lostTransport: HCITransportError? { machine.lostTransport }

    /// The state now, then every change.
    mutating func updates() -> EventStream<ManagerState> {
        listeners.make(initial: state)
    }

    /// Gives `input` to the machine; a state change goes to the listeners and, unless it is the
    /// start of a reset, lets the callers waiting out a reset go on.
    private mutating func apply<Output>(_ input: (inout PowerStateMachine) -> Output) -> Output {
        let before = machine.state
        let result = input(&machine)
        let after = machine.state
        if after != before {
            listeners.yield(after)
            if after != .resetting { resetWaiters.resumeAll() }
        }
        return result
    }

    mutating func powerOn() -> PowerStateMachine.PowerOnStep { apply { $0.powerOn() } }

    mutating func hostStartEnded(succeeded: Bool) { apply { $0.hostStartEnded(succeeded: succeeded) } }

    mutating func powerOff() -> Bool { apply { $0.powerOff() } }

    mutating func close() { machine.close() }

    mutating func transportLost(_ error: HCITransportError) -> Bool { apply { $0.transportLost(error) } }

    mutating func hardwareError() -> Bool { apply { $0.hardwareError() } }

    mutating func recoveryEnded(succeeded: Bool) { apply { $0.recoveryEnded(succeeded: succeeded) } }

    mutating func reattach() -> Bool { apply { $0.reattach() } }

    /// Keeps `waiter` until the reset under way ends.
    mutating func waitOutReset(_ waiter: WaiterQueue.Waiter) {
        resetWaiters.append(waiter)
    }

    /// Throws unless the manager is open and powered on.
    func checkPoweredOn() throws(BLEError) {
        try machine.checkPoweredOn()
    }

    /// Ends the listeners' streams (the manager closed).
    mutating func finish() {
        listeners.finish()
    }
}

/// A manager driven by `ManagerPower`: the power-on procedure both managers run, with the start
/// of the host their own.
protocol PoweredManager: Actor {
    var power: ManagerPower { get set }
    var stack: HostStack { get }
    /// The manager's own preparations before its host starts the first time (its pumps, its
    /// GATT server).
    func prepareHostStart() async
    /// Disconnects and stops what the manager runs, keeping the host (`powerOff()`).
    func powerOff() async
    /// Ends the manager's event streams once it is closed.
    func finishStreams()
}

extension PoweredManager {
    /// Powers on as the machine says: waits out a reset under way, starts the host the first
    /// time (`.resetting` meanwhile), and reaches `.poweredOn` or `.unsupported`.
    func runPowerOn() async throws(BLEError) {
        while true {
            switch power.powerOn() {
            case .waitOutReset:
                await WaiterQueue.wait(unless: { power.state != .resetting }) { power.waitOutReset($0) }
            case .fail(let error):
                throw error
            case .done:
                return
            case .startHost:
                do {
                    try await startHost()
                } catch {
                    power.hostStartEnded(succeeded: false)
                    throw error
                }
                power.hostStartEnded(succeeded: true)
                return
            }
        }
    }

    /// The first power-on's start: the manager's preparations, then the host (HCI Reset and
    /// initialisation, Core 5.4 Vol 4 Part E §7.3.2).
    func startHost() async throws(BLEError) {
        await prepareHostStart()
        do {
            try await stack.host.start()
        } catch {
            throw .host(error)
        }
    }

    /// Powers off and stops the host for good; the streams end.
    func runClose() async {
        guard !power.isClosed else { return }
        await powerOff()
        power.close()
        await stack.host.stop()
        finishStreams()
        power.finish()
    }
}
