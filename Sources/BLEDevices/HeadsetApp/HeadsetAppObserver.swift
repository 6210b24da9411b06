import BLECompanion
import BLELocking
import BLEPhone

/// What the headset app's instances did, across launches — the story's and the tests' view of
/// the app (an instance's own memory is gone at a kill; this is the record a person watching the
/// phone would keep).
public final class HeadsetAppObserver: Sendable {
    public struct Counts: Sendable, Hashable {
        /// Heartbeat ticks the app handled.
        public var heartbeats = 0
        /// Gestures and sensor events the app handled.
        public var deviceEvents = 0
        /// Runs of the device-driven job.
        public var jobRuns = 0
        /// Firings of the app's own timer.
        public var appTimerFirings = 0
        public var launches = 0
        /// Launches that restored a central manager (`willRestoreState`).
        public var restorations = 0
        public var connections = 0
        /// Frames from the headset that did not decode (each also noted in the trace).
        public var undecodableFrames = 0
        /// Background tasks whose expiration handler ran.
        public var expiredTasks = 0
        /// Voice prompts played over the music (`HeadsetVoicePrompt`).
        public var voicePrompts = 0
        /// The number of the last heartbeat handled (the headset counts them from 0).
        public var lastHeartbeat: UInt32?
        /// Heartbeats handled with a number not above the previous one's (out of order or twice).
        public var heartbeatsOutOfOrder = 0
        /// Firmware files shared to the app, and those it could not read or recognise.
        public var firmwareFilesReceived = 0
        public var firmwareFilesRejected = 0
        /// Updates the user confirmed (and that the app then started) or declined.
        public var firmwareUpdatesStarted = 0
        public var firmwareUpdatesDeclined = 0
        /// Updates the app ran to the end: the headset installed the image, or it did not.
        public var firmwareUpdatesCompleted = 0
        public var firmwareUpdatesFailed = 0
        /// The version of the last update started.
        public var lastFirmwareVersion: FirmwareVersion?
        /// Overnight update checks that ran to the end, and those that ran out of time.
        public var updateChecks = 0
        public var updateChecksExpired = 0
    }

    private let state = Locked(Counts())
    private let onLine: (@Sendable (String) -> Void)?

    /// - Parameter onLine: called with a line for each thing worth telling (the demo prints them).
    public init(onLine: (@Sendable (String) -> Void)? = nil) {
        self.onLine = onLine
    }

    public var counts: Counts { state.withLock { $0 } }

    func update(_ change: (inout Counts) -> Void) {
        state.withLock { change(&$0) }
    }

    func say(_ line: String) {
        onLine?(line)
    }
}
