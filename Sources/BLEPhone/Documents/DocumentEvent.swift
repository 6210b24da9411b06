/// What the phone records about documents shared to apps ("Open in…") and the Files view.
public enum DocumentEvent: Sendable, Hashable {
}

extension DocumentEvent {
    /// The event's type name, fields, words and timeline role.
    var record: PhoneTraceRecord {
        switch self {}
    }
}
