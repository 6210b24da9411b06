/// The names a scenario file uses, one table per kind of thing, read by the parser and the
/// encoder alike (so a name cannot be read one way and written another).
enum PhoneScenarioNames {
    static let actions = baseActions + AudioScenario.actions.map { ($0.0, PhoneScenario.Action.audio($0.1)) }
    static let baseActions: [(String, PhoneScenario.Action)] = [
        ("open", .open), ("home", .home), ("lock", .lock), ("unlock", .unlock), ("force_quit", .forceQuit),
        ("memory_pressure", .memoryPressure), ("crash", .crash), ("reboot", .reboot(passcode: false)),
        ("first_unlock", .firstUnlock), ("bluetooth_settings_off", .bluetoothInSettings(on: false)),
        ("bluetooth_settings_on", .bluetoothInSettings(on: true)),
        ("bluetooth_control_center_off", .bluetoothInControlCenter(on: false)),
        ("bluetooth_control_center_on", .bluetoothInControlCenter(on: true)),
        ("airplane_on", .airplaneMode(on: true)), ("airplane_off", .airplaneMode(on: false)),
    ]

    static func name(of action: PhoneScenario.Action) -> String? {
        let plain: PhoneScenario.Action
        if case .reboot = action { plain = .reboot(passcode: false) } else { plain = action }
        return actions.first { $0.1 == plain }?.0
    }

    static let deviceActions: [(String, PhoneScenario.DeviceAction)] = [
        ("start_notifying", .startNotifying(every: nil)), ("stop_notifying", .stopNotifying),
        ("walk_away", .walkAway), ("come_back", .comeBack),
    ]

    static func name(of action: PhoneScenario.DeviceAction) -> String {
        switch action {
        case .startNotifying: "start_notifying"
        case .stopNotifying: "stop_notifying"
        case .walkAway: "walk_away"
        case .comeBack: "come_back"
        }
    }

    /// Triggers without parameters; Bluetooth ones are `BluetoothTrigger`'s raw values; `timer`.
    static let lifecycleTriggers: [(String, PhoneScenario.Trigger)] = [
        ("launch", .launch), ("enter_background", .enterBackground), ("enter_foreground", .enterForeground),
        ("become_active", .becomeActive), ("open_document", .openDocument),
    ]

    static var triggerNames: [String] {
        lifecycleTriggers.map(\.0) + PhoneScenario.BluetoothTrigger.allCases.map(\.rawValue) + ["timer"]
            + PhoneScenario.KeepAliveTrigger.allCases.map(\.rawValue)
            + ScenarioTasks.triggerNames
            + PhoneScenario.AudioTrigger.allCases.map(\.rawValue)
    }

    /// Each step is an object with one of these keys.
    static let steps = baseSteps + AudioScenario.stepKeys
    static let baseSteps = [
        "begin_task", "end_task", "work_s", "scan", "connect", "disconnect", "subscribe", "write", "note", "prompt",
    ] + ScenarioTasks.stepKeys

    /// Each expectation is an object with one of these keys (and `at_s` or `kind` beside some).
    static let expectations = baseExpectations + AudioScenario.expectationKeys
    static let baseExpectations = [
        "state", "killed", "never_killed", "launches", "relaunches", "delivered_at_least", "delivered_at_most",
        "no_dropped_events", "alerts_at_least", "note",
    ] + ScenarioParser.documentExpectationNames + ScenarioTasks.expectationKeys

    static func terminationReason(named name: String) -> TerminationReason? {
        TerminationReason.all.first { $0.name == name }
    }

    static func state(named name: String) -> AppState? {
        AppState.allCases.first { $0.rawValue == name }
    }
}
