/// A scripted run of the phone, as a scenario file describes it (docs/phone-scenarios.md): the
/// profile, one app with its declaration and scripted reactions, the devices around the phone, a
/// timeline of user, system and device actions, how long to run, and what must hold at the end.
///
/// A value: parsed from JSON (`init(parsing:)`), written back (`json`), run by
/// `PhoneScenarioRunner` (BLEDevices, where the devices live), checked by `expectations`.
public struct PhoneScenario: Sendable, Equatable {
    public var profile: Profile
    public var app: App
    public var devices: [Device]
    /// In time order.
    public var timeline: [TimelineStep]
    public var duration: Duration
    public var expectations: [Expectation]

    public init(
        profile: Profile, app: App, devices: [Device] = [], timeline: [TimelineStep] = [], duration: Duration,
        expectations: [Expectation] = []
    ) {
        self.profile = profile
        self.app = app
        self.devices = devices
        self.timeline = timeline
        self.duration = duration
        self.expectations = expectations
    }

    /// A built-in profile by name, with the observed numbers a scenario may change.
    public struct Profile: Sendable, Equatable {
        public var name: String
        public var wakeWindow: Duration?
        public var backgroundTaskBudget: Duration?
        public var expirationLead: Duration?
        public var suspensionDelay: Duration?
        public var autoLock: AutoLock
        /// How events queued for a suspended foreground-only app are merged (nil: the phone's
        /// default, none).
        public var coalescing: EventCoalescing?

        public enum AutoLock: Sendable, Equatable {
            /// The profile's own.
            case profileDefault
            case never
            case after(Duration)
        }

        public init(
            name: String, wakeWindow: Duration? = nil, backgroundTaskBudget: Duration? = nil,
            expirationLead: Duration? = nil, suspensionDelay: Duration? = nil, autoLock: AutoLock = .profileDefault,
            coalescing: EventCoalescing? = nil
        ) {
            self.name = name
            self.wakeWindow = wakeWindow
            self.backgroundTaskBudget = backgroundTaskBudget
            self.expirationLead = expirationLead
            self.suspensionDelay = suspensionDelay
            self.autoLock = autoLock
            self.coalescing = coalescing
        }

        /// The built-in profile with the overrides applied (nil for an unknown name; the parser
        /// accepts only known ones).
        public var resolved: PhoneProfile? {
            guard var profile = PhoneProfile.named(name) else { return nil }
            if let wakeWindow { profile.wakeWindow = wakeWindow }
            if let backgroundTaskBudget { profile.backgroundTaskBudget = backgroundTaskBudget }
            if let expirationLead { profile.expirationLead = expirationLead }
            if let suspensionDelay { profile.suspensionDelay = suspensionDelay }
            switch autoLock {
            case .profileDefault: break
            case .never: profile.autoLock = nil
            case .after(let idle): profile.autoLock = idle
            }
            return profile
        }
    }

    /// The app: what its Info.plist declares and what its script does.
    public struct App: Sendable, Equatable {
        public var bundleIdentifier: String
        public var backgroundModes: Set<BackgroundMode>
        public var restoreIdentifiers: Set<String>
        public var usesAccessorySetupKit: Bool
        public var reactions: [Reaction]
        /// `BGTaskSchedulerPermittedIdentifiers`: the script registers each in `didFinishLaunching`.
        public var permittedTaskIdentifiers: Set<String> = []
        /// Document types, opening in place, file sharing (PhoneScenario+Documents).
        public var documents = AppDocuments()

        public init(
            bundleIdentifier: String, backgroundModes: Set<BackgroundMode> = [], restoreIdentifiers: Set<String> = [],
            usesAccessorySetupKit: Bool = false, reactions: [Reaction] = []
        ) {
            self.bundleIdentifier = bundleIdentifier
            self.backgroundModes = backgroundModes
            self.restoreIdentifiers = restoreIdentifiers
            self.usesAccessorySetupKit = usesAccessorySetupKit
            self.reactions = reactions
        }

        public var identifier: AppIdentifier { AppIdentifier(bundleIdentifier) }

        public var declaration: AppDeclaration {
            var declaration = AppDeclaration(
                bundleIdentifier: bundleIdentifier, backgroundModes: backgroundModes,
                restoreIdentifiers: restoreIdentifiers, permittedTaskIdentifiers: permittedTaskIdentifiers,
                usesAccessorySetupKit: usesAccessorySetupKit)
            declaration.documentTypes = documents.types
            declaration.supportsOpeningDocumentsInPlace = documents.opensInPlace
            declaration.fileSharingEnabled = documents.fileSharing
            return declaration
        }
    }

    /// On `trigger`, the app does `steps` in order.
    ///
    /// A lifecycle reaction's steps run as a task the callback starts, after it returns (as an
    /// app dispatches its work); `inCallback` runs them inside the callback instead, which the
    /// watchdog times (~5 s for `didEnterBackground`, 0x8badf00d past it).
    public struct Reaction: Sendable, Equatable {
        public var trigger: Trigger
        public var steps: [Step]
        public var inCallback: Bool

        public init(on trigger: Trigger, do steps: [Step], inCallback: Bool = false) {
            self.trigger = trigger
            self.steps = steps
            self.inCallback = inCallback
        }
    }

    /// What a reaction answers.
    public enum Trigger: Sendable, Equatable {
        /// `didFinishLaunching` (any launch: by the user or a relaunch for Bluetooth).
        case launch
        case enterBackground
        case enterForeground
        case becomeActive
        /// A Bluetooth event the app receives, from one device or (nil) any.
        case bluetooth(BluetoothTrigger, device: String?)
        /// Every period of the app's own clock (which stands while the app is suspended).
        case timer(every: Duration)
        /// A keep-alive handler: a URLSession's events, a push, a location event.
        case keepAlive(KeepAliveTrigger)
        /// A scheduled task's launch handler (of one identifier, or nil: any).
        case scheduledTask(String?)
        /// A scheduled task's expiration handler (the script sets one only if it has this reaction).
        case taskExpiration
        /// An audio session notification (PhoneScenario+Audio).
        case audio(AudioTrigger)
        /// A document was handed to the app ("Open in…": any of the open-URL methods, or a scene
        /// launched with the URL).
        case openDocument
    }

    /// The Bluetooth events a reaction can answer.
    public enum BluetoothTrigger: String, Sendable, Equatable, CaseIterable {
        case notification, connected, disconnected, discovered

        /// The trace's kind of this event.
        public var kind: BluetoothEventKind {
            switch self {
            case .notification: .valueUpdate
            case .connected: .connection
            case .disconnected: .disconnection
            case .discovered: .discovery
            }
        }
    }

    /// One thing the scripted app does.
    public enum Step: Sendable, Equatable {
        /// `beginBackgroundTask(withName:)`; the identifier is kept under the name.
        case beginTask(String)
        /// `endBackgroundTask` of the task begun under this name.
        case endTask(String)
        /// Busy for this long on the app's clock (which stands while the app is suspended).
        case work(Duration)
        /// Scans for the device's service.
        case scan(device: String)
        /// Connects to the device (found by a scan, or pending until it is in range), asking for
        /// the system alerts of `alerts` while the app is not in front.
        case connect(device: String, alerts: Set<ConnectAlert> = [])
        case disconnect(device: String)
        /// Subscribes to the device's notifying characteristic.
        case subscribe(device: String)
        /// Writes to the device's writable characteristic.
        case write(device: String, value: [UInt8])
        /// Writes the text to the trace.
        case note(String)
        /// Location, background URLSession and CallKit steps.
        case keepAlive(KeepAliveStep)
        /// BGTaskScheduler: submit, complete, cancel (Tasks/PhoneScenario+Tasks.swift).
        case tasks(TaskStep)
        /// An audio session call or a player (PhoneScenario+Audio).
        case audio(AudioStep)
        /// Shows an alert and waits for the user's answer (noted as "answered TITLE").
        case prompt(AppAlert)
    }

    /// The system alerts a connection may ask for (`CBConnectPeripheralOptionNotifyOnConnectionKey`,
    /// `…NotifyOnDisconnectionKey`, `…NotifyOnNotificationKey`).
    public enum ConnectAlert: String, Sendable, Hashable, CaseIterable {
        case connection, disconnection, notification
    }

    /// A virtual device near the phone.
    public struct Device: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            /// The sample headset (docs/headset-protocol.md), whose heartbeat notifies.
            case headset
        }

        public var name: String
        public var kind: Kind
        /// How often it notifies (the headset's heartbeat); nil: not until told.
        public var notifyPeriod: Duration?
        /// Distance from the phone in metres.
        public var distance: Double

        public init(name: String, kind: Kind = .headset, notifyPeriod: Duration? = .seconds(1), distance: Double = 1) {
            self.name = name
            self.kind = kind
            self.notifyPeriod = notifyPeriod
            self.distance = distance
        }
    }

    /// An action at an instant.
    public struct TimelineStep: Sendable, Equatable {
        public var at: Duration
        public var action: Action

        public init(at: Duration, _ action: Action) {
            self.at = at
            self.action = action
        }
    }

    /// What the user, the system or a device does.
    public enum Action: Sendable, Equatable {
        case open, home, lock, unlock, forceQuit, memoryPressure, crash, firstUnlock
        /// Restarts the phone; with a passcode, relaunches wait for the first unlock.
        case reboot(passcode: Bool)
        case bluetoothInSettings(on: Bool)
        case bluetoothInControlCenter(on: Bool)
        case airplaneMode(on: Bool)
        case device(String, DeviceAction)
        /// Moves, pushes, the network, the end of a call.
        case keepAlive(KeepAliveAction)
        /// The phone's conditions, the debugger's simulate commands (Tasks/PhoneScenario+Tasks.swift).
        case tasks(TaskAction)
        /// The music, the route, a call or an alarm (PhoneScenario+Audio).
        case audio(AudioAction)
        /// Share a file, choose the app, answer an alert (PhoneScenario+Documents).
        case document(DocumentAction)
    }

    public enum DeviceAction: Sendable, Equatable {
        /// Starts notifying every period (nil: the device's configured period).
        case startNotifying(every: Duration?)
        case stopNotifying
        /// Moves out of radio range (the link drops at its supervision timeout).
        case walkAway
        /// Comes back within range.
        case comeBack
    }

    /// What must hold when the run ends.
    public enum Expectation: Sendable, Equatable {
        /// The app's state at an instant (nil: at the end).
        case state(AppState, at: Duration?)
        /// The app was killed at least once for this reason.
        case killed(TerminationReason)
        case neverKilled
        /// Launches of any kind, the first included.
        case launches(Int)
        /// Relaunches in the background by state restoration.
        case relaunches(Int)
        /// Bluetooth events delivered to the app (of one kind, or any).
        case deliveredAtLeast(Int, kind: BluetoothEventKind?)
        case deliveredAtMost(Int, kind: BluetoothEventKind?)
        case noEventDropped
        case alertsAtLeast(Int)
        /// The script wrote this note.
        case noted(String)
        /// Wakes and launches by keep-alive sources.
        case keepAlive(KeepAliveExpectation)
        /// Of the app's scheduled tasks (Tasks/PhoneScenario+Tasks.swift).
        case tasks(TaskExpectation)
        /// The music and the audio hold (PhoneScenario+Audio).
        case audio(AudioExpectation)
        /// Documents opened, copied, alerts shown and answered (PhoneScenario+Documents).
        case document(DocumentExpectation)
    }
}
