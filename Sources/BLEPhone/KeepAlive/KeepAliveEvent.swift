/// What the phone records about keep-alive modes and their wake sources (location, URLSession, VoIP and silent pushes).
public enum KeepAliveEvent: Sendable, Hashable {
}

extension KeepAliveEvent {
    /// The event's type name, fields, words and timeline role.
    var record: PhoneTraceRecord {
        switch self {}
    }
}
