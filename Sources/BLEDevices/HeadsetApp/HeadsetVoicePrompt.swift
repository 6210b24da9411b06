import BLECompanion
import BLEPhone

/// A spoken prompt the headset app plays over the user's music, ducking it: on the headset
/// event `trigger`, the app sets its session to playback with `duckOthers`, activates it, plays
/// a prompt of `duration` and deactivates with `notifyOthersOnDeactivation`, which gives the
/// music its volume back (AVAudioSession `duckOthers`; phone-rules.md).
public struct HeadsetVoicePrompt: Sendable, Hashable {
    public enum Trigger: Sendable, Hashable {
        /// A battery report (`05`) below this percent: "battery low".
        case batteryBelow(percent: Int)
        /// A gesture (`04`) of this kind, or any (nil).
        case gesture(HeadsetProtocol.Gesture?)
    }

    public var trigger: Trigger
    public var duration: Duration

    public init(on trigger: Trigger, duration: Duration = .seconds(2)) {
        self.trigger = trigger
        self.duration = duration
    }

    /// The prompt's name for `message`, if it triggers one.
    func prompt(for message: HeadsetDeviceMessage) -> String? {
        switch (trigger, message) {
        case (.batteryBelow(let percent), .battery(let level)) where Int(level) < percent:
            "battery low"
        case (.gesture(let wanted), .gesture(let gesture)) where wanted == nil || wanted == gesture:
            "gesture \(gesture)"
        default:
            nil
        }
    }
}

extension HeadsetPhoneApp {
    /// Plays the prompt `configuration.voicePrompt` asks for on `message`, unless one plays.
    func speakPrompt(for message: HeadsetDeviceMessage) async {
        guard let prompt = configuration.voicePrompt, let name = prompt.prompt(for: message), promptPlayer == nil else {
            return
        }
        let session = context.audioSession
        do {
            try await session.setCategory(.playback, options: .duckOthers)
            try await session.setActive(true)
        } catch {
            return await note("voice prompt '\(name)' not played: \(error)")
        }
        let player = AVAudioPlayer(
            clip: AudioClip(name: name, duration: prompt.duration), context: context,
            didFinishPlaying: { [self] _ in await promptFinished() })
        promptPlayer = player
        guard await player.play() else {
            promptPlayer = nil
            return await note("voice prompt '\(name)' not played")
        }
        observer.update { $0.voicePrompts += 1 }
        await note("voice prompt '\(name)'")
    }

    /// The prompt ended: give the music its volume back.
    func promptFinished() async {
        promptPlayer = nil
        do {
            try await context.audioSession.setActive(false, options: .notifyOthersOnDeactivation)
        } catch {
            await note("deactivating the audio session failed: \(error)")
        }
    }
}
