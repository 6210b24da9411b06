import BLESimulation

/// What kind of task a request asks for (BGAppRefreshTaskRequest or BGProcessingTaskRequest).
public enum BGTaskKind: Sendable, Hashable, CustomStringConvertible {
    /// A short refresh (up to ~30 s; needs the `fetch` mode).
    case appRefresh
    /// Minutes of deferrable work while the phone is idle (needs the `processing` mode).
    case processing(requiresExternalPower: Bool, requiresNetworkConnectivity: Bool)

    /// The background mode Info.plist must declare for this kind ("BGTaskScheduler": refresh
    /// needs `fetch`, processing needs `processing`).
    public var requiredMode: BackgroundMode {
        switch self {
        case .appRefresh: .fetch
        case .processing: .processing
        }
    }

    public var isProcessing: Bool { if case .processing = self { true } else { false } }

    public var description: String {
        switch self {
        case .appRefresh: "refresh"
        case .processing(let power, let network):
            "processing" + (power ? ", requires external power" : "") + (network ? ", requires network" : "")
        }
    }
}

/// `BGTaskRequest`: a request to run a task in the background, no earlier than
/// `earliestBeginDate` (a lower bound only: when it runs is the system's decision).
public protocol BGTaskRequest: Sendable {
    /// One of the app's `BGTaskSchedulerPermittedIdentifiers`.
    var identifier: String { get }
    /// On the phone's virtual clock (`Phone.simulation.now`); nil: as soon as the system likes.
    var earliestBeginDate: VirtualInstant? { get }
    var kind: BGTaskKind { get }
}

/// `BGAppRefreshTaskRequest`.
public struct BGAppRefreshTaskRequest: BGTaskRequest, Hashable {
    public var identifier: String
    public var earliestBeginDate: VirtualInstant?

    public init(identifier: String, earliestBeginDate: VirtualInstant? = nil) {
        self.identifier = identifier
        self.earliestBeginDate = earliestBeginDate
    }

    public var kind: BGTaskKind { .appRefresh }
}

/// `BGProcessingTaskRequest`.
public struct BGProcessingTaskRequest: BGTaskRequest, Hashable {
    public var identifier: String
    public var earliestBeginDate: VirtualInstant?
    /// Runs only while the phone is on external power.
    public var requiresExternalPower: Bool
    /// Runs only while the phone has a network.
    public var requiresNetworkConnectivity: Bool

    public init(
        identifier: String, earliestBeginDate: VirtualInstant? = nil, requiresExternalPower: Bool = false,
        requiresNetworkConnectivity: Bool = false
    ) {
        self.identifier = identifier
        self.earliestBeginDate = earliestBeginDate
        self.requiresExternalPower = requiresExternalPower
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
    }

    public var kind: BGTaskKind {
        .processing(
            requiresExternalPower: requiresExternalPower, requiresNetworkConnectivity: requiresNetworkConnectivity)
    }
}

/// A request as the system keeps it (the value the machine and the policy see).
public struct ScheduledTaskRequest: BGTaskRequest, Hashable {
    public var identifier: String
    public var kind: BGTaskKind
    public var earliestBeginDate: VirtualInstant?

    public init(identifier: String, kind: BGTaskKind, earliestBeginDate: VirtualInstant? = nil) {
        self.identifier = identifier
        self.kind = kind
        self.earliestBeginDate = earliestBeginDate
    }

    init(_ request: some BGTaskRequest) {
        self.init(identifier: request.identifier, kind: request.kind, earliestBeginDate: request.earliestBeginDate)
    }
}

/// `BGTaskScheduler.Error.Code`: why `submit(_:)` refused a request.
public enum BGTaskSchedulerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The phone has no BGTaskScheduler (before iOS 13), or Background App Refresh is off.
    case unavailable
    /// The identifier is not in `BGTaskSchedulerPermittedIdentifiers`, or the mode the kind
    /// needs (`fetch`, `processing`) is not declared.
    case notPermitted
    /// Already one refresh or ten processing requests pending (phone-rules.md, correction 4).
    case tooManyPendingTaskRequests

    /// The name in traces and scenario files.
    public var name: String {
        switch self {
        case .unavailable: "unavailable"
        case .notPermitted: "not_permitted"
        case .tooManyPendingTaskRequests: "too_many_pending_task_requests"
        }
    }

    public var description: String {
        switch self {
        case .unavailable: "BGTaskScheduler unavailable"
        case .notPermitted: "not permitted"
        case .tooManyPendingTaskRequests: "too many pending task requests"
        }
    }
}

/// Why `register(forTaskWithIdentifier:using:launchHandler:)` refused: on iOS each of these is
/// a programming error that raises NSInternalInconsistencyException; the phone reports it as a
/// typed error and in the trace instead of trapping.
public enum BGTaskRegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The profile has no BGTaskScheduler (before iOS 13): the API is missing.
    case unavailable
    /// Not in the app's `BGTaskSchedulerPermittedIdentifiers`.
    case identifierNotPermitted(String)
    /// The app's launch has ended (`didFinishLaunching` returned), or the instance is gone:
    /// "All launch handlers must be registered before application finishes launching".
    case afterLaunch(String)
    /// A launch handler for this identifier is already registered in this launch.
    case alreadyRegistered(String)

    /// The name in traces.
    public var name: String {
        switch self {
        case .unavailable: "unavailable"
        case .identifierNotPermitted: "identifier_not_permitted"
        case .afterLaunch: "after_launch"
        case .alreadyRegistered: "already_registered"
        }
    }

    public var description: String {
        switch self {
        case .unavailable: "BGTaskScheduler is not available on this system"
        case .identifierNotPermitted(let id): "'\(id)' is not in BGTaskSchedulerPermittedIdentifiers"
        case .afterLaunch(let id): "'\(id)' registered after the application finished launching"
        case .alreadyRegistered(let id): "a launch handler for '\(id)' is already registered"
        }
    }
}
