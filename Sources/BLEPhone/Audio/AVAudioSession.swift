import BLELocking

/// The app's audio session, as AVAudioSession gives it (`AVAudioSession.sharedInstance()`):
/// get it from `AppContext.audioSession`. Its state lives in the phone (`AudioSessionRules`),
/// so every handle of one app instance is the same session.
public final class AVAudioSession: Sendable {
    private let context: AppContext

    init(context: AppContext) {
        self.context = context
    }

    /// `setCategory(_:options:)`: `mixWithOthers` and `duckOthers` only with playback,
    /// playAndRecord and multiRoute (`badParam` otherwise).
    public func setCategory(_ category: Category, options: CategoryOptions = []) async throws(AVAudioSessionError) {
        if let error = await context.phone.audioSetCategory(
            category, options: options, app: context.app, launch: context.launchNumber)
        {
            throw error
        }
    }

    /// `setActive(_:options:)`. Activating a non-mixing session interrupts the music; it fails
    /// during a call (`insufficientPriority`) and in the background unless the app plays
    /// (`cannotInterruptOthers`). Deactivating with `notifyOthersOnDeactivation` lets the music
    /// resume; running players are stopped (`isBusy`, the session deactivated anyway).
    public func setActive(_ active: Bool, options: SetActiveOptions = []) async throws(AVAudioSessionError) {
        if let error = await context.phone.audioSetActive(
            active, notifyOthers: options.contains(.notifyOthersOnDeactivation), app: context.app,
            launch: context.launchNumber)
        {
            throw error
        }
    }

    public var category: Category {
        get async { await context.phone.audioSession(of: context.app)?.category ?? .soloAmbient }
    }

    public var categoryOptions: CategoryOptions {
        get async { await context.phone.audioSession(of: context.app)?.options ?? [] }
    }

    /// Whether the session is active (AVAudioSession has no getter; apps track it: this one
    /// is for tests and scripts).
    public var isActive: Bool {
        get async { await context.phone.isAudioSessionActive(of: context.app) }
    }

    /// `isOtherAudioPlaying`: the user's music plays (ducked or not).
    public var isOtherAudioPlaying: Bool {
        get async { await context.phone.musicState == .playing }
    }

    /// `currentRoute`.
    public var currentRoute: AVAudioSessionRouteDescription {
        get async { await context.phone.audioRoute.routeDescription }
    }

    /// Observes `interruptionNotification` and `routeChangeNotification`: the handler runs on
    /// the app's executor, so a suspended app gets what was posted when it runs again.
    public func addNotificationHandler(_ handler: @escaping @Sendable (Notification) async -> Void) async {
        await context.phone.addAudioNotificationHandler(handler, app: context.app, launch: context.launchNumber)
    }
}

extension AppContext {
    /// The app's audio session (`AVAudioSession.sharedInstance()`).
    public var audioSession: AVAudioSession { AVAudioSession(context: self) }
}

/// A sound an app plays: a name for the trace, its length, and whether it is silence (the
/// "silent audio" trick App Review rejects).
public struct AudioClip: Sendable, Hashable {
    public var name: String
    public var duration: Duration
    public var isSilent: Bool

    public init(name: String, duration: Duration, isSilent: Bool = false) {
        self.name = name
        self.duration = duration
        self.isSilent = isSilent
    }
}

/// A minimal AVAudioPlayer: plays a clip `numberOfLoops + 1` times (forever when negative),
/// activating the session if it is not (AVAudioPlayer `play()`); `didFinishPlaying` runs on
/// the app's executor when it plays to its end (`audioPlayerDidFinishPlaying(_:successfully:)`),
/// not when it is stopped or interrupted.
public final class AVAudioPlayer: Sendable {
    public let clip: AudioClip
    public let numberOfLoops: Int
    private let context: AppContext
    private let didFinishPlaying: (@Sendable (Bool) async -> Void)?
    /// The phone's number of the current playback, and the volume.
    private let state: Locked<(player: Int?, volume: Float)>

    public init(
        clip: AudioClip, context: AppContext, numberOfLoops: Int = 0, volume: Float = 1,
        didFinishPlaying: (@Sendable (Bool) async -> Void)? = nil
    ) {
        self.clip = clip
        self.context = context
        self.numberOfLoops = numberOfLoops
        self.didFinishPlaying = didFinishPlaying
        state = Locked((player: nil, volume: max(0, min(1, volume))))
    }

    /// Starts playing; false when the session cannot be activated.
    @discardableResult
    public func play() async -> Bool {
        if let player = state.withLock({ $0.player }), await context.phone.audioIsPlaying(player: player) {
            return true
        }
        let volume = state.withLock { $0.volume }
        let player = await context.phone.audioPlay(
            clip, loops: numberOfLoops, volume: volume, didFinish: didFinishPlaying, app: context.app,
            launch: context.launchNumber)
        state.withLock { $0.player = player }
        return player != nil
    }

    public func stop() async {
        guard let player = state.withLock({ $0.player }) else { return }
        state.withLock { $0.player = nil }
        await context.phone.audioStop(player: player)
    }

    public var isPlaying: Bool {
        get async {
            guard let player = state.withLock({ $0.player }) else { return false }
            return await context.phone.audioIsPlaying(player: player)
        }
    }

    /// `volume` (0 to 1): at 0 the player plays silence.
    public func setVolume(_ volume: Float) async {
        let clamped = max(0, min(1, volume))
        let player = state.withLock {
            $0.volume = clamped
            return $0.player
        }
        if let player { await context.phone.audioSetVolume(clamped, player: player) }
    }
}
