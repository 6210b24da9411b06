/// A URLSession's configuration (URLSessionConfiguration). Only background sessions are
/// modelled: their transfers run in the system, outside the app.
public struct URLSessionConfiguration: Sendable, Hashable {
    /// The background session's identifier: the same across launches, so a relaunched app
    /// reconnects to its transfers by making a session with it again.
    public var identifier: String

    /// `background(withIdentifier:)`.
    public static func background(withIdentifier identifier: String) -> URLSessionConfiguration {
        URLSessionConfiguration(identifier: identifier)
    }
}

/// A background URLSession, from `AppContext.urlSession(configuration:delegate:)`. Its transfers
/// move at the phone's network rate (`KeepAliveRules`) whether the app runs, is suspended or is
/// not running; when all of them finished while the app did not run, the app is woken or
/// relaunched in the background and `PhoneApp.handleEventsForBackgroundURLSession` is called.
public final class URLSession: Sendable {
    public let configuration: URLSessionConfiguration
    let context: AppContext

    init(configuration: URLSessionConfiguration, context: AppContext) {
        self.configuration = configuration
        self.context = context
    }

    /// A download of `bytes` from `url`, started at once (`downloadTask(with:)` then `resume()`).
    public func downloadTask(with url: String, bytes: Int) async throws(URLSessionError) -> URLSessionTask {
        try await start(url: url, bytes: bytes, upload: false)
    }

    /// An upload of `bytes` to `url`, started at once (`uploadTask(with:fromFile:)` then `resume()`).
    public func uploadTask(with url: String, bytes: Int) async throws(URLSessionError) -> URLSessionTask {
        try await start(url: url, bytes: bytes, upload: true)
    }

    private func start(url: String, bytes: Int, upload: Bool) async throws(URLSessionError) -> URLSessionTask {
        guard (0...URLSession.maximumBytes).contains(bytes) else { throw .invalidByteCount(bytes) }
        guard
            let task = await context.phone.startTransfer(
                session: configuration.identifier, url: url, upload: upload, bytes: bytes, app: context.app,
                launch: context.launchNumber)
        else { throw .instanceEnded }
        return URLSessionTask(taskIdentifier: task, url: url, isUpload: upload, bytes: bytes)
    }

    /// The largest transfer modelled (1 TiB).
    public static let maximumBytes = 1 << 40
}

/// A transfer of a background session (URLSessionTask), as its delegate sees it.
public struct URLSessionTask: Sendable, Hashable {
    /// Unique within the session.
    public var taskIdentifier: Int
    public var url: String
    public var isUpload: Bool
    public var bytes: Int
}

/// A task could not be made.
public enum URLSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidByteCount(Int)
    /// The instance that asked has ended (a killed app's leftover code).
    case instanceEnded

    public var description: String {
        switch self {
        case .invalidByteCount(let bytes): "a transfer of \(bytes) bytes is outside 0 to \(URLSession.maximumBytes)"
        case .instanceEnded: "the app instance has ended"
        }
    }
}

/// The session's delegate (URLSessionDelegate / URLSessionTaskDelegate): its methods run on the
/// app's executor, traced as `urlSessionDelegate` callbacks. Empty defaults.
public protocol URLSessionDelegate: AnyObject, Sendable {
    /// `urlSession(_:task:didCompleteWithError:)`.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: URLSessionTaskError?) async
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`: after the completions an app woken
    /// or relaunched for the session was handed; where apps call the completion handler that
    /// `handleEventsForBackgroundURLSession` gave them.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) async
}

extension URLSessionDelegate {
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didCompleteWithError error: URLSessionTaskError?
    ) async {}
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) async {}
}

extension AppContext {
    /// `URLSession(configuration:delegate:delegateQueue:)` for a background configuration: made
    /// again with the same identifier after a relaunch, it reconnects to the session's transfers
    /// and receives what they finished meanwhile.
    public func urlSession(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?) async
        -> URLSession
    {
        let session = URLSession(configuration: configuration, context: self)
        await phone.urlSessionMade(session, delegate: delegate, app: app, launch: launchNumber)
        return session
    }
}
