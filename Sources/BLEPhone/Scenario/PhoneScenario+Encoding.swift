import BLE
import BLEWire

extension PhoneScenario {
    /// The scenario as a scenario file (keys sorted, two-space indentation): parsing it gives the
    /// same scenario back.
    public var json: String {
        var out = ""
        ScenarioJSONText.append(ScenarioEncoder.scenario(self), indent: 0, to: &out)
        out += "\n"
        return out
    }
}

/// The scenario as the `JSONValue` the parser reads (docs/phone-scenarios.md).
enum ScenarioEncoder {
    static func scenario(_ scenario: PhoneScenario) -> JSONValue {
        var root: [String: JSONValue] = [
            "profile": profile(scenario.profile),
            "app": app(scenario.app),
            "duration_s": seconds(scenario.duration),
        ]
        if !scenario.devices.isEmpty { root["devices"] = .array(scenario.devices.map(device)) }
        if !scenario.timeline.isEmpty { root["timeline"] = .array(scenario.timeline.map(step)) }
        if !scenario.expectations.isEmpty { root["expect"] = .array(scenario.expectations.map(expectation)) }
        return .object(root)
    }

    static func profile(_ profile: PhoneScenario.Profile) -> JSONValue {
        var object: [String: JSONValue] = ["name": .string(profile.name)]
        if let value = profile.wakeWindow { object["wake_window_s"] = seconds(value) }
        if let value = profile.backgroundTaskBudget { object["background_task_budget_s"] = seconds(value) }
        if let value = profile.expirationLead { object["expiration_lead_s"] = seconds(value) }
        if let value = profile.suspensionDelay { object["suspension_delay_s"] = seconds(value) }
        switch profile.autoLock {
        case .profileDefault: break
        case .never: object["auto_lock_s"] = .null
        case .after(let idle): object["auto_lock_s"] = seconds(idle)
        }
        switch profile.coalescing {
        case nil: break
        case .none?: object["coalescing"] = .string("none")
        case .latestPerKey?: object["coalescing"] = .string("latest_per_characteristic")
        case .bounded(let count)?: object["coalescing"] = .number(Double(count))
        }
        return object.count == 1 ? .string(profile.name) : .object(object)
    }

    static func app(_ app: PhoneScenario.App) -> JSONValue {
        var object: [String: JSONValue] = ["bundle_id": .string(app.bundleIdentifier)]
        if !app.backgroundModes.isEmpty {
            object["background_modes"] = .array(app.backgroundModes.map(\.rawValue).sorted().map(JSONValue.string))
        }
        if !app.restoreIdentifiers.isEmpty {
            object["restore_identifiers"] = .array(app.restoreIdentifiers.sorted().map(JSONValue.string))
        }
        if app.usesAccessorySetupKit { object["uses_accessory_setup_kit"] = .bool(true) }
        if !app.permittedTaskIdentifiers.isEmpty {
            object["permitted_task_identifiers"] = .array(app.permittedTaskIdentifiers.sorted().map(JSONValue.string))
        }
        if !app.reactions.isEmpty { object["reactions"] = .array(app.reactions.map(reaction)) }
        appDocuments(app.documents, into: &object)
        return .object(object)
    }

    static func reaction(_ reaction: PhoneScenario.Reaction) -> JSONValue {
        var object: [String: JSONValue] = ["do": .array(reaction.steps.map(step))]
        if reaction.inCallback { object["in_callback"] = .bool(true) }
        switch reaction.trigger {
        case .bluetooth(let trigger, let device):
            object["on"] = .string(trigger.rawValue)
            if let device { object["device"] = .string(device) }
        case .timer(let every):
            object["on"] = .string("timer")
            object["every_s"] = seconds(every)
        case .keepAlive(let trigger):
            object["on"] = .string(trigger.rawValue)
        case .scheduledTask(let task):
            object["on"] = .string("scheduled_task")
            if let task { object["task"] = .string(task) }
        case .taskExpiration:
            object["on"] = .string("task_expiration")
        case .audio(let trigger):
            object["on"] = .string(trigger.rawValue)
        case let lifecycle:
            let name = PhoneScenarioNames.lifecycleTriggers.first { $0.1 == lifecycle }?.0 ?? "launch"
            object["on"] = .string(name)
        }
        return .object(object)
    }

    static func step(_ step: PhoneScenario.Step) -> JSONValue {
        let (key, value): (String, JSONValue)
        switch step {
        case .beginTask(let name): (key, value) = ("begin_task", .string(name))
        case .endTask(let name): (key, value) = ("end_task", .string(name))
        case .work(let duration): (key, value) = ("work_s", seconds(duration))
        case .scan(let device): (key, value) = ("scan", .string(device))
        case .connect(let device, let alerts) where alerts.isEmpty: (key, value) = ("connect", .string(device))
        case .connect(let device, let alerts):
            let names = alerts.map(\.rawValue).sorted().map(JSONValue.string)
            (key, value) = ("connect", .object(["device": .string(device), "notify_on": .array(names)]))
        case .disconnect(let device): (key, value) = ("disconnect", .string(device))
        case .subscribe(let device): (key, value) = ("subscribe", .string(device))
        case .write(let device, let bytes):
            (key, value) = ("write", .object(["device": .string(device), "hex": .string(Hex.string(bytes))]))
        case .note(let text): (key, value) = ("note", .string(text))
        case .keepAlive(let step): (key, value) = KeepAliveScenario.encode(step)
        case .tasks(let taskStep): return ScenarioTasks.encode(taskStep)
        case .audio(let audio): (key, value) = AudioScenario.encode(audio)
        case .prompt(let alert): (key, value) = ("prompt", prompt(alert))
        }
        return .object([key: value])
    }

    static func device(_ device: PhoneScenario.Device) -> JSONValue {
        .object([
            "name": .string(device.name), "kind": .string(device.kind.rawValue),
            "notify_period_s": device.notifyPeriod.map(seconds) ?? .null, "distance_m": .number(device.distance),
        ])
    }

    static func step(_ step: PhoneScenario.TimelineStep) -> JSONValue {
        var object: [String: JSONValue] = ["at_s": seconds(step.at)]
        switch step.action {
        case .device(let device, let action):
            object["device"] = .string(device)
            object["action"] = .string(PhoneScenarioNames.name(of: action))
            if case .startNotifying(let every?) = action { object["period_s"] = seconds(every) }
        case .keepAlive(let action):
            KeepAliveScenario.encode(action, into: &object)
        case .tasks(let action):
            ScenarioTasks.encode(action, into: &object)
        case .document(let action):
            documentAction(action, into: &object)
        case let action:
            object["action"] = .string(PhoneScenarioNames.name(of: action) ?? "open")
            if case .reboot(let passcode) = action { object["passcode"] = .bool(passcode) }
        }
        return .object(object)
    }

    static func expectation(_ expectation: PhoneScenario.Expectation) -> JSONValue {
        var object: [String: JSONValue] = [:]
        switch expectation {
        case .state(let state, let at):
            object["state"] = .string(state.rawValue)
            if let at { object["at_s"] = seconds(at) }
        case .killed(let reason): object["killed"] = .string(reason.name)
        case .neverKilled: object["never_killed"] = .bool(true)
        case .launches(let count): object["launches"] = .number(Double(count))
        case .relaunches(let count): object["relaunches"] = .number(Double(count))
        case .deliveredAtLeast(let count, let kind):
            object["delivered_at_least"] = .number(Double(count))
            if let kind { object["kind"] = .string(kind.rawValue) }
        case .deliveredAtMost(let count, let kind):
            object["delivered_at_most"] = .number(Double(count))
            if let kind { object["kind"] = .string(kind.rawValue) }
        case .noEventDropped: object["no_dropped_events"] = .bool(true)
        case .alertsAtLeast(let count): object["alerts_at_least"] = .number(Double(count))
        case .noted(let text): object["note"] = .string(text)
        case .keepAlive(let expectation): KeepAliveScenario.encode(expectation, into: &object)
        case .tasks(let taskExpectation): return ScenarioTasks.encode(taskExpectation)
        case .audio(let audio):
            let (key, value) = AudioScenario.encode(audio)
            object[key] = value
        case .document(let expectation): return documentExpectation(expectation)
        }
        return .object(object)
    }

    static func seconds(_ duration: Duration) -> JSONValue { .number(duration.inSeconds) }
}

/// `JSONValue` as text: keys sorted, two spaces per level, arrays of scalars on one line.
enum ScenarioJSONText {
    static func append(_ value: JSONValue, indent: Int, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += ScenarioParser.format(number)
        case .string(let text): PhoneTraceJSON.appendString(text, to: &out)
        case .array(let elements):
            let scalars = elements.allSatisfy {
                switch $0 {
                case .array, .object: false
                default: true
                }
            }
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += scalars ? ", " : "," }
                if !scalars { newline(indent + 1, &out) }
                append(element, indent: indent + 1, to: &out)
            }
            if !scalars, !elements.isEmpty { newline(indent, &out) }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                newline(indent + 1, &out)
                PhoneTraceJSON.appendString(key, to: &out)
                out += ": "
                if let member = members[key] { append(member, indent: indent + 1, to: &out) }
            }
            if !members.isEmpty { newline(indent, &out) }
            out += "}"
        }
    }

    private static func newline(_ indent: Int, _ out: inout String) {
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }
}
