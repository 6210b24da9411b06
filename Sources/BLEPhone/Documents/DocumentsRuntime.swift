import Foundation

/// The phone's bookkeeping of documents shared to apps ("Open in…"), the Files view and the
/// alerts apps show, one stored property of `PhoneRuntime`.
struct DocumentsRuntime {
    /// Share sheets shown and not yet chosen from, by id.
    var sheets: [Int: ShareSheet] = [:]
    var lastSheetID = 0
    /// Documents chosen for an app that is launching or coming to the front: delivered when it
    /// becomes active (after `didFinishLaunching`, before `didBecomeActive`, as iOS orders them).
    var pendingDeliveries: [AppIdentifier: [PendingDelivery]] = [:]
    /// Alerts waiting for the user, by id, oldest first in `promptOrder`.
    var prompts: [Int: PendingPrompt] = [:]
    var promptOrder: [Int] = []
    var lastPromptID = 0
    var counters = DocumentCounters()

    /// The largest file the phone takes (an inference: iOS has no fixed limit; this keeps a
    /// scenario from filling the disk).
    static let maximumFileSize = 64 << 20
}

/// A document on its way to an app.
struct PendingDelivery: Sendable {
    var url: URL
    var options: OpenURLOptions
    /// Delivered through the launch options (a scene's connection options): no method call.
    var viaLaunchOptions: Bool
}

/// An alert an app showed: its content and the app's continuation, resumed with the answer.
struct PendingPrompt {
    var app: AppIdentifier
    var alert: AppAlert
    var answer: CheckedContinuation<String?, Never>
}

/// What the phone counted of documents.
public struct DocumentCounters: Sendable, Hashable {
    public var shared = 0
    public var refused = 0
    public var delivered = 0
    public var copiedToInbox = 0
    public var promptsShown = 0
    public var promptsDismissed = 0
}
