import BLE
import BLECompanion
import BLEPhone

/// The headset's phone app — the app of `ble demo`, run by the simulated phone: it finds the
/// headset by the MAC in its advertisement, connects, subscribes to the headset protocol's
/// notifications, handles gestures and sensor events, and runs a device-driven job on the
/// headset's heartbeat ticks (`DeviceTickSchedule`) beside a timer of its own on the app's clock —
/// which stands while the app is suspended, where the heartbeats wake a `bluetooth-central` app.
///
/// With state restoration it picks up what the system kept (`willRestoreState`) and connects
/// the restored peripherals again (phone-rules.md correction 2: the robust practice); after a
/// disconnection it connects again, a pending connect that never times out.
public actor HeadsetPhoneApp: PhoneApp {
    public nonisolated let context: AppContext
    let configuration: HeadsetAppConfiguration
    let observer: HeadsetAppObserver

    var central: PhoneCentralManager?
    var headset: PhonePeripheral?
    var toDevice: Characteristic?
    var parser = DeviceFrameParser()
    var schedule = DeviceTickSchedule<AppInstant, HeadsetJob>()
    var restored = false
    var syncTask: BackgroundTaskIdentifier?
    /// The voice prompt playing (`HeadsetVoicePrompt`).
    var promptPlayer: AVAudioPlayer?
    /// The firmware update under way (`HeadsetPhoneApp+FirmwareUpdate`).
    var firmwareUpdate: FirmwareUpdateRun?

    /// The app's device-driven jobs.
    enum HeadsetJob: Sendable {
        case periodicSync
    }

    public init(context: AppContext, configuration: HeadsetAppConfiguration, observer: HeadsetAppObserver) {
        self.context = context
        self.configuration = configuration
        self.observer = observer
    }

    // MARK: Life cycle

    public func didFinishLaunching(options: LaunchOptions) async {
        observer.update { $0.launches += 1 }
        schedule.schedule(.everyTicks(configuration.jobEveryTicks), now: context.clock.now, .periodicSync)
        let central = await context.centralManager(restoreIdentifier: configuration.restoreIdentifier)
        self.central = central
        Task(executorPreference: context.executor) { [self] in await follow(central) }
        Task(executorPreference: context.executor) { [self] in await runAppTimer() }
        await registerUpdateCheck()
        let how = options.isUserLaunch ? "by the user" : "to restore \(options.bluetoothCentrals)"
        await note("launched \(how)")
    }

    // With scenes (iOS 13+) the scene's callbacks replace the app's for the foreground and the
    // background ("Managing your app's life cycle"): the app answers both.
    public func didEnterBackground() async { await enteredBackground() }
    public func sceneDidEnterBackground() async { await enteredBackground() }
    public func willEnterForeground() async { await endSync(expired: false) }
    public func sceneWillEnterForeground() async { await endSync(expired: false) }

    func enteredBackground() async {
        await submitUpdateCheck()
        guard configuration.syncsInBackground, syncTask == nil else { return }
        let observer = self.observer
        let task = await context.beginBackgroundTask(withName: "sync") { [self] in
            observer.update { $0.expiredTasks += 1 }
            await endSync(expired: true)
        }
        syncTask = task
        await note("began background task \"sync\" (\(await context.backgroundTimeRemaining) left)")
    }

    func endSync(expired: Bool) async {
        guard let task = syncTask else { return }
        syncTask = nil
        await context.endBackgroundTask(task)
        await note(expired ? "the sync task's time ran out: ended it" : "ended the sync task")
    }

    /// The app's own timer: it runs on the app's clock, which stands while the app is suspended.
    func runAppTimer() async {
        while !Task.isCancelled {
            do { try await context.clock.sleep(for: configuration.appTimerPeriod) } catch { return }
            observer.update { $0.appTimerFirings += 1 }
        }
    }

    // MARK: Bluetooth

    /// The manager's events, one at a time, read in the app's isolation. Values go straight to
    /// `receive`: the headset notifies every second, all day, and each async call on their way
    /// costs the app's task a switch of executor.
    func follow(_ central: PhoneCentralManager) async {
        for await event in central.events {
            if case .valueUpdated(_, let characteristic, let value) = event {
                await receive(value, of: characteristic)
            } else {
                await handle(event)
            }
        }
    }

    func handle(_ event: PhoneCentralManagerEvent) async {
        switch event {
        case .willRestoreState(let state):
            restored = true
            observer.update { $0.restorations += 1 }
            headset = state.peripherals.first
            await note("restored \(state.peripherals.count) peripheral(s), \(state.subscriptions.count) subscription(s)")
        case .stateUpdated(let state):
            guard state == .poweredOn, let central else { return }
            if let headset {
                // Restored: connect again (a no-op when the link is up) and find the characteristics.
                await connect(headset, with: central)
            } else {
                do {
                    try await central.scanForPeripherals(withServices: [HeadsetProtocol.serviceUUID])
                } catch {
                    await note("scan refused: \(error)")
                }
            }
        case .discovered(let peripheral, let advertisement, _):
            guard headset == nil, let central,
                let mac = VirtualHeadsetConfiguration.macAddress(in: advertisement.manufacturerData),
                configuration.headsetMAC == nil || configuration.headsetMAC == mac
            else { return }
            headset = peripheral
            await central.stopScan()
            await connect(peripheral, with: central)
        case .connected(let peripheral):
            observer.update { $0.connections += 1 }
            await open(peripheral)
        case .failedToConnect(let peripheral, _), .disconnected(let peripheral, _):
            guard peripheral == headset, let central else { return }
            toDevice = nil
            await updateLinkDown()
            await connect(peripheral, with: central)
        case .valueUpdated(_, let characteristic, let value):
            await receive(value, of: characteristic)
        }
    }

    func connect(_ peripheral: PhonePeripheral, with central: PhoneCentralManager) async {
        do {
            try await central.connect(peripheral, options: configuration.connectOptions)
            if await peripheral.state == .connected, toDevice == nil { await open(peripheral) }
        } catch {
            await note("connect failed: \(error)")
        }
    }

    /// Finds the headset protocol's characteristics and subscribes (a restored subscription is
    /// kept by the system; subscribing again is harmless).
    func open(_ peripheral: PhonePeripheral) async {
        do {
            let services = try await peripheral.discoverServices([HeadsetProtocol.serviceUUID])
            guard let service = services.first else { return await note("the headset service is missing") }
            let characteristics = try await peripheral.discoverCharacteristics(
                [HeadsetProtocol.toDeviceCharacteristicUUID, HeadsetProtocol.toAppCharacteristicUUID], for: service)
            guard let toApp = characteristics.first(where: { $0.uuid == HeadsetProtocol.toAppCharacteristicUUID }),
                let toDevice = characteristics.first(where: { $0.uuid == HeadsetProtocol.toDeviceCharacteristicUUID })
            else { return await note("the headset protocol's characteristics are missing") }
            self.toDevice = toDevice
            try await peripheral.setNotifyValue(true, for: toApp)
            if let seconds = configuration.heartbeatPeriodSeconds {
                let frame = HeadsetAppMessage.setHeartbeatPeriod(seconds: seconds).frame(.event).encoded
                try await peripheral.writeValue(frame, for: toDevice, type: .withoutResponse)
            }
            await note("subscribed to the headset")
            await updateLinkUp()
        } catch {
            await note("opening the headset failed: \(error)")
        }
    }

    /// A notification: the headset protocol's frames come on its to-app characteristic.
    func receive(_ chunk: [UInt8], of characteristic: Characteristic) async {
        guard characteristic.uuid == HeadsetProtocol.toAppCharacteristicUUID else { return }
        // During an update its link reads the frames, and hands back what is not its own.
        if let link = firmwareUpdate?.link { return await link.receive(chunk) }
        for result in parser.append(chunk) {
            let message: HeadsetDeviceMessage
            do {
                message = try HeadsetDeviceMessage(frame: try result.get())
            } catch {
                observer.update { $0.undecodableFrames += 1 }
                await note("undecodable frame from the headset: \(error)")
                continue
            }
            // A heartbeat, once a second all day long, is handled without an async call: each
            // would cost the app's task a switch of executor.
            if !handledInPlace(message) { await announce(message) }
        }
    }

    func handleDeviceMessage(_ message: HeadsetDeviceMessage) async {
        if !handledInPlace(message) { await announce(message) }
    }

    /// A device event (a gesture, a sensor): counted, and its voice prompt played.
    private func announce(_ message: HeadsetDeviceMessage) async {
        observer.update { $0.deviceEvents += 1 }
        await speakPrompt(for: message)
    }

    /// Handles `message` if it needs no waiting (a heartbeat ticks the device-driven schedule);
    /// false for a device event, which `announce` handles.
    func handledInPlace(_ message: HeadsetDeviceMessage) -> Bool {
        switch message {
        case .heartbeat(let number):
            observer.update {
                $0.heartbeats += 1
                // A new heartbeat period starts the count again at 0.
                if let last = $0.lastHeartbeat, number <= last, number != 0 { $0.heartbeatsOutOfOrder += 1 }
                $0.lastHeartbeat = number
            }
            for due in schedule.tick(at: context.clock.now) {
                switch due.job {
                case .periodicSync: observer.update { $0.jobRuns += 1 }
                }
            }
            return true
        case .gesture, .proximity, .audioJack, .volume, .battery, .openCamera:
            return false
        default:
            return true
        }
    }

    func note(_ text: String) async {
        observer.say(text)
        await context.phone.record(.note(text), app: context.app)
    }
}
