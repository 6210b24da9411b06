/// What the phone records about BGTaskScheduler: registrations, requests, runs, expirations.
public enum ScheduledTaskEvent: Sendable, Hashable {
}

extension ScheduledTaskEvent {
    /// The event's type name, fields, words and timeline role.
    var record: PhoneTraceRecord {
        switch self {}
    }
}
