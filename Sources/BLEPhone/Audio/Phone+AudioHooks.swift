extension Phone {
    /// An app changed state: the audio session (AVAudioSession), other apps' audio and the route react here.
    func audioSawStateChange(of app: AppIdentifier, from old: AppState, to new: AppState) {
        let rule = profile.deactivatesAudioSessionOnSuspension
        performAudio(runtime.audio.rules.appStateChanged(app, to: new, deactivatesOnSuspension: rule))
    }

    /// An app's process ended: what it held of the audio session (AVAudioSession), other apps' audio and the route ends with it.
    func audioSawTermination(of app: AppIdentifier, reason: TerminationReason) {
        performAudio(runtime.audio.rules.appTerminated(app))
        runtime.audio.handlers[app] = nil
    }
}
