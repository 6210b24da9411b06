extension ScriptedApp {
    /// Answers the script's audio triggers: the session's notifications, on the app's executor.
    func followAudio() async {
        let triggers = Set(
            script.reactions.compactMap { reaction -> PhoneScenario.AudioTrigger? in
                if case .audio(let trigger) = reaction.trigger { return trigger }
                return nil
            })
        guard !triggers.isEmpty else { return }
        await context.audioSession.addNotificationHandler { [self] notification in
            await reactToAudio(notification)
        }
    }

    private func reactToAudio(_ notification: AVAudioSession.Notification) async {
        let trigger: PhoneScenario.AudioTrigger
        switch notification {
        case .interruptionBegan: trigger = .interruptionBegan
        case .interruptionEnded: trigger = .interruptionEnded
        case .routeChange: trigger = .routeChanged
        }
        for reaction in script.reactions where reaction.trigger == .audio(trigger) {
            await perform(reaction.steps)
        }
    }

    /// An audio step: a failed call is noted in the trace, as a script cannot throw.
    func perform(_ step: PhoneScenario.AudioStep) async {
        let session = context.audioSession
        do throws(AVAudioSessionError) {
            switch step {
            case .setCategory(let category, let options):
                try await session.setCategory(category, options: options)
            case .activate:
                try await session.setActive(true)
            case .deactivate(let notifyOthers):
                try await session.setActive(false, options: notifyOthers ? .notifyOthersOnDeactivation : [])
            case .play(let clip, let loops, let volume):
                let player = AVAudioPlayer(clip: clip, context: context, numberOfLoops: loops, volume: volume)
                if await player.play() {
                    players.append(player)
                } else {
                    await note("play_audio '\(clip.name)': could not play")
                }
            case .stop:
                for player in players { await player.stop() }
                players.removeAll()
            }
        } catch {
            await note("\(AudioScenario.encode(step).0) failed: \(error.code.name)")
        }
    }
}
