import BLE
import BLEHost
import Foundation

/// Keeps one known device connected: after an unexpected disconnection it scans for the device
/// by key — so a device back at a new address is found, re-bound and used — and connects, the
/// first attempt at once and the next after capped exponential backoff with jitter
/// (`ReconnectPolicy`), on the injected clock.
///
/// A disconnection is unexpected unless this side closed the link while the radio is on
/// (Connection Terminated By Local Host, 0x16, Core 5.4 Vol 4 Part E §7.7.5 — the app
/// called `cancelPeripheralConnection`): a supervision timeout (0x08), the peer closing
/// (0x13, 0x15), or our own radio going off all lead to reconnection. While the radio is not
/// powered on (the central's state stream) no attempt runs; when it is back, attempts start over.
///
/// The reconnector runs on the central's executor. On the virtual radio, pass the simulation's
/// executor as `executor` so its tasks are seen by the simulation.
public actor Reconnector {
    public let key: DeviceKey
    public let policy: ReconnectPolicy
    private let central: CentralManager
    private let centralEvents: EventStream<CentralManagerEvent>
    private let registry: KnownDevices
    private let clock: any Clock<Duration>
    private let executor: (any TaskExecutor)?
    private var random: any RandomNumberGenerator & Sendable

    /// What happens, in order. One listener.
    public nonisolated let events: AsyncStream<ReconnectEvent>
    private let eventSink: AsyncStream<ReconnectEvent>.Continuation

    public private(set) var phase = ReconnectPhase.idle
    private var radioOn = false
    private var powerWaiters = WaiterQueue()
    private var watchers: [Task<Void, Never>] = []
    private var recovery: Task<Void, Never>?
    private var step: Task<StepOutcome, Never>?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { central.unownedExecutor }

    /// - Parameters:
    ///   - centralEvents: the central's events (`central.events`: a listener of its own, from when
    ///     it was asked for).
    ///   - random: draws the jitter; seed it for reproducible waits.
    public init(
        device key: DeviceKey, central: CentralManager, centralEvents: EventStream<CentralManagerEvent>,
        registry: KnownDevices, policy: ReconnectPolicy = ReconnectPolicy(), clock: any Clock<Duration>,
        executor: (any TaskExecutor)? = nil,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.key = key
        self.central = central
        self.centralEvents = centralEvents
        self.registry = registry
        self.policy = policy
        self.clock = clock
        self.executor = executor
        self.random = random
        (events, eventSink) = AsyncStream.makeStream(of: ReconnectEvent.self)
    }

    /// Starts watching `peripheral`, the device's current connection; without one, the first
    /// attempt starts at once (an app that launches and wants its device back).
    public func start(connectedTo peripheral: Peripheral? = nil) async {
        guard case .idle = phase else { return }
        let states = await central.stateUpdates()
        radioOn = await central.state == .poweredOn
        let events = centralEvents
        watchers.append(
            spawn { [weak self] in
                for await state in states { await self?.radioChanged(state) }
            })
        watchers.append(
            spawn { [weak self] in
                for await event in events { await self?.handle(event) }
            })
        if let peripheral, await peripheral.state == .connected {
            phase = .connected(peripheral)
        } else {
            beginRecovery()
        }
    }

    /// Stops for good: a wait or attempt in progress ends, the device stays as it is.
    public func cancel() {
        switch phase {
        case .cancelled, .gaveUp: return
        default: break
        }
        finish(.cancelled, event: .cancelled)
    }

    // MARK: Events

    private func handle(_ event: CentralManagerEvent) async {
        switch event {
        case .disconnected(let peripheral, let reason):
            guard case .connected(let current) = phase, current === peripheral else { return }
            if reason == .connectionTerminatedByLocalHost, await central.state == .poweredOn {
                phase = .watching
                eventSink.yield(.closedLocally)
                return
            }
            eventSink.yield(.linkLost(reason: reason))
            beginRecovery()
        case .connected(let peripheral):
            // The app connected the device itself.
            guard case .watching = phase else { return }
            let known: KnownDevice?
            do {
                known = try registry.device(withIdentifier: peripheral.identifier)
            } catch {
                // Not taken for "not ours" silently: reported, and the connection left alone.
                eventSink.yield(.registryFailed(error))
                return
            }
            guard known?.key == key else { return }
            phase = .connected(peripheral)
        case .failedToConnect, .paired, .pairingFailed, .peerLostBond:
            return
        }
    }

    private func radioChanged(_ state: ManagerState) {
        let on = state == .poweredOn
        guard on != radioOn else { return }
        radioOn = on
        if on {
            powerWaiters.resumeAll()
        } else {
            // The attempt cannot go on; the recovery loop pauses.
            step?.cancel()
        }
    }

    // MARK: Recovery

    private func beginRecovery() {
        recovery?.cancel()
        phase = .reconnecting(attempt: 1)
        recovery = spawn { [weak self] in await self?.recover() }
    }

    /// Attempts until connected, given up or cancelled.
    private func recover() async {
        var attempt = 0
        while !Task.isCancelled {
            if !radioOn {
                phase = .paused
                eventSink.yield(.paused(await central.state))
                while !radioOn {
                    await WaiterQueue.wait(unless: { radioOn }) { powerWaiters.append($0) }
                    guard !Task.isCancelled else { return }
                }
                eventSink.yield(.resumed)
                attempt = 0
            }
            attempt += 1
            phase = .reconnecting(attempt: attempt)
            let delay =
                attempt == 1
                ? Duration.zero
                : policy.delay(beforeRetry: attempt - 1, unit: ReconnectPolicy.unit(fromBits: random.next()))
            let number = attempt
            let current = spawn { [weak self] in
                await self?.perform(attempt: number, after: delay) ?? .interrupted
            }
            step = current
            let outcome = await current.value
            step = nil
            guard !Task.isCancelled else { return }
            switch outcome {
            case .connected(let peripheral):
                phase = .connected(peripheral)
                recovery = nil
                eventSink.yield(.connected(peripheral, attempt: number))
                return
            case .interrupted:
                // The radio went off: the loop pauses, and starts over once it is back.
                attempt = 0
            case .failed(let failure):
                eventSink.yield(.attemptFailed(attempt: number, failure))
                if let maximum = policy.maximumAttempts, number >= maximum {
                    finish(.gaveUp, event: .gaveUp(attempts: number))
                    return
                }
            }
        }
    }

    private enum StepOutcome: Sendable {
        case connected(Peripheral)
        case failed(ReconnectFailure)
        /// Cancelled because the radio went off.
        case interrupted
    }

    /// One attempt: the wait, a scan for the key (Core 5.4 Vol 3 Part C §9.2), re-binding,
    /// a connection (§9.3).
    private func perform(attempt: Int, after delay: Duration) async -> StepOutcome {
        if delay > .zero {
            eventSink.yield(.waiting(attempt: attempt, delay: delay))
            do {
                try await clock.sleep(for: delay)
            } catch {
                return .interrupted
            }
        }
        guard !Task.isCancelled, radioOn else { return .interrupted }
        eventSink.yield(.attempting(attempt))
        let discovery: Discovery?
        do {
            discovery = try await DeviceSearch.find(
                [key], on: central, identification: registry.identification, timeout: policy.scanTimeout, clock: clock
            )[key]
        } catch {
            return Task.isCancelled || !radioOn ? .interrupted : .failed(.ble(error))
        }
        guard !Task.isCancelled, radioOn else { return .interrupted }
        guard let discovery else { return .failed(.notFound) }
        do {
            switch try registry.observe(discovery) {
            case .rebound(let old, let new): eventSink.yield(.rebound(old: old, new: new))
            case .seen, .added: break
            case nil: return .failed(.unknownDevice)
            }
        } catch {
            // The registry could not be written: the device is still reconnected, and the
            // failure is reported.
            eventSink.yield(.registryFailed(error))
        }
        do {
            try await central.connect(discovery.peripheral, options: policy.connectOptions)
        } catch {
            return Task.isCancelled || !radioOn ? .interrupted : .failed(.ble(error))
        }
        return .connected(discovery.peripheral)
    }

    private func finish(_ final: ReconnectPhase, event: ReconnectEvent) {
        phase = final
        recovery?.cancel()
        recovery = nil
        step?.cancel()
        for watcher in watchers { watcher.cancel() }
        watchers = []
        powerWaiters.resumeAll()
        eventSink.yield(event)
        eventSink.finish()
    }

    /// A task on the given executor (the simulation's on the virtual radio).
    private func spawn<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> Task<T, Never> {
        if let executor { return Task(executorPreference: executor, operation: body) }
        return Task(operation: body)
    }
}
