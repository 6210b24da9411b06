import BLE
import BLEWire

extension PhoneScenario {
    /// The largest scenario file read.
    public static let maximumDocumentLength = 1 << 20

    /// The longest run a scenario may ask for (a week of virtual time).
    public static let maximumDuration: Duration = .seconds(7 * 86_400)

    /// The scenario in `bytes`: JSON read strictly (duplicate keys and unknown keys are errors),
    /// then checked field by field; the first mistake is thrown with its path, line and column.
    public init(parsing bytes: [UInt8]) throws(PhoneScenarioError) {
        let root: JSONValue
        let locations: JSONLocations
        do {
            (root, locations) = try JSONParser.parseLocated(bytes)
        } catch {
            let problem: String
            let path: String
            switch error.error {
            case .syntax(let what, _, _): (problem, path) = ("not JSON: \(what)", "")
            case .duplicateKey(let key, let at): (problem, path) = ("key \"\(key)\" appears more than once", at)
            case .tooDeep(let at, let limit): (problem, path) = ("nested deeper than \(limit) levels", at)
            }
            throw PhoneScenarioError(path: path, problem: problem, line: error.line, column: error.column)
        }
        do {
            self = try ScenarioParser.scenario(JSONCursor(value: root, path: ""))
        } catch {
            let (line, column) = locations.position(of: error.path)
            throw PhoneScenarioError(path: error.path, problem: error.problem, line: line, column: column)
        }
    }
}

/// The schema of docs/phone-scenarios.md, one function per object.
enum ScenarioParser {
    typealias Failure = GATTDocumentError

    static func scenario(_ cursor: JSONCursor) throws(Failure) -> PhoneScenario {
        let root = try cursor.object(allowing: ["profile", "app", "devices", "timeline", "duration_s", "expect"])
        let duration = try seconds(
            try required("duration_s", in: root), in: 0.001...PhoneScenario.maximumDuration.inSeconds)
        let profile = try self.profile(try required("profile", in: root))
        var devices: [PhoneScenario.Device] = []
        for element in try root.member("devices")?.array() ?? [] {
            let device = try self.device(element)
            if devices.contains(where: { $0.name == device.name }) {
                throw (element.member("name") ?? element).fail("a second device named \"\(device.name)\"")
            }
            devices.append(device)
        }
        let names = devices.map(\.name)
        let app = try self.app(try required("app", in: root), devices: names)
        var timeline: [PhoneScenario.TimelineStep] = []
        for element in try root.member("timeline")?.array() ?? [] {
            let step = try self.step(element, devices: names, duration: duration)
            if let previous = timeline.last, step.at < previous.at {
                throw (element.member("at_s") ?? element).fail(
                    "at \(format(step.at.inSeconds)) s, before the previous step (\(format(previous.at.inSeconds)) s); list steps in time order"
                )
            }
            timeline.append(step)
        }
        var expectations: [PhoneScenario.Expectation] = []
        for element in try root.member("expect")?.array() ?? [] {
            expectations.append(try expectation(element, duration: duration))
        }
        return PhoneScenario(
            profile: profile, app: app, devices: devices, timeline: timeline, duration: duration,
            expectations: expectations)
    }

    // MARK: Profile

    static func profile(_ cursor: JSONCursor) throws(Failure) -> PhoneScenario.Profile {
        let known = PhoneProfile.all.map(\.name)
        if case .string(let name) = cursor.value {
            guard known.contains(name) else {
                throw cursor.fail("unknown profile \"\(name)\"; expected one of: " + known.joined(separator: ", "))
            }
            return PhoneScenario.Profile(name: name)
        }
        let object = try cursor.object(allowing: [
            "name", "wake_window_s", "background_task_budget_s", "expiration_lead_s", "suspension_delay_s",
            "auto_lock_s", "coalescing",
        ])
        let nameCursor = try required("name", in: object)
        let name = try nameCursor.string()
        guard known.contains(name) else {
            throw nameCursor.fail("unknown profile \"\(name)\"; expected one of: " + known.joined(separator: ", "))
        }
        var profile = PhoneScenario.Profile(name: name)
        // The Core Bluetooth Programming Guide says "around 10 seconds"; Apple DTS saw up to ~30.
        profile.wakeWindow = try optionalSeconds(object.member("wake_window_s"), in: 0...30)
        profile.backgroundTaskBudget = try optionalSeconds(object.member("background_task_budget_s"), in: 0...3_600)
        profile.expirationLead = try optionalSeconds(object.member("expiration_lead_s"), in: 0...60)
        profile.suspensionDelay = try optionalSeconds(object.member("suspension_delay_s"), in: 0...60)
        if let lock = object.member("auto_lock_s") {
            if case .null = lock.value {
                profile.autoLock = .never
            } else {
                profile.autoLock = .after(try seconds(lock, in: 1...86_400))
            }
        }
        if let coalescing = object.member("coalescing") {
            switch coalescing.value {
            case .string("none"): profile.coalescing = EventCoalescing.none
            case .string("latest_per_characteristic"): profile.coalescing = .latestPerKey
            case .number: profile.coalescing = .bounded(try coalescing.integer(in: 1...1_000_000))
            default:
                throw coalescing.fail("expected \"none\", \"latest_per_characteristic\" or a number of events to keep")
            }
        }
        if let resolved = profile.resolved, resolved.expirationLead > resolved.backgroundTaskBudget {
            throw (object.member("expiration_lead_s") ?? object).fail(
                "the expiration lead (\(format(resolved.expirationLead.inSeconds)) s) exceeds the background task budget "
                    + "(\(format(resolved.backgroundTaskBudget.inSeconds)) s)")
        }
        return profile
    }

    // MARK: App

    static func app(_ cursor: JSONCursor, devices: [String]) throws(Failure) -> PhoneScenario.App {
        let object = try cursor.object(allowing: [
            "bundle_id", "background_modes", "restore_identifiers", "uses_accessory_setup_kit", "reactions",
            "permitted_task_identifiers",
            "document_types", "opens_in_place", "file_sharing",
        ])
        let bundleCursor = try required("bundle_id", in: object)
        let bundle = try bundleCursor.string()
        guard !bundle.isEmpty, bundle.utf8.count <= 255 else { throw bundleCursor.fail("expected 1 to 255 octets") }
        var app = PhoneScenario.App(bundleIdentifier: bundle)
        for element in try object.member("background_modes")?.array() ?? [] {
            let name = try element.string()
            guard let mode = BackgroundMode(rawValue: name) else {
                throw element.fail(
                    "unknown background mode \"\(name)\"; expected one of: "
                        + BackgroundMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            app.backgroundModes.insert(mode)
        }
        for element in try object.member("restore_identifiers")?.array() ?? [] {
            let identifier = try element.string()
            guard !identifier.isEmpty else { throw element.fail("expected a non-empty restore identifier") }
            app.restoreIdentifiers.insert(identifier)
        }
        app.usesAccessorySetupKit = try object.member("uses_accessory_setup_kit")?.bool() ?? false
        for element in try object.member("permitted_task_identifiers")?.array() ?? [] {
            app.permittedTaskIdentifiers.insert(try ScenarioTasks.identifier(element))
        }
        app.documents = try appDocuments(object)
        for element in try object.member("reactions")?.array() ?? [] {
            app.reactions.append(try reaction(element, devices: devices))
        }
        return app
    }

    static func reaction(_ cursor: JSONCursor, devices: [String]) throws(Failure) -> PhoneScenario.Reaction {
        let object = try cursor.object(allowing: ["on", "device", "every_s", "do", "in_callback", "task"])
        let onCursor = try required("on", in: object)
        let on = try onCursor.string()
        let trigger: PhoneScenario.Trigger
        if let lifecycle = PhoneScenarioNames.lifecycleTriggers.first(where: { $0.0 == on })?.1 {
            trigger = lifecycle
        } else if let bluetooth = PhoneScenario.BluetoothTrigger(rawValue: on) {
            var name: String?
            if let deviceCursor = object.member("device") { name = try device(deviceCursor, among: devices) }
            trigger = .bluetooth(bluetooth, device: name)
        } else if on == "timer" {
            trigger = .timer(every: try seconds(try required("every_s", in: object), in: 0.001...86_400))
        } else if let keepAlive = PhoneScenario.KeepAliveTrigger(rawValue: on) {
            trigger = .keepAlive(keepAlive)
        } else if on == "scheduled_task" {
            var only: String?
            if let task = object.member("task") { only = try ScenarioTasks.identifier(task) }
            trigger = .scheduledTask(only)
        } else if on == "task_expiration" {
            trigger = .taskExpiration
        } else if let audio = PhoneScenario.AudioTrigger(rawValue: on) {
            trigger = .audio(audio)
        } else {
            throw onCursor.fail(
                "unknown event \"\(on)\"; expected one of: " + PhoneScenarioNames.triggerNames.joined(separator: ", "))
        }
        if let device = object.member("device"), !(PhoneScenario.BluetoothTrigger(rawValue: on) != nil) {
            throw device.fail("\"device\" applies only to Bluetooth events")
        }
        if let every = object.member("every_s"), on != "timer" {
            throw every.fail("\"every_s\" applies only to \"timer\"")
        }
        if let task = object.member("task"), on != "scheduled_task" {
            throw task.fail("\"task\" applies only to \"scheduled_task\"")
        }
        var steps: [PhoneScenario.Step] = []
        for element in try required("do", in: object).array() {
            steps.append(try step(element, devices: devices))
        }
        var inCallback = false
        if let flag = object.member("in_callback") {
            guard PhoneScenarioNames.lifecycleTriggers.contains(where: { $0.0 == on }) else {
                throw flag.fail(
                    "\"in_callback\" applies only to launch, enter_background, enter_foreground and become_active")
            }
            inCallback = try flag.bool()
        }
        return PhoneScenario.Reaction(on: trigger, do: steps, inCallback: inCallback)
    }

    static func step(_ cursor: JSONCursor, devices: [String]) throws(Failure) -> PhoneScenario.Step {
        let (key, value) = try single(cursor, among: PhoneScenarioNames.steps + KeepAliveScenario.stepKeys)
        switch key {
        case "begin_task": return .beginTask(try value.string())
        case "end_task": return .endTask(try value.string())
        case "work_s": return .work(try seconds(value, in: 0...86_400))
        case "scan": return .scan(device: try device(value, among: devices))
        case "connect":
            if case .string = value.value { return .connect(device: try device(value, among: devices)) }
            let object = try value.object(allowing: ["device", "notify_on"])
            let name = try device(try required("device", in: object), among: devices)
            var alerts: Set<PhoneScenario.ConnectAlert> = []
            for element in try object.member("notify_on")?.array() ?? [] {
                let alert = try element.string()
                guard let known = PhoneScenario.ConnectAlert(rawValue: alert) else {
                    throw element.fail(
                        "unknown alert \"\(alert)\"; expected one of: "
                            + PhoneScenario.ConnectAlert.allCases.map(\.rawValue).joined(separator: ", "))
                }
                alerts.insert(known)
            }
            return .connect(device: name, alerts: alerts)
        case "disconnect": return .disconnect(device: try device(value, among: devices))
        case "subscribe": return .subscribe(device: try device(value, among: devices))
        case let key where ScenarioTasks.stepKeys.contains(key):
            return .tasks(try ScenarioTasks.step(key, value))
        case "write":
            let object = try value.object(allowing: ["device", "hex"])
            let name = try device(try required("device", in: object), among: devices)
            let hex = try required("hex", in: object)
            guard let bytes = Hex.bytes(try hex.string()), bytes.count <= 512 else {
                throw hex.fail("expected up to 512 octets as pairs of hex digits")
            }
            return .write(device: name, value: bytes)
        case let key where KeepAliveScenario.stepKeys.contains(key): return try KeepAliveScenario.step(key, value)
        case let audio where AudioScenario.stepKeys.contains(audio): return .audio(try AudioScenario.step(audio, value))
        case "prompt": return try promptStep(value)
        default: return .note(try value.string())
        }
    }

    // MARK: Devices and the timeline

    static func device(_ cursor: JSONCursor) throws(Failure) -> PhoneScenario.Device {
        let object = try cursor.object(allowing: ["name", "kind", "notify_period_s", "distance_m"])
        let nameCursor = try required("name", in: object)
        let name = try nameCursor.string()
        guard !name.isEmpty else { throw nameCursor.fail("expected a non-empty name") }
        let kindCursor = try required("kind", in: object)
        let kindName = try kindCursor.string()
        guard let kind = PhoneScenario.Device.Kind(rawValue: kindName) else {
            throw kindCursor.fail(
                "unknown device kind \"\(kindName)\"; expected one of: "
                    + PhoneScenario.Device.Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var device = PhoneScenario.Device(name: name, kind: kind)
        if let period = object.member("notify_period_s") {
            // The headset's heartbeat period is whole seconds (docs/headset-protocol.md, `88`).
            if case .null = period.value {
                device.notifyPeriod = nil
            } else {
                device.notifyPeriod = .seconds(try wholeSeconds(period, in: 1...255))
            }
        }
        if let distance = object.member("distance_m") {
            let metres = try distance.number()
            guard (0...10_000).contains(metres) else { throw distance.fail("expected metres from 0 to 10000") }
            device.distance = metres
        }
        return device
    }

    static func step(_ cursor: JSONCursor, devices: [String], duration: Duration) throws(Failure)
        -> PhoneScenario.TimelineStep
    {
        let object = try cursor.object(
            allowing: Set(
                [
                    "at_s", "action", "device", "passcode", "period_s", "task", "conditions", "file", "size", "text",
                    "hex", "type", "answer",
                ] + KeepAliveScenario.actionFields))
        let at = try seconds(try required("at_s", in: object), in: 0...duration.inSeconds)
        let actionCursor = try required("action", in: object)
        let name = try actionCursor.string()
        if let action = try ScenarioTasks.action(name, object) {
            try rejectForeignKeys(object, action: name, own: ["task", "conditions"])
            return PhoneScenario.TimelineStep(at: at, .tasks(action))
        }
        if let deviceCursor = object.member("device") {
            let device = try self.device(deviceCursor, among: devices)
            guard var action = PhoneScenarioNames.deviceActions.first(where: { $0.0 == name })?.1 else {
                throw actionCursor.fail(
                    "unknown device action \"\(name)\"; expected one of: "
                        + PhoneScenarioNames.deviceActions.map(\.0).joined(separator: ", "))
            }
            if let period = object.member("period_s") {
                guard case .startNotifying = action else {
                    throw period.fail("\"period_s\" applies only to start_notifying")
                }
                action = .startNotifying(every: .seconds(try wholeSeconds(period, in: 1...255)))
            }
            if let passcode = object.member("passcode") { throw passcode.fail("\"passcode\" applies only to reboot") }
            try KeepAliveScenario.rejectFields(object, for: name)
            try rejectForeignKeys(object, action: name, own: ["device", "period_s"])
            return PhoneScenario.TimelineStep(at: at, .device(device, action))
        }
        if let keepAlive = try KeepAliveScenario.action(name, object) {
            for key in ["passcode", "period_s"] {
                if let extra = object.member(key) { throw extra.fail("\"\(key)\" does not apply to \(name)") }
            }
            try rejectForeignKeys(object, action: name, own: Set(KeepAliveScenario.actionFields))
            return PhoneScenario.TimelineStep(at: at, .keepAlive(keepAlive))
        }
        if let document = try documentAction(name, object) {
            try rejectForeignKeys(object, action: name, own: documentStepKeys)
            return PhoneScenario.TimelineStep(at: at, .document(document))
        }
        guard var action = PhoneScenarioNames.actions.first(where: { $0.0 == name })?.1 else {
            let hint =
                PhoneScenarioNames.deviceActions.contains { $0.0 == name } ? " (a device action needs \"device\")" : ""
            throw actionCursor.fail(
                "unknown action \"\(name)\"\(hint); expected one of: "
                    + (PhoneScenarioNames.actions.map(\.0) + KeepAliveScenario.actionNames + ScenarioTasks.actionNames
                        + documentActionNames)
                    .joined(separator: ", "))
        }
        if let passcode = object.member("passcode") {
            guard case .reboot = action else { throw passcode.fail("\"passcode\" applies only to reboot") }
            action = .reboot(passcode: try passcode.bool())
        }
        if let period = object.member("period_s") {
            throw period.fail("\"period_s\" applies only to a device's start_notifying")
        }
        try rejectForeignKeys(object, action: name, own: ["passcode"])
        return PhoneScenario.TimelineStep(at: at, action)
    }

    /// The keys a document step may carry (`documentAction` checks which suits which action).
    static let documentStepKeys: Set<String> = ["file", "size", "text", "hex", "type", "answer"]

    /// Each kind of step reads only its own keys; a key of another kind is refused rather than
    /// ignored. Run after each kind's own checks, which name the action a key belongs to.
    private static func rejectForeignKeys(_ object: JSONCursor, action name: String, own: Set<String>)
        throws(Failure)
    {
        guard case .object(let members) = object.value else { return }
        for key in members.keys.sorted() where key != "at_s" && key != "action" && !own.contains(key) {
            if let extra = object.member(key) { throw extra.fail("\"\(key)\" does not apply to \"\(name)\"") }
        }
    }

    // MARK: Expectations

    static func expectation(_ cursor: JSONCursor, duration: Duration) throws(Failure) -> PhoneScenario.Expectation {
        let (key, value) = try single(
            cursor, among: PhoneScenarioNames.expectations + KeepAliveScenario.expectationKeys,
            besides: Set(["at_s", "kind", "times"]).union(ScenarioTasks.expectationExtras))
        if ScenarioTasks.expectationKeys.contains(key) {
            for extra in ["at_s", "kind"] {
                if let stray = cursor.member(extra) { throw stray.fail("\"\(extra)\" does not apply to \(key)") }
            }
            return .tasks(try ScenarioTasks.expectation(key, value, in: cursor, duration: duration))
        }
        for extra in ScenarioTasks.expectationExtras.subtracting(["times"]).sorted() {
            if let stray = cursor.member(extra) {
                throw stray.fail("\"\(extra)\" applies only to task_ran and task_completed")
            }
        }
        let times = cursor.member("times")
        if let times, !KeepAliveScenario.expectationKeys.contains(key) {
            throw times.fail("\"times\" applies only to woken, launched_for and task_ran")
        }
        let at = cursor.member("at_s")
        let kindCursor = cursor.member("kind")
        if let at, key != "state" { throw at.fail("\"at_s\" applies only to \"state\"") }
        if let kindCursor, !key.hasPrefix("delivered_") {
            throw kindCursor.fail("\"kind\" applies only to delivered_at_least and delivered_at_most")
        }
        var kind: BluetoothEventKind?
        if let kindCursor {
            let name = try kindCursor.string()
            guard let known = BluetoothEventKind(rawValue: name) else {
                throw kindCursor.fail(
                    "unknown event kind \"\(name)\"; expected one of: "
                        + BluetoothEventKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            kind = known
        }
        switch key {
        case "state":
            let name = try value.string()
            guard let state = PhoneScenarioNames.state(named: name) else {
                throw value.fail(
                    "unknown state \"\(name)\"; expected one of: "
                        + AppState.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return .state(state, at: try optionalSeconds(at, in: 0...duration.inSeconds))
        case "killed":
            let name = try value.string()
            guard let reason = PhoneScenarioNames.terminationReason(named: name) else {
                throw value.fail(
                    "unknown termination reason \"\(name)\"; expected one of: "
                        + TerminationReason.all.map(\.name).joined(separator: ", "))
            }
            return .killed(reason)
        case "never_killed": try requireTrue(value); return .neverKilled
        case "no_dropped_events": try requireTrue(value); return .noEventDropped
        case "launches": return .launches(try value.integer(in: 0...1_000_000))
        case "relaunches": return .relaunches(try value.integer(in: 0...1_000_000))
        case "delivered_at_least": return .deliveredAtLeast(try count(value), kind: kind)
        case "delivered_at_most": return .deliveredAtMost(try count(value), kind: kind)
        case "alerts_at_least": return .alertsAtLeast(try count(value))
        case let key where KeepAliveScenario.expectationKeys.contains(key):
            return try KeepAliveScenario.expectation(key, value, times: times)
        case let audio where AudioScenario.expectationKeys.contains(audio):
            return .audio(try AudioScenario.expectation(audio, value, duration: duration))
        case let key where documentExpectationNames.contains(key): return .document(try documentExpectation(key, value))
        default: return .noted(try value.string())
        }
    }

    // MARK: Plumbing

    static func required(_ key: String, in object: JSONCursor) throws(Failure) -> JSONCursor {
        guard let member = object.member(key) else { throw object.fail("missing key \"\(key)\"") }
        return member
    }

    /// An object with exactly one of `keys` (and perhaps some of `besides`): that key and its value.
    static func single(
        _ cursor: JSONCursor, among keys: [String], besides: Set<String> = []
    ) throws(Failure) -> (String, JSONCursor) {
        let object = try cursor.object(allowing: Set(keys).union(besides))
        let present = keys.filter { object.member($0) != nil }
        guard present.count == 1, let key = present.first, let value = object.member(key) else {
            throw object.fail("expected exactly one of: " + keys.joined(separator: ", "))
        }
        return (key, value)
    }

    static func seconds(_ cursor: JSONCursor, in range: ClosedRange<Double>) throws(Failure) -> Duration {
        let value = try cursor.number()
        guard range.contains(value) else {
            throw cursor.fail("expected seconds from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
        return .seconds(value)
    }

    static func optionalSeconds(_ cursor: JSONCursor?, in range: ClosedRange<Double>) throws(Failure) -> Duration? {
        guard let cursor else { return nil }
        return try seconds(cursor, in: range)
    }

    static func wholeSeconds(_ cursor: JSONCursor, in range: ClosedRange<Int>) throws(Failure) -> Int {
        try cursor.integer(in: range)
    }

    static func count(_ cursor: JSONCursor) throws(Failure) -> Int { try cursor.integer(in: 0...1_000_000_000) }

    static func requireTrue(_ cursor: JSONCursor) throws(Failure) {
        guard try cursor.bool() else { throw cursor.fail("expected true (leave the expectation out otherwise)") }
    }

    static func device(_ cursor: JSONCursor, among devices: [String]) throws(Failure) -> String {
        let name = try cursor.string()
        guard devices.contains(name) else {
            throw cursor.fail(
                "no device named \"\(name)\""
                    + (devices.isEmpty
                        ? " (the scenario has no devices)"
                        : "; the devices are: "
                            + devices.joined(separator: ", ")))
        }
        return name
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var inSeconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) * 1e-18
    }
}
