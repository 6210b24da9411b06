import BLE
import Foundation

/// A device as the scripted app knows it: how to recognise its advertising and which of its
/// characteristics to subscribe to and write (the runner, which makes the devices, says).
public struct ScriptedDevice: Sendable {
    public var name: String
    public var service: BluetoothUUID
    /// The characteristic `subscribe` turns notifications on for.
    public var notifying: BluetoothUUID
    /// The characteristic `write` writes (with response when it allows it).
    public var writable: BluetoothUUID
    /// Whether an advertisement is this device's.
    public var matches: @Sendable (AdvertisementData) -> Bool

    public init(
        name: String, service: BluetoothUUID, notifying: BluetoothUUID, writable: BluetoothUUID,
        matches: @escaping @Sendable (AdvertisementData) -> Bool
    ) {
        self.name = name
        self.service = service
        self.notifying = notifying
        self.writable = writable
        self.matches = matches
    }
}

/// An app whose code is a scenario's script (`PhoneScenario.App.reactions`): on each lifecycle
/// callback, Bluetooth event or timer of its own clock it performs the reaction's steps in
/// order, through the phone's APIs — its central manager (made with the first restore
/// identifier it declares), `beginBackgroundTask` / `endBackgroundTask`, its app clock.
///
/// Everything runs on the app's executor: while the phone suspends the app, its script stands
/// still, and a kill discards it mid-step, as it would a real app's code.
public actor ScriptedApp: PhoneApp {
    public nonisolated let context: AppContext
    let script: PhoneScenario.App
    let devices: [String: ScriptedDevice]

    private var central: PhoneCentralManager?
    /// The peripheral of each device, once discovered or restored.
    private var peripherals: [String: PhonePeripheral] = [:]
    /// Background tasks begun by name.
    private var tasks: [String: BackgroundTaskIdentifier] = [:]
    private var started = false
    /// Location manager, sessions, calls (KeepAlive/PhoneScenario+KeepAlive.swift).
    var keepAlive = ScriptedKeepAlive()
    /// The scheduled tasks running now (Tasks/ScriptedApp+Tasks.swift).
    var scheduledTasks: [BGTask] = []
    /// The players `play_audio` started.
    var players: [AVAudioPlayer] = []

    public init(context: AppContext, script: PhoneScenario.App, devices: [ScriptedDevice]) {
        self.context = context
        self.script = script
        self.devices = Dictionary(devices.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Lifecycle

    public func didFinishLaunching(options: LaunchOptions) async {
        await registerScheduledTasks()
        await start()
        await react(to: .launch)
    }

    // On profiles with scenes the phone calls the scene's callbacks instead of the app's
    // (UIKit: an app with scenes gets the scene delegate's); the script answers either.
    public func willEnterForeground() async { await react(to: .enterForeground) }
    public func didBecomeActive() async { await react(to: .becomeActive) }
    public func didEnterBackground() async { await react(to: .enterBackground) }
    public func sceneWillEnterForeground() async { await react(to: .enterForeground) }
    public func sceneDidBecomeActive() async { await react(to: .becomeActive) }
    public func sceneDidEnterBackground() async { await react(to: .enterBackground) }

    /// Makes the central manager (a relaunch for restoration makes it with the identifier the
    /// system preserved), starts reading its events and the timers.
    private func start() async {
        guard !started else { return }
        started = true
        let manager = await context.centralManager(restoreIdentifier: script.restoreIdentifiers.sorted().first)
        central = manager
        Task(executorPreference: context.executor) { await self.follow(manager.events) }
        await followAudio()
        for reaction in script.reactions {
            if case .timer(let period) = reaction.trigger {
                Task(executorPreference: context.executor) { await self.tick(every: period, reaction.steps) }
            }
        }
        await startKeepAlive()
    }

    private func follow(_ events: EventStream<PhoneCentralManagerEvent>) async {
        for await event in events {
            await handle(event)
        }
    }

    private func handle(_ event: PhoneCentralManagerEvent) async {
        switch event {
        case .stateUpdated, .failedToConnect:
            return
        case .willRestoreState(let restored):
            // A new instance knows nothing: the restored peripherals become its devices again,
            // by the name they advertised (else in order), as an app maps them back to its
            // model (Core Bluetooth Programming Guide, "Reinstate Your App's State").
            for peripheral in restored.peripherals {
                let advertised = await peripheral.name
                let unassigned = devices.keys.sorted().filter { peripherals[$0] == nil }
                if let name = unassigned.first(where: { $0 == advertised }) ?? unassigned.first {
                    peripherals[name] = peripheral
                }
            }
        case .discovered(let peripheral, let advertisement, _):
            guard let device = devices.values.first(where: { $0.matches(advertisement) }) else { return }
            peripherals[device.name] = peripheral
            await react(to: .discovered, device: device.name)
        case .connected(let peripheral):
            await react(to: .connected, device: name(of: peripheral))
        case .disconnected(let peripheral, _):
            await react(to: .disconnected, device: name(of: peripheral))
        case .valueUpdated(let peripheral, _, _):
            await react(to: .notification, device: name(of: peripheral))
        }
    }

    private func name(of peripheral: PhonePeripheral) -> String? {
        peripherals.first { $0.value === peripheral }?.key
    }

    private func tick(every period: Duration, _ steps: [PhoneScenario.Step]) async {
        while (try? await context.clock.sleep(for: period)) != nil {
            await perform(steps)
        }
    }

    // MARK: Reactions

    /// A lifecycle callback's reactions: started as tasks on the app's executor that run once
    /// the callback returns, or performed inside it (`inCallback`, timed by the watchdog).
    func react(to trigger: PhoneScenario.Trigger) async {
        for reaction in script.reactions where reaction.trigger == trigger {
            if reaction.inCallback {
                await perform(reaction.steps)
            } else {
                let steps = reaction.steps
                Task(executorPreference: context.executor) { await self.perform(steps) }
            }
        }
    }

    private func react(to event: PhoneScenario.BluetoothTrigger, device: String?) async {
        for reaction in script.reactions {
            guard case .bluetooth(let wanted, let only) = reaction.trigger, wanted == event else { continue }
            if let only, only != device { continue }
            await perform(reaction.steps)
        }
    }

    func perform(_ steps: [PhoneScenario.Step]) async {
        for step in steps { await perform(step) }
    }

    private func perform(_ step: PhoneScenario.Step) async {
        switch step {
        case .beginTask(let name):
            let app = context.app
            let phone = context.phone
            // The handler notes the expiry and leaves the task open: a script that does not end
            // its task in time is killed for it (0x2182bad2), which is what a scenario shows.
            tasks[name] = await context.beginBackgroundTask(withName: name) {
                await phone.record(.note("expiration handler of '\(name)'"), app: app)
            }
        case .endTask(let name):
            guard let identifier = tasks.removeValue(forKey: name) else {
                await note("end_task '\(name)': no such task")
                return
            }
            await context.endBackgroundTask(identifier)
        case .work(let duration):
            try? await context.clock.sleep(for: duration)
        case .scan(let name):
            guard let central, let device = devices[name] else { return }
            do {
                try await central.scanForPeripherals(withServices: [device.service])
            } catch {
                await note("scan for \(name) failed: \(error)")
            }
        case .connect(let name, let alerts):
            guard let central, let peripheral = peripherals[name] else {
                await note("connect \(name): not discovered")
                return
            }
            do {
                try await central.connect(
                    peripheral,
                    options: PhoneConnectOptions(
                        notifyOnConnection: alerts.contains(.connection),
                        notifyOnDisconnection: alerts.contains(.disconnection),
                        notifyOnNotification: alerts.contains(.notification)))
            } catch {
                await note("connect \(name) failed: \(error)")
            }
        case .disconnect(let name):
            guard let central, let peripheral = peripherals[name] else { return }
            await central.cancelPeripheralConnection(peripheral)
        case .subscribe(let name):
            guard let peripheral = peripherals[name], let device = devices[name] else { return }
            do {
                let characteristic = try await peripheral.characteristic(device.notifying, inService: device.service)
                try await peripheral.setNotifyValue(true, for: characteristic)
            } catch {
                await note("subscribe to \(name) failed: \(error)")
            }
        case .write(let name, let value):
            guard let peripheral = peripherals[name], let device = devices[name] else { return }
            do {
                let characteristic = try await peripheral.characteristic(device.writable, inService: device.service)
                // With response where the characteristic allows it, else as a Write Command.
                let type: WriteType = characteristic.properties.contains(.write) ? .withResponse : .withoutResponse
                try await peripheral.writeValue(value, for: characteristic, type: type)
            } catch {
                await note("write to \(name) failed: \(error)")
            }
        case .note(let text):
            await note(text)
        case .keepAlive(let step):
            await perform(keepAlive: step)
        case .tasks(let taskStep):
            await perform(taskStep)
        case .audio(let audio):
            await perform(audio)
        case .prompt(let alert):
            let answer = await context.presentAlert(alert)
            await note("answered \(answer ?? "nothing (dismissed)")")
        }
    }

    func note(_ text: String) async {
        await context.phone.record(.note(text), app: context.app)
    }
}
