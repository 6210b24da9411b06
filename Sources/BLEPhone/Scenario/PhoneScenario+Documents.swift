import BLE
import BLEWire

// Documents in scenario files (docs/phone-scenarios.md, "Documents and Open in…"): what the app
// declares, the share / open_in / answer_prompt actions, the prompt step and the expectations.

extension PhoneScenario {
    /// What the scripted app declares about documents.
    public struct AppDocuments: Sendable, Equatable {
        /// `CFBundleDocumentTypes`.
        public var types: [DocumentTypeDeclaration] = []
        /// `LSSupportsOpeningDocumentsInPlace`.
        public var opensInPlace = false
        /// `UIFileSharingEnabled`.
        public var fileSharing = false

        public init(types: [DocumentTypeDeclaration] = [], opensInPlace: Bool = false, fileSharing: Bool = false) {
            self.types = types
            self.opensInPlace = opensInPlace
            self.fileSharing = fileSharing
        }
    }

    /// The content of a shared file.
    public enum DocumentContent: Sendable, Equatable {
        /// N bytes counting up from 0 (mod 256).
        case size(Int)
        case text(String)
        case hex([UInt8])

        public var bytes: [UInt8] {
            switch self {
            case .size(let count): (0..<count).map { UInt8(truncatingIfNeeded: $0) }
            case .text(let text): Array(text.utf8)
            case .hex(let bytes): bytes
            }
        }
    }

    /// The user's document actions.
    public enum DocumentAction: Sendable, Equatable {
        /// Shares a file (from Mail), with the type of its extension or the one given.
        case share(name: String, content: DocumentContent, type: UniformTypeIdentifier?)
        /// Chooses the scenario's app in the last share sheet.
        case openIn
        /// Taps the button with this title in the oldest alert.
        case answerPrompt(String)
    }

    /// What must hold of documents at the end.
    public enum DocumentExpectation: Sendable, Equatable {
        /// Documents delivered to the app (each `documentDelivered`).
        case opened(Int)
        /// A file with this name was copied into the app's Documents/Inbox.
        case inInbox(String)
        /// Alerts the app showed.
        case promptsShown(Int)
        /// An alert of the app was answered with this button.
        case promptAnswered(String)
    }
}

extension PhoneScenario.DocumentExpectation: CustomStringConvertible {
    public var description: String {
        switch self {
        case .opened(let count): "\(count) document\(count == 1 ? "" : "s") opened"
        case .inInbox(let name): "\"\(name)\" in Documents/Inbox"
        case .promptsShown(let count): "\(count) alert\(count == 1 ? "" : "s") shown"
        case .promptAnswered(let action): "an alert answered \"\(action)\""
        }
    }

    func evaluate(_ entries: some Sequence<PhoneTraceEntry>) -> (passed: Bool, observed: String) {
        let events = entries.compactMap { if case .document(let event) = $0.event { event } else { nil } }
        switch self {
        case .opened(let expected):
            let count = events.count { if case .delivered = $0 { true } else { false } }
            return (count == expected, "\(count) opened")
        case .inInbox(let name):
            let copied = events.compactMap { event -> String? in
                if case .copiedToInbox(_, let path) = event { path } else { nil }
            }
            return (
                copied.contains("Documents/Inbox/" + name),
                copied.isEmpty ? "nothing copied" : copied.joined(separator: ", ")
            )
        case .promptsShown(let expected):
            let count = events.count { if case .promptShown = $0 { true } else { false } }
            return (count == expected, "\(count) shown")
        case .promptAnswered(let action):
            let answers = events.compactMap { event -> String? in
                if case .promptAnswered(_, let answer) = event { answer ?? "(dismissed)" } else { nil }
            }
            return (answers.contains(action), answers.isEmpty ? "no answer" : answers.joined(separator: ", "))
        }
    }
}

extension ScenarioParser {
    static let documentActionNames = ["share", "open_in", "answer_prompt"]
    static let documentExpectationNames = ["documents_opened", "in_inbox", "prompts_shown", "prompt_answered"]

    /// `document_types`, `opens_in_place`, `file_sharing` of `app`.
    static func appDocuments(_ object: JSONCursor) throws(Failure) -> PhoneScenario.AppDocuments {
        var documents = PhoneScenario.AppDocuments()
        for element in try object.member("document_types")?.array() ?? [] {
            let entry = try element.object(allowing: ["name", "types", "rank"])
            var types: [UniformTypeIdentifier] = []
            for type in try required("types", in: entry).array() {
                types.append(UniformTypeIdentifier(try type.string()))
            }
            guard !types.isEmpty else { throw (entry.member("types") ?? entry).fail("a document type needs a type") }
            var rank = HandlerRank.default
            if let rankCursor = entry.member("rank") {
                let name = try rankCursor.string()
                guard let known = HandlerRank(rawValue: name) else {
                    throw rankCursor.fail(
                        "unknown rank \"\(name)\"; expected one of: "
                            + HandlerRank.allCases.map(\.rawValue).joined(separator: ", "))
                }
                rank = known
            }
            documents.types.append(
                DocumentTypeDeclaration(
                    name: try required("name", in: entry).string(), contentTypes: types, handlerRank: rank))
        }
        documents.opensInPlace = try object.member("opens_in_place")?.bool() ?? false
        documents.fileSharing = try object.member("file_sharing")?.bool() ?? false
        return documents
    }

    /// A document action of the timeline, or nil for another action (which may not have the
    /// document keys).
    static func documentAction(_ name: String, _ object: JSONCursor) throws(Failure) -> PhoneScenario.DocumentAction? {
        let shareKeys = ["file", "size", "text", "hex", "type"]
        func reject(_ keys: [String], for action: String) throws(Failure) {
            for key in keys {
                if let extra = object.member(key) { throw extra.fail("\"\(key)\" does not apply to \(action)") }
            }
        }
        switch name {
        case "share":
            try reject(["answer"], for: "share")
            let file = try required("file", in: object).string()
            let given = ["size", "text", "hex"].compactMap { key in object.member(key).map { (key, $0) } }
            guard given.count == 1, let first = given.first else {
                throw object.fail("share needs exactly one of \"size\", \"text\", \"hex\"")
            }
            let (key, value) = first
            let content: PhoneScenario.DocumentContent
            switch key {
            case "size": content = .size(try value.integer(in: 0...(16 << 20)))
            case "text": content = .text(try value.string())
            default:
                guard let bytes = Hex.bytes(try value.string()) else { throw value.fail("not hex octets") }
                content = .hex(bytes)
            }
            var type: UniformTypeIdentifier?
            if let cursor = object.member("type") { type = UniformTypeIdentifier(try cursor.string()) }
            return .share(name: file, content: content, type: type)
        case "open_in":
            try reject(shareKeys + ["answer"], for: "open_in")
            return .openIn
        case "answer_prompt":
            try reject(shareKeys, for: "answer_prompt")
            return .answerPrompt(try required("answer", in: object).string())
        default:
            try reject(shareKeys + ["answer"], for: "\"\(name)\"")
            return nil
        }
    }

    static func documentExpectation(_ key: String, _ value: JSONCursor) throws(Failure)
        -> PhoneScenario.DocumentExpectation
    {
        switch key {
        case "documents_opened": return .opened(try count(value))
        case "in_inbox": return .inInbox(try value.string())
        case "prompts_shown": return .promptsShown(try count(value))
        default: return .promptAnswered(try value.string())
        }
    }

    /// The step `{"prompt": {"title": …, "message": …, "actions": […]}}`.
    static func promptStep(_ value: JSONCursor) throws(Failure) -> PhoneScenario.Step {
        let object = try value.object(allowing: ["title", "message", "actions"])
        var actions: [String] = []
        for action in try required("actions", in: object).array() { actions.append(try action.string()) }
        guard !actions.isEmpty else { throw (object.member("actions") ?? object).fail("an alert needs a button") }
        return .prompt(
            AppAlert(
                title: try required("title", in: object).string(),
                message: try object.member("message")?.string() ?? "",
                actions: actions))
    }
}

extension ScenarioEncoder {
    static func appDocuments(_ documents: PhoneScenario.AppDocuments, into object: inout [String: JSONValue]) {
        if !documents.types.isEmpty {
            object["document_types"] = .array(
                documents.types.map { type -> JSONValue in
                    .object([
                        "name": .string(type.name), "rank": .string(type.handlerRank.rawValue),
                        "types": .array(type.contentTypes.map { JSONValue.string($0.identifier) }),
                    ])
                })
        }
        if documents.opensInPlace { object["opens_in_place"] = .bool(true) }
        if documents.fileSharing { object["file_sharing"] = .bool(true) }
    }

    static func documentAction(_ action: PhoneScenario.DocumentAction, into object: inout [String: JSONValue]) {
        switch action {
        case .share(let name, let content, let type):
            object["action"] = .string("share")
            object["file"] = .string(name)
            switch content {
            case .size(let count): object["size"] = .number(Double(count))
            case .text(let text): object["text"] = .string(text)
            case .hex(let bytes): object["hex"] = .string(Hex.string(bytes))
            }
            if let type { object["type"] = .string(type.identifier) }
        case .openIn: object["action"] = .string("open_in")
        case .answerPrompt(let answer):
            object["action"] = .string("answer_prompt")
            object["answer"] = .string(answer)
        }
    }

    static func documentExpectation(_ expectation: PhoneScenario.DocumentExpectation) -> JSONValue {
        switch expectation {
        case .opened(let count): .object(["documents_opened": .number(Double(count))])
        case .inInbox(let name): .object(["in_inbox": .string(name)])
        case .promptsShown(let count): .object(["prompts_shown": .number(Double(count))])
        case .promptAnswered(let action): .object(["prompt_answered": .string(action)])
        }
    }

    static func prompt(_ alert: AppAlert) -> JSONValue {
        var object: [String: JSONValue] = [
            "title": .string(alert.title), "actions": .array(alert.actions.map(JSONValue.string)),
        ]
        if !alert.message.isEmpty { object["message"] = .string(alert.message) }
        return .object(object)
    }
}
