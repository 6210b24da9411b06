import BLESimulation

/// Something the phone did or saw, at a virtual instant, for one app or for the phone itself.
public struct PhoneTraceEntry: Sendable, Hashable {
    /// Virtual time since the simulation started.
    public var time: VirtualInstant
    /// The app concerned; nil for what concerns the whole phone (a lock, a reboot).
    public var app: AppIdentifier?
    public var event: PhoneTraceEvent

    public init(time: VirtualInstant, app: AppIdentifier?, event: PhoneTraceEvent) {
        self.time = time
        self.app = app
        self.event = event
    }
}

/// What the user does to the phone.
public enum UserAction: Sendable, Hashable {
    /// Taps the app's icon (launches it, or brings it to the front).
    case open(AppIdentifier)
    /// Goes to the home screen.
    case home
    case lock
    case unlock
    /// Swipes the app away in the app switcher.
    case forceQuit(AppIdentifier)
    /// Turns Bluetooth off or on in Settings.
    case bluetoothInSettings(on: Bool)
    /// Turns Bluetooth off or on in Control Center (off there only disconnects accessories).
    case bluetoothInControlCenter(on: Bool)
    case airplaneMode(on: Bool)
    /// Restarts the phone.
    case reboot
    /// The first unlock after a restart of a phone with a passcode.
    case firstUnlock
}

/// What the system does on its own.
public enum SystemAction: Sendable, Hashable {
    /// The idle timer locked the phone.
    case autoLock
    /// Memory pressure purged the app.
    case memoryPressure(AppIdentifier)
    /// The app crashed.
    case crash(AppIdentifier)
    /// The handset's conditions changed (`Phone.setConditions`): charging, battery, Low Power
    /// Mode, network, the Background App Refresh switch.
    case conditions(PhoneConditions)
}

/// The kinds of Bluetooth event an app's managers deliver (Core Bluetooth's delegate callbacks),
/// for the trace, coalescing and the timeline.
public enum BluetoothEventKind: String, Sendable, Hashable, Codable, CaseIterable {
    case stateUpdate, willRestoreState, discovery, connection, connectionFailure, disconnection
    case valueUpdate, notificationStateUpdate, writeResponse, readResponse, servicesDiscovered
    case readRequest, writeRequest, subscription, unsubscription, readyToUpdate, advertisingStarted
    case l2capChannel
}

/// Why an app was woken into the background.
public enum WakeReason: Sendable, Hashable {
    /// A Bluetooth event of a manager with a `bluetooth-*` mode.
    case bluetooth(BluetoothEventKind)
    /// A BGTaskScheduler task (its identifier) starts running.
    case scheduledTask(String)
    /// A location event (the `location` mode: an update, a significant change, a region).
    case location
    /// A background URLSession's transfers finished (the session's identifier).
    case urlSession(String)
    /// A PushKit VoIP push.
    case voipPush
    /// A silent (content-available) push.
    case silentPush
}

/// Why an app was launched.
public enum LaunchReason: Sendable, Hashable {
    case user
    /// Relaunched in the background by state restoration for a Bluetooth event.
    case bluetoothRestoration(LaunchOptions)
    /// The daemon restarted the process (Linux, `AppDaemon`), restoring the managers named in the
    /// options from the record the last process saved.
    case processRestart(LaunchOptions)
    /// Launched in the background to run a BGTaskScheduler task (its identifier).
    case scheduledTask(String)
    /// Relaunched in the background for a location event (significant change, region).
    case location
    /// Relaunched in the background because a background URLSession finished (its identifier).
    case urlSession(String)
    /// Launched in the background for a VoIP push.
    case voipPush
    /// Launched in the background for a silent push.
    case silentPush
    /// Launched in front to open a document shared to it ("Open in…").
    case openDocument(String)
}

/// What happened, in the phone's words.
public enum PhoneTraceEvent: Sendable, Hashable {
    case user(UserAction)
    case system(SystemAction)
    case launched(LaunchReason)
    case stateChanged(from: AppState, to: AppState)
    case sceneStateChanged(from: SceneState, to: SceneState)
    case callbackStarted(AppCallback)
    case callbackFinished(AppCallback)
    /// A Bluetooth event waits for the app to run (a foreground-only app in the background).
    case eventQueued(BluetoothEventKind, summary: String)
    /// A queued event merged into a later one by the coalescing policy.
    case eventCoalesced(BluetoothEventKind, summary: String)
    case eventDelivered(BluetoothEventKind, summary: String)
    /// An event with no app to take it (not running and not relaunched).
    case eventDropped(BluetoothEventKind, summary: String, why: String)
    case woken(WakeReason, until: VirtualInstant)
    /// A system alert for a suspended app's Bluetooth event (NotifyOnConnection and friends).
    case alert(String)
    case backgroundTaskBegan(identifier: Int, name: String?)
    case backgroundTaskEnded(identifier: Int, name: String?)
    /// `beginBackgroundTask` returned `.invalid` (no time left, or the app is in front of
    /// nothing that can grant it).
    case backgroundTaskRefused(name: String?)
    case backgroundTaskExpiring(identifier: Int, name: String?)
    case killed(TerminationReason)
    /// A relaunch the rules did not allow, with the rule.
    case relaunchDenied(why: String)
    /// A manager's state was handed back to a relaunched app.
    case restored(restoreIdentifier: String, summary: String)
    /// What the app's script or code wrote to the trace.
    case note(String)
    /// BGTaskScheduler: registrations, requests, runs, expirations (Tasks/).
    case scheduledTask(ScheduledTaskEvent)
    /// The audio session, the other apps' audio and the route (Audio/).
    case audio(AudioSessionEvent)
    /// Keep-alive modes and their wake sources: location, URLSession, pushes (KeepAlive/).
    case keepAlive(KeepAliveEvent)
    /// Documents shared to apps and opened by them (Documents/).
    case document(DocumentEvent)
}
