import BLE
import BLESimulation

extension PhoneScenario {
    /// What the scripted app does with BGTaskScheduler (docs/phone-scenarios.md, "Scheduled
    /// background tasks").
    public enum TaskStep: Sendable, Equatable {
        /// `submit(BGAppRefreshTaskRequest)`, not before `earliest` from now.
        case submitRefresh(String, earliest: Duration?)
        /// `submit(BGProcessingTaskRequest)`.
        case submitProcessing(String, earliest: Duration?, requiresExternalPower: Bool, requiresNetwork: Bool)
        /// `setTaskCompleted(success:)` on the task the reaction runs for (all running ones).
        case complete(success: Bool)
        /// `cancel(taskRequestWithIdentifier:)`.
        case cancel(String)
    }

    /// What the scenario does to the phone for scheduled tasks.
    public enum TaskAction: Sendable, Equatable {
        /// Changes some of the phone's conditions (nil: unchanged).
        case setConditions(ConditionChange)
        /// `Phone.simulateLaunchForTask(withIdentifier:of:)`.
        case simulateLaunch(String)
        /// `Phone.simulateExpirationForTask(withIdentifier:of:)`.
        case simulateExpiration(String)
    }

    public struct ConditionChange: Sendable, Equatable {
        public var charging: Bool?
        public var batteryLevel: Int?
        public var lowPowerMode: Bool?
        public var network: PhoneConditions.Network?
        public var backgroundAppRefresh: Bool?

        public init(
            charging: Bool? = nil, batteryLevel: Int? = nil, lowPowerMode: Bool? = nil,
            network: PhoneConditions.Network? = nil, backgroundAppRefresh: Bool? = nil
        ) {
            self.charging = charging
            self.batteryLevel = batteryLevel
            self.lowPowerMode = lowPowerMode
            self.network = network
            self.backgroundAppRefresh = backgroundAppRefresh
        }

        public func apply(to conditions: inout PhoneConditions) {
            if let charging { conditions.charging = charging }
            if let batteryLevel { conditions.batteryLevel = batteryLevel }
            if let lowPowerMode { conditions.lowPowerMode = lowPowerMode }
            if let network { conditions.network = network }
            if let backgroundAppRefresh { conditions.backgroundAppRefresh = backgroundAppRefresh }
        }
    }

    /// What must hold of the app's scheduled tasks when the run ends.
    public enum TaskExpectation: Sendable, Equatable {
        /// The task started (`times` exactly, or at least once), none before `notBefore`.
        case ran(String, times: Int?, notBefore: Duration?)
        /// The task completed at least once (with this outcome, if given).
        case completed(String, success: Bool?)
    }
}

extension PhoneScenario.TaskAction {
    /// Performs the action on `phone` for `app`.
    public func perform(on phone: Phone, app: AppIdentifier) async {
        switch self {
        case .setConditions(let change): await phone.updateConditions { change.apply(to: &$0) }
        case .simulateLaunch(let id): await phone.simulateLaunchForTask(withIdentifier: id, of: app)
        case .simulateExpiration(let id): await phone.simulateExpirationForTask(withIdentifier: id, of: app)
        }
    }
}

extension PhoneScenario.TaskExpectation: CustomStringConvertible {
    public var description: String {
        switch self {
        case .ran(let id, let times, let notBefore):
            "task '\(id)' ran " + (times.map { "\($0) time\($0 == 1 ? "" : "s")" } ?? "at least once")
                + (notBefore.map { ", never before \(ScenarioParser.format($0.inSeconds)) s" } ?? "")
        case .completed(let id, let success):
            "task '\(id)' completed" + (success.map { $0 ? " successfully" : " unsuccessfully" } ?? "")
        }
    }

    func evaluate(_ entries: [PhoneTraceEntry], origin: VirtualInstant) -> (Bool, String) {
        switch self {
        case .ran(let id, let times, let notBefore):
            let starts = entries.compactMap { entry -> VirtualInstant? in
                if case .scheduledTask(.started(id, _, _, _)) = entry.event { entry.time } else { nil }
            }
            let early = notBefore.map { limit in starts.filter { $0 < origin.advanced(by: limit) } } ?? []
            let countOK = times.map { starts.count == $0 } ?? !starts.isEmpty
            let first = starts.first.map { ", first at \(PhoneTraceText.time($0))" } ?? ""
            return (countOK && early.isEmpty, "ran \(starts.count) time\(starts.count == 1 ? "" : "s")\(first)")
        case .completed(let id, let success):
            let outcomes = entries.compactMap { entry -> Bool? in
                if case .scheduledTask(.completed(id, _, let ok, _)) = entry.event { ok } else { nil }
            }
            let passed = success.map { outcomes.contains($0) } ?? !outcomes.isEmpty
            let seen = outcomes.map { $0 ? "success" : "failure" }.joined(separator: ", ")
            return (passed, outcomes.isEmpty ? "never completed" : "completed: \(seen)")
        }
    }
}

/// The scenario file's task pieces: parsed and written here, called from the shared parser and
/// encoder (docs/phone-scenarios.md, "Scheduled background tasks").
enum ScenarioTasks {
    typealias Failure = GATTDocumentError

    static let stepKeys = ["submit_refresh", "submit_processing", "complete_task", "cancel_task"]
    static let actionNames = ["set_conditions", "simulate_task_launch", "simulate_task_expiration"]
    static let expectationKeys = ["task_ran", "task_completed"]
    static let expectationExtras: Set<String> = ["times", "not_before_s", "success"]
    /// The triggers: a task's launch handler (`task` names one, else any) and its expiration.
    static let triggerNames = ["scheduled_task", "task_expiration"]

    static func identifier(_ cursor: JSONCursor) throws(Failure) -> String {
        let id = try cursor.string()
        guard !id.isEmpty, id.utf8.count <= 255 else {
            throw cursor.fail("expected a task identifier of 1 to 255 octets")
        }
        return id
    }

    static func step(_ key: String, _ value: JSONCursor) throws(Failure) -> PhoneScenario.TaskStep {
        switch key {
        case "submit_refresh", "submit_processing":
            let refresh = key == "submit_refresh"
            if case .string = value.value {
                let id = try identifier(value)
                return refresh
                    ? .submitRefresh(id, earliest: nil)
                    : .submitProcessing(id, earliest: nil, requiresExternalPower: false, requiresNetwork: false)
            }
            let allowed: Set<String> =
                refresh
                ? ["task", "earliest_s"] : ["task", "earliest_s", "requires_external_power", "requires_network"]
            let object = try value.object(allowing: allowed)
            let id = try identifier(try ScenarioParser.required("task", in: object))
            let earliest = try ScenarioParser.optionalSeconds(object.member("earliest_s"), in: 0...604_800)
            if refresh { return .submitRefresh(id, earliest: earliest) }
            return .submitProcessing(
                id, earliest: earliest,
                requiresExternalPower: try object.member("requires_external_power")?.bool() ?? false,
                requiresNetwork: try object.member("requires_network")?.bool() ?? false)
        case "complete_task": return .complete(success: try value.bool())
        default: return .cancel(try identifier(value))
        }
    }

    static func encode(_ step: PhoneScenario.TaskStep) -> JSONValue {
        switch step {
        case .submitRefresh(let id, nil): return .object(["submit_refresh": .string(id)])
        case .submitRefresh(let id, let earliest?):
            return .object([
                "submit_refresh": .object(["task": .string(id), "earliest_s": ScenarioEncoder.seconds(earliest)])
            ])
        case .submitProcessing(let id, let earliest, let power, let network):
            var object: [String: JSONValue] = ["task": .string(id)]
            if let earliest { object["earliest_s"] = ScenarioEncoder.seconds(earliest) }
            if power { object["requires_external_power"] = .bool(true) }
            if network { object["requires_network"] = .bool(true) }
            return .object(["submit_processing": .object(object)])
        case .complete(let success): return .object(["complete_task": .bool(success)])
        case .cancel(let id): return .object(["cancel_task": .string(id)])
        }
    }

    /// A timeline action of ours (nil: not one; the shared parser goes on), from its step object.
    static func action(_ name: String, _ object: JSONCursor) throws(Failure) -> PhoneScenario.TaskAction? {
        switch name {
        case "set_conditions":
            if let task = object.member("task") {
                throw task.fail("\"task\" applies only to simulate_task_launch and simulate_task_expiration")
            }
            let conditions = try ScenarioParser.required("conditions", in: object).object(allowing: [
                "charging", "battery_percent", "low_power_mode", "network", "background_app_refresh",
            ])
            var change = PhoneScenario.ConditionChange()
            change.charging = try conditions.member("charging")?.bool()
            change.batteryLevel = try conditions.member("battery_percent")?.integer(in: 0...100)
            change.lowPowerMode = try conditions.member("low_power_mode")?.bool()
            if let network = conditions.member("network") {
                let text = try network.string()
                guard let known = PhoneConditions.Network(rawValue: text) else {
                    throw network.fail("unknown network \"\(text)\"; expected one of: none, cellular, wifi")
                }
                change.network = known
            }
            change.backgroundAppRefresh = try conditions.member("background_app_refresh")?.bool()
            return .setConditions(change)
        case "simulate_task_launch", "simulate_task_expiration":
            if let conditions = object.member("conditions") {
                throw conditions.fail("\"conditions\" applies only to set_conditions")
            }
            let id = try identifier(try ScenarioParser.required("task", in: object))
            return name == "simulate_task_launch" ? .simulateLaunch(id) : .simulateExpiration(id)
        default:
            for key in ["task", "conditions"] {
                if let stray = object.member(key) {
                    throw stray.fail("\"\(key)\" applies only to set_conditions and the simulate_task_ actions")
                }
            }
            return nil
        }
    }

    static func encode(_ action: PhoneScenario.TaskAction, into object: inout [String: JSONValue]) {
        switch action {
        case .setConditions(let change):
            object["action"] = .string("set_conditions")
            var conditions: [String: JSONValue] = [:]
            if let value = change.charging { conditions["charging"] = .bool(value) }
            if let value = change.batteryLevel { conditions["battery_percent"] = .number(Double(value)) }
            if let value = change.lowPowerMode { conditions["low_power_mode"] = .bool(value) }
            if let value = change.network { conditions["network"] = .string(value.rawValue) }
            if let value = change.backgroundAppRefresh { conditions["background_app_refresh"] = .bool(value) }
            object["conditions"] = .object(conditions)
        case .simulateLaunch(let id):
            object["action"] = .string("simulate_task_launch")
            object["task"] = .string(id)
        case .simulateExpiration(let id):
            object["action"] = .string("simulate_task_expiration")
            object["task"] = .string(id)
        }
    }

    static func expectation(_ key: String, _ value: JSONCursor, in cursor: JSONCursor, duration: Duration)
        throws(Failure) -> PhoneScenario.TaskExpectation
    {
        let id = try identifier(value)
        if key == "task_ran" {
            if let success = cursor.member("success") {
                throw success.fail("\"success\" applies only to task_completed")
            }
            let times = try cursor.member("times")?.integer(in: 0...1_000_000)
            let notBefore = try ScenarioParser.optionalSeconds(
                cursor.member("not_before_s"), in: 0...duration.inSeconds)
            return .ran(id, times: times, notBefore: notBefore)
        }
        for extra in ["times", "not_before_s"] {
            if let stray = cursor.member(extra) { throw stray.fail("\"\(extra)\" applies only to task_ran") }
        }
        return .completed(id, success: try cursor.member("success")?.bool())
    }

    static func encode(_ expectation: PhoneScenario.TaskExpectation) -> JSONValue {
        switch expectation {
        case .ran(let id, let times, let notBefore):
            var object: [String: JSONValue] = ["task_ran": .string(id)]
            if let times { object["times"] = .number(Double(times)) }
            if let notBefore { object["not_before_s"] = ScenarioEncoder.seconds(notBefore) }
            return .object(object)
        case .completed(let id, let success):
            var object: [String: JSONValue] = ["task_completed": .string(id)]
            if let success { object["success"] = .bool(success) }
            return .object(object)
        }
    }
}
