extension Phone {
    /// An app changed state: the audio session (AVAudioSession), other apps' audio and the route react here.
    func audioSawStateChange(of app: AppIdentifier, from old: AppState, to new: AppState) {}

    /// An app's process ended: what it held of the audio session (AVAudioSession), other apps' audio and the route ends with it.
    func audioSawTermination(of app: AppIdentifier, reason: TerminationReason) {}
}
