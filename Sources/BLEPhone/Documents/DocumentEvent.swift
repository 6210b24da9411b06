/// What the phone records about documents shared to apps ("Open in…"), the Files view, and the
/// alerts apps show the user (`AppContext.presentAlert`).
public enum DocumentEvent: Sendable, Hashable {
    /// A file was shared: the share sheet listed these apps, best first.
    case shared(file: String, type: String, handlers: [AppIdentifier])
    /// Sharing or opening failed (the `DocumentError`).
    case refused(file: String, why: String)
    /// The user chose this app in the share sheet.
    case chosen(file: String, sheet: Int)
    /// The file was copied into the app's Documents/Inbox (the path inside the app's folder).
    case copiedToInbox(file: String, path: String)
    /// The phone called the app's delegate method for the URL (`url`: the file's path inside
    /// the phone's storage, "com.example.app/Documents/Inbox/a.json", so traces do not depend on
    /// where the storage is).
    case delivered(url: String, signature: OpenURLSignature, openInPlace: Bool, source: String?)
    /// The delegate method returned: whether the app handled the URL (scenes return nothing).
    case handled(url: String, handled: Bool?)
    /// The app showed an alert; it waits for the user.
    case promptShown(id: Int, title: String, message: String, actions: [String])
    /// The user chose a button (nil: the alert went away with its app).
    case promptAnswered(id: Int, action: String?)
}

extension DocumentEvent {
    /// The event's type name, fields, words and timeline role.
    var record: PhoneTraceRecord {
        switch self {
        case .shared(let file, let type, let handlers):
            let names = handlers.map(\.bundleIdentifier)
            return PhoneTraceRecord(
                type: "documentShared",
                fields: [("file", .text(file)), ("uti", .text(type)), ("handlers", .texts(names))],
                words: "shared '\(file)' (\(type)); open in: "
                    + (names.isEmpty ? "no app" : names.joined(separator: ", ")),
                timeline: .mark(.document, label: "share"))
        case .refused(let file, let why):
            return PhoneTraceRecord(
                type: "documentRefused", fields: [("file", .text(file)), ("why", .text(why))],
                words: "document '\(file)' refused: \(why)", timeline: .mark(.document, label: "refused"))
        case .chosen(let file, let sheet):
            return PhoneTraceRecord(
                type: "documentChosen", fields: [("file", .text(file)), ("sheet", .integer(Int64(sheet)))],
                words: "chosen to open '\(file)'", timeline: .mark(.document, label: "open in"))
        case .copiedToInbox(let file, let path):
            return PhoneTraceRecord(
                type: "documentCopied", fields: [("file", .text(file)), ("path", .text(path))],
                words: "'\(file)' copied to \(path)", timeline: .none)
        case .delivered(let url, let signature, let openInPlace, let source):
            var fields: [(name: String, value: PhoneTraceRecord.Value)] = [
                ("url", .text(url)), ("signature", .text(signature.rawValue)), ("open_in_place", .flag(openInPlace)),
            ]
            if let source { fields.append(("source", .text(source))) }
            return PhoneTraceRecord(
                type: "documentDelivered", fields: fields,
                words: "\(signature.rawValue) \(url)\(openInPlace ? " (in place)" : "")",
                timeline: .mark(.document, label: "opened"))
        case .handled(let url, let handled):
            var fields: [(name: String, value: PhoneTraceRecord.Value)] = [("url", .text(url))]
            if let handled { fields.append(("handled", .flag(handled))) }
            let verdict = handled.map { $0 ? "handled" : "not handled (returned false)" } ?? "returned"
            return PhoneTraceRecord(
                type: "documentHandled", fields: fields, words: "\(url): \(verdict)", timeline: .none)
        case .promptShown(let id, let title, let message, let actions):
            return PhoneTraceRecord(
                type: "promptShown",
                fields: [
                    ("id", .integer(Int64(id))), ("title", .text(title)), ("message", .text(message)),
                    ("actions", .texts(actions)),
                ],
                words:
                    "alert #\(id) '\(title)'\(message.isEmpty ? "" : ": " + message) [\(actions.joined(separator: " | "))]",
                timeline: .mark(.document, label: "prompt"))
        case .promptAnswered(let id, let action):
            var fields: [(name: String, value: PhoneTraceRecord.Value)] = [("id", .integer(Int64(id)))]
            if let action { fields.append(("action", .text(action))) }
            return PhoneTraceRecord(
                type: "promptAnswered", fields: fields,
                words: "alert #\(id) " + (action.map { "answered '\($0)'" } ?? "dismissed with its app"),
                timeline: .mark(.document, label: action ?? "dismissed"))
        }
    }
}
