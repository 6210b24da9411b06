/// What the phone records about the audio session (AVAudioSession), other apps' audio and the route.
public enum AudioSessionEvent: Sendable, Hashable {
}

extension AudioSessionEvent {
    /// The event's type name, fields, words and timeline role.
    var record: PhoneTraceRecord {
        switch self {}
    }
}
