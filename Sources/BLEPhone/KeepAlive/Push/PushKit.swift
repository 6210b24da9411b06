import Foundation

/// A PushKit push type (PKPushType).
public enum PKPushType: String, Sendable, Hashable {
    case voIP
}

/// A push's payload (PKPushPayload): its dictionary, as strings.
public struct PKPushPayload: Sendable, Hashable {
    public var dictionaryPayload: [String: String]
    public var type: PKPushType
}

/// The app's PushKit registry (PKPushRegistry), from `AppContext.pushRegistry()`. A VoIP push
/// reaches the app through the delegate set here; an app launched for a push must set it again
/// during launch (the push waits for it, within its allowance).
public final class PKPushRegistry: Sendable {
    let context: AppContext

    init(context: AppContext) { self.context = context }

    /// Sets the delegate (and `desiredPushTypes = [.voIP]`).
    public func setDelegate(_ delegate: (any PKPushRegistryDelegate)?) async {
        await context.phone.setPushRegistryDelegate(
            delegate, registry: self, app: context.app, launch: context.launchNumber)
    }
}

/// PKPushRegistryDelegate: runs on the app's executor, traced as `didReceiveIncomingPush`.
public protocol PKPushRegistryDelegate: AnyObject, Sendable {
    /// `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`. From iOS 13 the app must
    /// report a call to CallKit (`CXProvider.reportNewIncomingCall`) before calling
    /// `completion`, or it is killed (0xbaadca11).
    func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
        completion: @escaping @Sendable () async -> Void) async
}

/// Why a call ended (CXCallEndedReason).
public enum CXCallEndedReason: String, Sendable, Hashable {
    case failed, remoteEnded, unanswered, answeredElsewhere, declinedElsewhere
}

/// A CallKit error (CXErrorCodeIncomingCallError and friends).
public enum CXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A call with this UUID is already reported.
    case callUUIDAlreadyExists
    /// CallKit exists from iOS 10.
    case unavailable
    /// The instance that asked has ended.
    case instanceEnded

    public var description: String {
        switch self {
        case .callUUIDAlreadyExists: "a call with this UUID already exists"
        case .unavailable: "CallKit needs iOS 10"
        case .instanceEnded: "the app instance has ended"
        }
    }
}

/// The app's CallKit provider (CXProvider), from `AppContext.callProvider()`. A reported call
/// holds the app running until it ends (`reportCallEnded(with:reason:)` or the user ending it,
/// `Phone.endCall`).
public final class CXProvider: Sendable {
    let context: AppContext

    init(context: AppContext) { self.context = context }

    /// `reportNewIncomingCall(with:update:completion:)`: the call the VoIP push announced.
    public func reportNewIncomingCall(with uuid: UUID, handle: String) async throws(CXError) {
        try await context.phone.reportCall(uuid, handle: handle, app: context.app, launch: context.launchNumber)
    }

    /// `reportCall(with:endedAt:reason:)`, ended now.
    public func reportCallEnded(with uuid: UUID, reason: CXCallEndedReason) async {
        await context.phone.endCall(uuid, of: context.app, why: "the app reported it ended (\(reason.rawValue))")
    }
}

/// The result a silent push's handler passes to its completion (UIBackgroundFetchResult).
public enum UIBackgroundFetchResult: String, Sendable, Hashable {
    case newData, noData, failed
}

extension AppContext {
    /// `PKPushRegistry(queue:)` for this instance.
    public func pushRegistry() -> PKPushRegistry { PKPushRegistry(context: self) }
    /// `CXProvider(configuration:)` for this instance.
    public func callProvider() -> CXProvider { CXProvider(context: self) }
}
