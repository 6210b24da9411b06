/// The phone's bookkeeping of the audio session (AVAudioSession), other apps' audio and the route, one stored property of `PhoneRuntime`.
struct AudioRuntime {
    /// The rules and the state they keep.
    var rules = AudioSessionRules()
    /// Each app instance's notification handlers (cleared when its process ends).
    var handlers: [AppIdentifier: [@Sendable (AVAudioSession.Notification) async -> Void]] = [:]
    /// Each playing player's `didFinishPlaying`.
    var finishHandlers: [Int: @Sendable (Bool) async -> Void] = [:]
}

/// The audio's timers (`PhoneTimer.audio`).
enum AudioTimer: Hashable {
    /// The player's clip ends.
    case playbackEnd(Int)
}

extension PhoneProfile {
    /// Whether the system deactivates the audio session of an app it suspends ("since iOS 10",
    /// phone-rules.md). Before, the session of a suspended app stayed active (its players
    /// stopped all the same).
    public var deactivatesAudioSessionOnSuspension: Bool { majorVersion >= 10 }
}
