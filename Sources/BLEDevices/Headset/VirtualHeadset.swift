import BLE
import BLECompanion
import BLEHost
import BLELocking
import BLESimulation

/// A headset on any radio, built on the public API: a `PeripheralManager` publishing the
/// headset service through a `DeviceSideLink`, advertising its name, the service and its MAC
/// address (docs/headset-protocol.md). It answers firmware version and MAC address queries,
/// sends gestures and sensor events (scripted or seeded random) and a heartbeat tick, and takes
/// OTA updates into a two-slot `FirmwareFlash`: refused on a low battery, bad or missing packets
/// reported as "resend from n", progress persisted in the flash's storage, the slots swapped
/// only for a complete image with the announced SHA-256.
public final class VirtualHeadset: Sendable {
    /// What the headset did, for a log.
    public enum Activity: Sendable, Hashable {
        case connected(Central)
        case disconnected(Central)
        case otaStarted(OTASessionParameters, OTAStartAnswer)
        case otaCommitted(OTACommitOutcome)
        case otaAborted
        case resendRequested(packet: Int)
        /// Selective repeat: the headset asked for this packet alone.
        case packetResendRequested(packet: Int)
    }

    /// What the headset has sent and seen.
    public struct Statistics: Sendable, Hashable {
        public var heartbeatsSent = 0
        public var eventsSent = 0
        public var requestsAnswered = 0
        /// OTA data packets dropped or corrupted by fault injection.
        public var packetsDropped = 0
        public var packetsCorrupted = 0
    }

    public let configuration: VirtualHeadsetConfiguration
    public let manager: PeripheralManager
    public let link: DeviceSideLink<HeadsetProtocol>
    public let flash: FirmwareFlash
    /// Activity, newest kept when the reader lags.
    public let activity: AsyncStream<Activity>
    private let activitySink: AsyncStream<Activity>.Continuation
    private let receiver: HeadsetOTAReceiver
    private let clock: any Clock<Duration>
    private let taskExecutor: (any TaskExecutor)?
    private let state: Locked<State>

    private struct State {
        var heartbeatPeriod: Duration?
        var heartbeatGeneration = 0
        var statistics = Statistics()
        var tasks: [Task<Void, Never>] = []
    }

    /// Starts a headset on a virtual radio: its own controller at `position` with the MAC as
    /// public address, the flash on `storage`.
    public static func start(
        on radio: VirtualRadio, position: AirPosition = .origin,
        configuration: VirtualHeadsetConfiguration = VirtualHeadsetConfiguration(),
        storage: any FlashStorage = MemoryFlashStorage(), host: HostConfiguration = HostConfiguration()
    ) async throws -> VirtualHeadset {
        let manager = try await PeripheralManager(
            radio: .virtual(
                radio, position: position,
                controller: VirtualController.Configuration(publicAddress: configuration.macAddress)),
            configuration: host, gap: GAPServiceConfiguration(deviceName: configuration.name))
        do {
            try await manager.powerOn()
            return try await start(
                on: manager, configuration: configuration, storage: storage,
                link: .virtual(radio.simulation))
        } catch {
            await manager.close()
            throw error
        }
    }

    /// Starts a headset on `manager` (powered on): publishes the service, opens the flash on
    /// `storage`, starts advertising and answering. Its clock and tasks are `link`'s.
    public static func start(
        on manager: PeripheralManager, configuration: VirtualHeadsetConfiguration, storage: any FlashStorage,
        link linkConfiguration: DeviceLinkConfiguration
    ) async throws -> VirtualHeadset {
        let flash = try FirmwareFlash(
            storage: storage, factoryImage: configuration.factoryImage, configuration: configuration.flash,
            batteryLevel: configuration.batteryLevel,
            clock: configuration.flash.writeSpeed == nil ? nil : linkConfiguration.clock)
        let link = try await DeviceSideLink.publish(
            on: manager, speaking: HeadsetProtocol.self, configuration: linkConfiguration)
        let headset = VirtualHeadset(
            configuration: configuration, manager: manager, link: link, flash: flash, clock: linkConfiguration.clock,
            taskExecutor: linkConfiguration.taskExecutor)
        try await manager.startAdvertising(configuration.advertisement)
        headset.startTasks()
        return headset
    }

    private init(
        configuration: VirtualHeadsetConfiguration, manager: PeripheralManager, link: DeviceSideLink<HeadsetProtocol>,
        flash: FirmwareFlash, clock: any Clock<Duration>, taskExecutor: (any TaskExecutor)?
    ) {
        self.configuration = configuration
        self.manager = manager
        self.link = link
        self.flash = flash
        self.clock = clock
        self.taskExecutor = taskExecutor
        receiver = HeadsetOTAReceiver(flash: flash, faultRate: configuration.faultRate, seed: configuration.seed)
        (activity, activitySink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        state = Locked(State(heartbeatPeriod: configuration.heartbeatPeriod))
    }

    /// Battery level in percent; below the flash's minimum an update is refused.
    public var batteryLevel: Int {
        get { flash.batteryLevel }
        set { flash.batteryLevel = newValue }
    }

    public var statistics: Statistics {
        let faults = receiver.faults
        var statistics = state.withLock { $0.statistics }
        statistics.packetsDropped = faults.dropped
        statistics.packetsCorrupted = faults.corrupted
        return statistics
    }

    /// Stops answering and generating; the link closes, the manager stops advertising.
    public func stop() async {
        let tasks = state.withLock { state in
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
        await link.close()
        await manager.stopAdvertising()
        activitySink.finish()
    }

    // MARK: Tasks

    private func startTasks() {
        let tasks = [
            spawn { [self] in await serveMessages(isolation: $0) },
            spawn { [self] in await followManager(isolation: $0) },
            spawn { [self] in await sendEvents(isolation: $0) },
            spawn { [self] in await sendHeartbeats(generation: 0, isolation: $0) },
        ]
        state.withLock { $0.tasks += tasks }
    }

    /// Whether the central's link is encrypted with a MITM-protected key.
    private nonisolated(nonsending) func isAuthenticated(_ central: Central) async -> Bool {
        if case .encrypted(_, true, _) = await manager.security(of: central) { return true }
        return false
    }

    /// A task of the headset, run in its peripheral manager's isolation (on the virtual radio,
    /// the simulation's executor): its waits, and its calls into the manager and the link, need
    /// no switch to the generic executor and back.
    private func spawn(_ body: @escaping @Sendable (isolated PeripheralManager) async -> Void) -> Task<Void, Never> {
        Task(executorPreference: taskExecutor) { [manager] in await body(manager) }
    }

    /// Answers requests and takes events, one at a time in arrival order.
    private func serveMessages(isolation: isolated PeripheralManager) async {
        for await incoming in link.incoming {
            switch incoming.message {
            case .request(let message, let id):
                guard let answer = await answer(message, from: incoming.central) else { continue }
                do {
                    try await link.respond(to: id, with: answer)
                    state.withLock { $0.statistics.requestsAnswered += 1 }
                } catch {
                    // The central went away; it asks again after reconnecting.
                }
            case .event(.otaData(let data)):
                for report in await receiver.receive(data) {
                    switch report {
                    case .otaResend(let packet): activitySink.yield(.resendRequested(packet: Int(packet)))
                    case .otaResendPacket(let packet): activitySink.yield(.packetResendRequested(packet: Int(packet)))
                    default: break
                    }
                    try? await link.send(report, to: incoming.central)
                }
            case .event(.setHeartbeatPeriod(let seconds)):
                setHeartbeat(seconds == 0 ? nil : .seconds(Int(seconds)))
            case .event:
                break
            }
        }
    }

    /// The response to a request, nil for a message that is not one.
    private nonisolated(nonsending) func answer(_ message: HeadsetAppMessage, from central: Central) async -> HeadsetDeviceMessage? {
        switch message {
        case .firmwareVersionQuery:
            return .firmwareVersion(flash.activeVersion)
        case .macAddressQuery:
            return .macAddress(configuration.macAddress)
        case .otaStart(let start):
            if configuration.otaRequiresAuthentication, !(await isAuthenticated(central)) {
                // The OTA control point needs a MITM-protected link (Core 5.4 Vol 3 Part H
                // §2.3.1): an unpaired phone, or one paired with Just Works, may not flash.
                return .otaResult(.authenticationRequired)
            }
            let (reply, answer) = receiver.start(start)
            if let answer {
                let parameters = OTASessionParameters(
                    imageSize: Int(start.imageSize), version: start.version, sha256: start.sha256,
                    packetSize: Int(start.packetLength))
                activitySink.yield(.otaStarted(parameters, answer))
            }
            if case .mcuResponse(.batteryTooLow) = reply {
                // The level itself, so the app can say how low.
                try? await link.send(.battery(UInt8(clamping: max(0, batteryLevel))))
            }
            return reply
        case .otaStatusQuery:
            return receiver.status()
        case .otaCommit:
            let (reply, outcome) = receiver.commit()
            if let outcome { activitySink.yield(.otaCommitted(outcome)) }
            return reply
        case .otaAbort:
            activitySink.yield(.otaAborted)
            return receiver.abort()
        case .otaData, .setHeartbeatPeriod:
            return nil
        }
    }

    /// Logs connections; stops advertising while connected (advertising events would take air
    /// time from the connection's events, Core 5.4 Vol 6 Part B §4.5) and advertises again after
    /// a disconnection, so the app can come back.
    private func followManager(isolation: isolated PeripheralManager) async {
        for await event in link.managerEvents {
            switch event {
            case .connected(let central):
                activitySink.yield(.connected(central))
                await manager.stopAdvertising()
                if let preferred = configuration.preferredConnectionParameters {
                    // Refused or failed: the link keeps the central's parameters, which work too.
                    _ = try? await manager.requestConnectionParameters(preferred, for: central)
                }
            case .disconnected(let central, _):
                activitySink.yield(.disconnected(central))
                try? await manager.startAdvertising(configuration.advertisement)
            default:
                break
            }
        }
    }

    /// Starts (a period) or stops (nil) the heartbeat, as the app's `88` message does; a
    /// scenario's device actions use it too.
    package func setHeartbeat(_ period: Duration?) {
        let generation = state.withLock { state in
            state.heartbeatPeriod = period
            state.heartbeatGeneration += 1
            return state.heartbeatGeneration
        }
        let task = spawn { [self] in await sendHeartbeats(generation: generation, isolation: $0) }
        state.withLock { $0.tasks.append(task) }
    }

    /// Sends a tick every period while this generation of the setting holds.
    private func sendHeartbeats(generation: Int, isolation: isolated PeripheralManager) async {
        var count: UInt32 = 0
        while true {
            let period = state.withLock { $0.heartbeatGeneration == generation ? $0.heartbeatPeriod : nil }
            guard let period, (try? await clock.sleepInCallerIsolation(for: period)) != nil else { return }
            guard state.withLock({ $0.heartbeatGeneration == generation }) else { return }
            if (try? await link.send(.heartbeat(count))) != nil {
                state.withLock { $0.statistics.heartbeatsSent += 1 }
            }
            count &+= 1
        }
    }

    /// Sends the configured gestures and sensor events.
    private func sendEvents(isolation: isolated PeripheralManager) async {
        switch configuration.events {
        case .none:
            return
        case .scripted(let script):
            for event in script {
                guard (try? await clock.sleepInCallerIsolation(for: event.delay)) != nil else { return }
                await sendEvent(event.message)
            }
        case .random(let meanInterval):
            var generator = SeededRandomGenerator(seed: configuration.seed ^ 0x5EED_E7E7)
            while true {
                // Uniform on (0, 2 × mean): the mean is right and nothing bunches at zero.
                let delay = meanInterval * Double.random(in: 0.01..<2, using: &generator)
                guard (try? await clock.sleepInCallerIsolation(for: delay)) != nil else { return }
                await sendEvent(Self.randomEvent(using: &generator))
            }
        }
    }

    private nonisolated(nonsending) func sendEvent(_ message: HeadsetDeviceMessage) async {
        if (try? await link.send(message)) != nil {
            state.withLock { $0.statistics.eventsSent += 1 }
        }
    }

    static func randomEvent(using generator: inout SeededRandomGenerator) -> HeadsetDeviceMessage {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<5: .gesture(HeadsetProtocol.Gesture.allCases.randomElement(using: &generator) ?? .tap)
        case 5, 6: .proximity(HeadsetProtocol.Proximity.allCases.randomElement(using: &generator) ?? .near)
        case 7: .audioJack(HeadsetProtocol.AudioJack.allCases.randomElement(using: &generator) ?? .pluggedIn)
        case 8: .volume(UInt8.random(in: 0...100, using: &generator))
        default: .openCamera
        }
    }
}
