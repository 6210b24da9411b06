import BLE
import BLEPhone
import BLESimulation
import Foundation
import Logging

/// What a scenario run produced: the phone's trace, and each expectation passed or failed with
/// what the trace showed.
public struct PhoneScenarioResult: Sendable {
    public var scenario: PhoneScenario
    public var trace: [PhoneTraceEntry]
    /// The scenario's time zero (after the phone and the devices were set up).
    public var origin: VirtualInstant
    /// When the run ended (`origin` + the scenario's duration).
    public var end: VirtualInstant
    public var expectations: [PhoneExpectationResult]

    public var passed: Bool { expectations.allSatisfy(\.passed) }
}

/// Why a scenario could not run.
public enum PhoneScenarioRunError: Error, Sendable, CustomStringConvertible {
    case unknownProfile(String)
    case deviceFailed(String, any Error)

    public var description: String {
        switch self {
        case .unknownProfile(let name): "unknown profile \"\(name)\""
        case .deviceFailed(let name, let error): "device \"\(name)\" could not start: \(error)"
        }
    }
}

/// Runs a `PhoneScenario` on a virtual radio in virtual time: makes the phone with the
/// scenario's profile, starts its devices, installs the scripted app (`ScriptedApp`), performs
/// the timeline at its instants, runs to the scenario's duration and checks the expectations
/// against the trace. Lives here, beside the devices, because the phone cannot see them.
public enum PhoneScenarioRunner {
    /// Runs `scenario` on `radio` (a fresh one by default); the phone logs to `logger`.
    public static func run(
        _ scenario: PhoneScenario, radio: VirtualRadio = VirtualRadio(),
        logger: Logger = Logger(label: "swift-ble.phone")
    ) async throws -> PhoneScenarioResult {
        guard let profile = scenario.profile.resolved else {
            throw PhoneScenarioRunError.unknownProfile(scenario.profile.name)
        }
        let simulation = radio.simulation
        return try await simulation.run {
            // Apps get a storage directory (Documents/Inbox) in a folder of this run's own.
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent(
                "phone-scenario-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: storage) }
            let phone = await Phone(profile: profile, radio: radio, storageRoot: storage, logger: logger)
            if let coalescing = scenario.profile.coalescing { await phone.setEventCoalescing(coalescing) }
            var devices: [String: ScenarioDevice] = [:]
            for (index, spec) in scenario.devices.enumerated() {
                do {
                    devices[spec.name] = try await ScenarioDevice.start(spec, index: index, on: radio)
                } catch {
                    throw PhoneScenarioRunError.deviceFailed(spec.name, error)
                }
            }
            let script = scenario.app
            let scripted = scenario.devices.compactMap { devices[$0.name]?.scripted }
            await phone.install(script.declaration) { context in
                ScriptedApp(context: context, script: script, devices: scripted)
            }
            let origin = simulation.now
            for step in scenario.timeline {
                try await simulation.clock.sleep(until: origin.advanced(by: step.at))
                await perform(step.action, app: script.identifier, phone: phone, devices: devices, radio: radio)
            }
            let end = origin.advanced(by: scenario.duration)
            try await simulation.clock.sleep(until: end)
            let trace = await phone.trace
            for device in devices.values { await device.headset.stop() }
            let results = scenario.expectations.map {
                $0.evaluate(trace, app: script.identifier, origin: origin, end: end)
            }
            return PhoneScenarioResult(
                scenario: scenario, trace: trace, origin: origin, end: end, expectations: results)
        }
    }

    /// One timeline action, through the phone's user and system actions or the device's.
    static func perform(
        _ action: PhoneScenario.Action, app: AppIdentifier, phone: Phone, devices: [String: ScenarioDevice],
        radio: VirtualRadio
    ) async {
        switch action {
        case .open: await phone.open(app)
        case .home: await phone.home()
        case .lock: await phone.lock()
        case .unlock: await phone.unlock()
        case .forceQuit: await phone.forceQuit(app)
        case .memoryPressure: await phone.memoryPressure(app)
        case .crash: await phone.crash(app)
        case .reboot(let passcode): await phone.reboot(passcode: passcode)
        case .firstUnlock: await phone.firstUnlock()
        case .bluetoothInSettings(let on): await phone.setBluetooth(on: on, in: .settings)
        case .bluetoothInControlCenter(let on): await phone.setBluetooth(on: on, in: .controlCenter)
        case .airplaneMode(let on): await phone.setAirplaneMode(on: on)
        case .device(let name, let deviceAction):
            await devices[name]?.perform(deviceAction, radio: radio)
        case .keepAlive(let keepAliveAction):
            await phone.perform(keepAliveAction, for: app)
        case .tasks(let taskAction):
            await taskAction.perform(on: phone, app: app)
        case .audio(let audioAction): await phone.perform(audioAction)
        case .document(let documentAction):
            // A refusal is traced by the phone (documentRefused): the expectations see it.
            switch documentAction {
            case .share(let name, let content, let type):
                _ = try? await phone.share(content.bytes, named: name, type: type)
            case .openIn: try? await phone.openIn(app)
            case .answerPrompt(let answer): try? await phone.respondToPrompt(choosing: answer)
            }
        }
    }
}
