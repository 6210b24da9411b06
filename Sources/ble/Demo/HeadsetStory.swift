import BLE
import BLECompanion
import BLEDevices
import BLEHost
import BLELocking
import BLESimulation
import BLEWire

/// What the summary needs from the story.
struct HeadsetStoryFigures: Sendable {
    var runs: [OTASummary] = []
    var transferStart = VirtualInstant.zero
    var transferEnd = VirtualInstant.zero
    /// From the headset leaving range to the second run's start.
    var outage = Duration.zero
    /// OTA packets the headset dropped and corrupted on purpose.
    var dropped = 0
    var corrupted = 0
    var virtualEnd = VirtualInstant.zero
    /// The link as the phone's policy negotiated it.
    var link: LinkParameters?
}

/// The headset demo's story, one step at a time (see `HeadsetDemo`).
final class HeadsetStory: Sendable {
    let radio: VirtualRadio
    let simulation: Simulation
    let phoneRadio: Radio
    let phoneHost: HostConfiguration
    let log: StoryLog
    let state = Locked(State())

    struct State {
        var link: DeviceLink<HeadsetProtocol>?
        var eventsSeen = 0
        var milestones: Set<Int> = []
        var linkLossStarted = false
        var linkDown: VirtualInstant?
    }

    init(radio: VirtualRadio, phoneRadio: Radio, phoneHost: HostConfiguration = HostConfiguration(), log: StoryLog) {
        self.radio = radio
        simulation = radio.simulation
        self.phoneRadio = phoneRadio
        self.phoneHost = phoneHost
        self.log = log
    }

    var clock: VirtualClock { simulation.clock }

    func tell() async throws -> HeadsetStoryFigures {
        var figures = HeadsetStoryFigures()
        let storage = MemoryFlashStorage()
        var configuration = VirtualHeadsetConfiguration(
            name: "HEADSET", macAddress: HeadsetDemo.mac, heartbeatPeriod: .seconds(1),
            events: .scripted(HeadsetDemo.script), faultRate: HeadsetDemo.faultRate, seed: HeadsetDemo.seed)
        // Only a phone paired with MITM protection may update it.
        configuration.otaRequiresAuthentication = true
        let first = try await startHeadset(configuration, storage: storage, address: HeadsetDemo.firstAddress)
        log.say(
            "headset: firmware \(first.flash.activeVersion) at \(HeadsetDemo.firstAddress), advertising \"HEADSET\" "
                + "and its MAC \(HeadsetDemo.mac)")

        let phone = await CentralManager(
            radio: phoneRadio,
            configuration: phoneHost.pairing(as: .keyboardDisplay, agent: DemoPairingAgent(who: "phone", log: log)))
        try await phone.powerOn()
        let registry = try KnownDevices.inMemory(
            identification: DeviceIdentification(scanServices: [HeadsetProtocol.serviceUUID]))

        // Scan for the headset service; the MAC in the advertisement names the device.
        log.say("phone: scanning for the headset service")
        guard
            let discovery = try await registry.find(
                .mac(HeadsetDemo.mac), on: phone, timeout: .seconds(5), clock: clock)
        else { throw CommandFailure("the headset was not found") }
        _ = try registry.remember(discovery, label: "headset")
        log.say(
            "phone: found MAC \(HeadsetDemo.mac) at \(discovery.peripheral.address.address), "
                + "RSSI \(discovery.rssi) dBm; remembered it")

        try await phone.connect(discovery.peripheral, options: HeadsetDemo.connectOptions)
        figures.link = await discovery.peripheral.linkParameters
        log.say("phone: connected and negotiated: \(figures.link?.summary ?? "no link")")
        log.say("phone: pairing (the headset's update needs an authenticated link)")
        let security = try await discovery.peripheral.pair()
        log.say("phone: paired and bonded; link \(Self.describe(security))")
        let reconnector = Reconnector(
            device: .mac(HeadsetDemo.mac), central: phone, centralEvents: phone.events, registry: registry,
            policy: ReconnectPolicy(
                initialDelay: .milliseconds(500), maximumDelay: .seconds(2), scanTimeout: .seconds(2),
                connectOptions: HeadsetDemo.connectOptions),
            clock: clock, executor: simulation.executor, random: SeededRandomGenerator(seed: HeadsetDemo.seed))
        let (connections, connectionSink) = AsyncStream.makeStream(of: Peripheral.self)
        let reconnections = spawn { [self] in await follow(reconnector, connections: connectionSink) }
        await reconnector.start(connectedTo: discovery.peripheral)
        var reconnected = connections.makeAsyncIterator()

        let scheduler = DeviceTickScheduler(clock: clock)
        await scheduler.schedule(.everyTicks(5)) { [self] run in await firmwareCheck(tick: run.tick) }

        let firstTarget = try await open(discovery.peripheral, scheduler: scheduler)
        log.say("phone: discovered the headset service, subscribed; heartbeats every second drive a job")
        await waitForEvents()

        let version = try await firstTarget.link.request(.firmwareVersionQuery, timeout: .seconds(2))
        guard case .firmwareVersion(let running) = version else { throw CommandFailure("version answered \(version)") }

        let image = try HeadsetDemo.image()
        log.say("phone: firmware version? → \(running); \(image.version) is available")
        try await transfer(
            image, to: first, over: firstTarget, scheduler: scheduler, reconnected: &reconnected, figures: &figures)

        // The headset restarts on its new firmware: a new controller, a new address, the same MAC.
        await first.stop()
        await first.manager.close()
        log.say("headset: restarting on the new firmware")
        let second = try await startHeadset(configuration, storage: storage, address: HeadsetDemo.secondAddress)
        log.say(
            "headset: firmware \(second.flash.activeVersion), advertising from \(HeadsetDemo.secondAddress), "
                + "same MAC \(HeadsetDemo.mac)")
        guard let again = await reconnected.next() else { throw CommandFailure("the headset was not found again") }
        let thirdTarget = try await open(again, scheduler: scheduler)
        let answer = try await thirdTarget.link.request(.firmwareVersionQuery, timeout: .seconds(2))
        guard case .firmwareVersion(let updated) = answer else { throw CommandFailure("version answered \(answer)") }
        log.say("phone: firmware version? → \(updated)")

        await reconnector.cancel()
        await reconnections.value
        thirdTarget.close()
        await thirdTarget.link.close()
        await phone.cancelPeripheralConnection(again)
        log.say("phone: disconnected; done")
        figures.virtualEnd = clock.now
        await phone.close()
        await second.stop()
        await second.manager.close()
        return figures
    }

    // MARK: Steps

    /// A headset on its own controller at `address`, its flash on `storage`.
    private func startHeadset(
        _ configuration: VirtualHeadsetConfiguration, storage: any FlashStorage, address: BluetoothAddress
    ) async throws -> VirtualHeadset {
        let manager = try await PeripheralManager(
            radio: .virtual(
                radio, position: .origin, controller: VirtualController.Configuration(publicAddress: address)),
            configuration: HostConfiguration().pairing(
                as: .displayYesNo, agent: DemoPairingAgent(who: "headset", log: log)),
            gap: GAPServiceConfiguration(deviceName: configuration.name))
        do {
            try await manager.powerOn()
            return try await VirtualHeadset.start(
                on: manager, configuration: configuration, storage: storage, link: .virtual(simulation))
        } catch {
            await manager.close()
            throw error
        }
    }

    /// Opens the headset protocol on a connected peripheral; its messages go to the log and its
    /// heartbeats to the scheduler.
    func open(
        _ peripheral: Peripheral, scheduler: DeviceTickScheduler<VirtualClock>
    ) async throws -> HeadsetOTATarget {
        // A bonded headset is encrypted from the bond as it connects: the protocol waits for that
        // (its update needs the authenticated link). A headset with no bond stays as it is.
        _ = try? await peripheral.encrypt()
        let link = try await DeviceLink.open(
            peripheral, speaking: HeadsetProtocol.self, configuration: .virtual(simulation))
        state.withLock { $0.link = link }
        let target = HeadsetOTATarget(link: link, taskExecutor: simulation.executor)
        let messages = target.otherMessages
        spawn { [self] in
            for await incoming in messages {
                if case .heartbeat = incoming.message {
                    await scheduler.tick()
                } else if let text = HeadsetDemo.describe(incoming.message) {
                    state.withLock { $0.eventsSeen += 1 }
                    log.say("headset → phone: \(text)")
                }
            }
        }
        return target
    }

    /// "encrypted, authenticated, LE Secure Connections, 16-octet key".
    static func describe(_ security: LinkSecurity) -> String {
        switch security {
        case .unencrypted: "not encrypted"
        case .encrypted(let keySize, let authenticated, let secureConnections):
            "encrypted (\(authenticated ? "authenticated" : "unauthenticated"), "
                + "\(secureConnections ? "LE Secure Connections" : "legacy pairing"), \(keySize)-octet key)"
        }
    }

    /// Waits until every scripted gesture and sensor event was printed.
    private func waitForEvents() async {
        while state.withLock({ $0.eventsSeen }) < HeadsetDemo.script.count {
            guard (try? await clock.sleep(for: .milliseconds(100))) != nil else { return }
        }
    }

    /// The heartbeat job: every 5 ticks, ask the firmware version (a cheap liveness check).
    private func firmwareCheck(tick: UInt64) async {
        guard let link = state.withLock({ $0.link }) else { return }
        let answer = try? await link.request(.firmwareVersionQuery, timeout: .seconds(2))
        let text = answer.flatMap { answer -> String? in
            if case .firmwareVersion(let version) = answer { return version }
            return nil
        }
        log.say("job on heartbeat \(tick) (every 5): firmware check → \(text ?? "no answer")")
    }

    /// Prints what the reconnector does and hands over its connections.
    private func follow(_ reconnector: Reconnector, connections: AsyncStream<Peripheral>.Continuation) async {
        for await event in reconnector.events {
            switch event {
            case .linkLost(let reason): log.say("phone: link lost (\(reason)); reconnecting by MAC")
            case .attemptFailed(let attempt, let failure): log.say("phone: attempt \(attempt): \(failure)")
            case .rebound(let old, let new):
                log.say(
                    "phone: found MAC \(HeadsetDemo.mac) again at a new address; re-bound "
                        + "\(old.address.address) → \(new.address.address)")
            case .connected(let peripheral, let attempt):
                log.say("phone: connected to \(peripheral.address.address) (attempt \(attempt))")
                connections.yield(peripheral)
            default: break
            }
        }
        connections.finish()
    }

    @discardableResult
    func spawn<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> Task<T, Never> {
        Task(executorPreference: simulation.executor, operation: body)
    }
}
