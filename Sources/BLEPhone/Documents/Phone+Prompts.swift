/// An alert an app shows the user (`UIAlertController` with `.alert` style): a title, a message
/// and the buttons' titles. The app waits for the answer (`AppContext.presentAlert`).
public struct AppAlert: Sendable, Hashable {
    public var title: String
    public var message: String
    /// The buttons, in order (`UIAlertAction` titles).
    public var actions: [String]

    public init(title: String, message: String, actions: [String]) {
        self.title = title
        self.message = message
        self.actions = actions
    }
}

/// An alert waiting for the user, as the phone shows it.
public struct ShownPrompt: Sendable, Hashable {
    public var id: Int
    public var app: AppIdentifier
    public var alert: AppAlert
}

extension Phone {
    /// The alerts waiting for the user, oldest first.
    public var prompts: [ShownPrompt] {
        runtime.documents.promptOrder.compactMap { id in
            runtime.documents.prompts[id].map { ShownPrompt(id: id, app: $0.app, alert: $0.alert) }
        }
    }

    /// The user taps `action` in the alert `id` (the oldest when nil). The alert must be on the
    /// screen: its app in front.
    public func respondToPrompt(_ id: Int? = nil, choosing action: String) throws(DocumentError) {
        guard let id = id ?? runtime.documents.promptOrder.first, let prompt = runtime.documents.prompts[id] else {
            throw .noPrompt
        }
        guard prompt.alert.actions.contains(action) else { throw .unknownPromptAction(action) }
        guard runtime.front == prompt.app, !runtime.locked else { throw .promptNotVisible(prompt.app) }
        answer(id, with: action)
    }

    /// Shows the app's alert and waits for the user's answer (nil when the app ends first).
    func presentAlert(_ alert: AppAlert, for app: AppIdentifier, launch: Int) async -> String? {
        guard isCurrent(app, launch: launch), !alert.actions.isEmpty else { return nil }
        return await withCheckedContinuation { continuation in
            runtime.documents.lastPromptID += 1
            let id = runtime.documents.lastPromptID
            runtime.documents.prompts[id] = PendingPrompt(app: app, alert: alert, answer: continuation)
            runtime.documents.promptOrder.append(id)
            runtime.documents.counters.promptsShown += 1
            record(
                .document(.promptShown(id: id, title: alert.title, message: alert.message, actions: alert.actions)),
                app: app)
        }
    }

    func answer(_ id: Int, with action: String?) {
        guard let prompt = runtime.documents.prompts.removeValue(forKey: id) else { return }
        runtime.documents.promptOrder.removeAll { $0 == id }
        if action == nil { runtime.documents.counters.promptsDismissed += 1 }
        record(.document(.promptAnswered(id: id, action: action)), app: prompt.app)
        prompt.answer.resume(returning: action)
    }
}

extension AppContext {
    /// Shows an alert (`present(_:animated:)` of a `UIAlertController`) and returns the title of
    /// the button the user tapped (`Phone.respondToPrompt`), or nil when the app ends first.
    public func presentAlert(_ alert: AppAlert) async -> String? {
        await phone.presentAlert(alert, for: app, launch: launchNumber)
    }
}
