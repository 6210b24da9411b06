import BLEController
import BLESimulation
import Foundation

@testable import BLEPhone

/// What the keep-alive test app does at launch and in its handlers.
struct KeepAliveBehaviour: Sendable {
    /// At launch: make a location manager with this app as its delegate.
    var locationDelegate = false
    var startUpdates = false
    var allowsBackgroundUpdates = false
    var significantChanges = false
    var region: CLCircularRegion?
    /// At launch: make the background session with this identifier (this app its delegate).
    var session: String?
    /// Call the URLSession completion handler in `urlSessionDidFinishEvents`.
    var completeURLSession = true
    /// At launch: set a PushKit registry delegate.
    var pushRegistry = false
    /// Set it only after this long of the launch (pushes wait for it meanwhile).
    var pushRegistryDelay: Duration?
    /// In the VoIP push handler: report a call, then call the completion.
    var reportCall = true
    var completePush = true
    /// Call a silent push's fetch completion after this long on the virtual clock (nil: never).
    var silentPushWork: Duration? = .seconds(2)
}

/// A test app for the keep-alive modes: it logs every handler (name@seconds).
actor KeepAliveApp: PhoneApp, CLLocationManagerDelegate, BLEPhone.URLSessionDelegate, PKPushRegistryDelegate {
    nonisolated let context: AppContext
    let log: CallLog
    let behaviour: KeepAliveBehaviour
    var location: CLLocationManager?
    var session: BLEPhone.URLSession?
    var urlSessionCompletion: (@Sendable () async -> Void)?
    var provider: CXProvider?

    init(context: AppContext, log: CallLog, behaviour: KeepAliveBehaviour) {
        self.context = context
        self.log = log
        self.behaviour = behaviour
    }

    func didFinishLaunching(options: LaunchOptions) async {
        log.add("launch" + (options.location ? " location" : "") + (options.remoteNotification ? " push" : ""))
        if behaviour.locationDelegate {
            let manager = context.locationManager()
            location = manager
            await manager.setDelegate(self)
            if behaviour.allowsBackgroundUpdates { await manager.setAllowsBackgroundLocationUpdates(true) }
            if behaviour.startUpdates { await manager.startUpdatingLocation() }
            if behaviour.significantChanges { await manager.startMonitoringSignificantLocationChanges() }
            if let region = behaviour.region { try? await manager.startMonitoring(for: region) }
        }
        if let identifier = behaviour.session {
            session = await context.urlSession(configuration: .background(withIdentifier: identifier), delegate: self)
        }
        if behaviour.pushRegistry {
            provider = context.callProvider()
            if let delay = behaviour.pushRegistryDelay { try? await context.clock.sleep(for: delay) }
            await context.pushRegistry().setDelegate(self)
        }
    }

    func stopUpdates() async { await location?.stopUpdatingLocation() }

    func download(_ bytes: Int) async throws -> BLEPhone.URLSessionTask {
        try await session!.downloadTask(with: "https://example.com/firmware.bin", bytes: bytes)
    }

    // Location
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) async {
        log.add("update")
    }
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLCircularRegion) async {
        log.add("enter \(region.identifier)")
    }
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLCircularRegion) async {
        log.add("exit \(region.identifier)")
    }

    // URLSession
    func handleEventsForBackgroundURLSession(
        identifier: String, completionHandler: @escaping @Sendable () async -> Void
    ) async {
        log.add("handleEvents \(identifier)")
        urlSessionCompletion = completionHandler
        if session == nil {
            session = await context.urlSession(configuration: .background(withIdentifier: identifier), delegate: self)
        }
    }
    func urlSession(
        _ session: BLEPhone.URLSession, task: BLEPhone.URLSessionTask, didCompleteWithError error: URLSessionTaskError?
    ) async {
        log.add("completed \(task.taskIdentifier)" + (error.map { " \($0)" } ?? ""))
    }
    func urlSessionDidFinishEvents(forBackgroundURLSession session: BLEPhone.URLSession) async {
        log.add("finishedEvents")
        if behaviour.completeURLSession, let completion = urlSessionCompletion {
            urlSessionCompletion = nil
            await completion()
        }
    }

    // Pushes
    func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
        completion: @escaping @Sendable () async -> Void
    ) async {
        log.add("voip")
        if behaviour.reportCall { try? await provider?.reportNewIncomingCall(with: UUID(), handle: "Alice") }
        if behaviour.completePush { await completion() }
    }

    func didReceiveRemoteNotification(
        _ userInfo: [String: String],
        fetchCompletionHandler: @escaping @Sendable (UIBackgroundFetchResult) async -> Void
    ) async {
        log.add("silent")
        guard let work = behaviour.silentPushWork else { return }
        let clock = context.phone.simulation.clock
        Task(executorPreference: context.executor) {
            try? await clock.sleep(for: work)
            await fetchCompletionHandler(.newData)
        }
    }
}

extension PhoneWorld {
    /// Installs a keep-alive test app.
    @discardableResult
    func installKeepAlive(
        _ name: String, modes: Set<BackgroundMode>, behaviour: KeepAliveBehaviour
    ) async -> AppIdentifier {
        let log = self.log
        await phone.install(AppDeclaration(bundleIdentifier: name, backgroundModes: modes)) { context in
            KeepAliveApp(context: context, log: log, behaviour: behaviour)
        }
        return AppIdentifier(name)
    }

    func keepAliveApp(_ app: AppIdentifier) async -> KeepAliveApp? {
        await phone.instance(of: app) as? KeepAliveApp
    }

    /// The trace lines of `app` in the keep-alive family and the lifecycle, "words@seconds".
    func keepAliveTrace(of app: AppIdentifier) async -> [String] {
        let start = log.start.withLock { $0 }
        return await phone.trace.filter { $0.app == app }.map {
            "\(keepAliveDescription($0.event))@\(seconds(since: start, to: $0.time))"
        }
    }
}

/// A trace event in a short form for keep-alive assertions.
func keepAliveDescription(_ event: PhoneTraceEvent) -> String {
    switch event {
    case .keepAlive(let event): event.record.type + (event.shortDetail.map { " " + $0 } ?? "")
    case .woken(let reason, _): "woken \(reason.name)"
    case .launched(let reason): "launched \(reason.name)"
    case .stateChanged(_, let to): "\(to)"
    case .killed(let reason): "killed \(reason.name)"
    case .relaunchDenied: "relaunch denied"
    default: event.record.type
    }
}

extension KeepAliveEvent {
    fileprivate var shortDetail: String? {
        switch self {
        case .locationUpdates(let on, let keeps): "\(on) \(keeps)"
        case .locationDelivered(let kind): kind.name
        case .locationNotDelivered(let kind, _): kind.name
        case .transferCompleted(_, let task, let error): "\(task)" + (error == nil ? "" : " cancelled")
        case .sessionEventsHandled(_, let called): "\(called)"
        case .pushHandled(let kind, _, let called): "\(kind.rawValue) \(called)"
        case .pushReceived(let kind), .pushDeferred(let kind, _), .pushDropped(let kind, _): kind.rawValue
        case .pushHandling(let kind, _, _): kind.rawValue
        default: nil
        }
    }
}
