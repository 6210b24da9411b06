import BLE
import BLESimulation
import Foundation

// The keep-alive part of the scenario format (docs/phone-scenarios.md, "Keep-alive modes"):
// timeline actions, the scripted app's steps and triggers, expectations. The shared scenario
// files hold one case each (`.keepAlive`) and hand the rest to `KeepAliveScenario`.

extension PhoneScenario {
    /// What the user or the world does to the phone.
    public enum KeepAliveAction: Sendable, Equatable {
        /// The user carries the phone there (`Phone.moveTo`).
        case moveTo(latitude: Double, longitude: Double)
        case voipPush
        case silentPush
        /// The user ends the app's calls.
        case endCall
        /// The phone's network changes (background transfers follow it).
        case network(PhoneConditions.Network)
    }

    /// What the scripted app does.
    public enum KeepAliveStep: Sendable, Equatable {
        /// `startUpdatingLocation()`, with `allowsBackgroundLocationUpdates` set first.
        case startLocationUpdates(allowsBackground: Bool)
        case stopLocationUpdates
        case monitorSignificantChanges
        case monitorRegion(CLCircularRegion)
        /// A download of `bytes` in the background session `session`.
        case download(session: String, bytes: Int)
        /// Calls the completion handler `handleEventsForBackgroundURLSession` gave.
        case completeURLSession
        /// Reports a new incoming call to CallKit.
        case reportCall
        /// Reports the app's calls ended.
        case endCall
    }

    /// The handlers a scripted reaction can answer; their steps run inside the handler, before
    /// its completion (a VoIP push's and a silent push's completion is called after the steps;
    /// a URLSession's only by `complete_url_session`).
    public enum KeepAliveTrigger: String, Sendable, Equatable, CaseIterable {
        case urlSessionEvents = "url_session_events"
        case voipPush = "voip_push"
        case silentPush = "silent_push"
        /// Any location event the delegate receives.
        case location
    }

    /// What must hold at the end.
    public enum KeepAliveExpectation: Sendable, Equatable {
        /// Woken for this `WakeReason` name: exactly `times`, or at least once.
        case woken(String, times: Int?)
        /// Launched for this `LaunchReason` name: exactly `times`, or at least once.
        case launchedFor(String, times: Int?)
    }
}

extension Phone {
    /// Performs a scenario's keep-alive action on `app` (`PhoneScenarioRunner`).
    public func perform(_ action: PhoneScenario.KeepAliveAction, for app: AppIdentifier) {
        switch action {
        case .moveTo(let latitude, let longitude):
            moveTo(CLLocationCoordinate2D(latitude: latitude, longitude: longitude))
        case .voipPush: deliverVoIPPush(to: app)
        case .silentPush: deliverSilentPush(to: app)
        case .endCall: endCall(of: app)
        case .network(let network): updateConditions { $0.network = network }
        }
    }
}

enum KeepAliveScenario {
    typealias Failure = GATTDocumentError

    static let actionNames = ["move_to", "voip_push", "silent_push", "end_call", "network"]
    /// The keys a timeline step may carry for these actions.
    static let actionFields = ["latitude", "longitude", "network"]
    static let stepKeys = [
        "start_location_updates", "stop_location_updates", "monitor_significant_changes", "monitor_region", "download",
        "complete_url_session", "report_call", "end_call",
    ]
    static let expectationKeys = ["woken", "launched_for"]
    static let wakeReasons = ["bluetooth", "scheduled_task", "location", "url_session", "voip_push", "silent_push"]
    static let launchReasons = [
        "user", "bluetooth_restoration", "process_restart", "scheduled_task", "location", "url_session", "voip_push",
        "silent_push", "open_document",
    ]

    // MARK: Parsing

    /// The action named `name` (nil: not one of these); `object` is the timeline step.
    static func action(_ name: String, _ object: JSONCursor) throws(Failure) -> PhoneScenario.KeepAliveAction? {
        try rejectFields(object, for: name)
        guard actionNames.contains(name) else { return nil }
        switch name {
        case "move_to":
            let latitude = try ScenarioParser.required("latitude", in: object)
            let longitude = try ScenarioParser.required("longitude", in: object)
            let lat = try latitude.number()
            guard (-90...90).contains(lat) else { throw latitude.fail("expected degrees from -90 to 90") }
            let lon = try longitude.number()
            guard (-180...180).contains(lon) else { throw longitude.fail("expected degrees from -180 to 180") }
            return .moveTo(latitude: lat, longitude: lon)
        case "voip_push": return .voipPush
        case "silent_push": return .silentPush
        case "end_call": return .endCall
        default:
            let cursor = try ScenarioParser.required("network", in: object)
            let text = try cursor.string()
            guard let network = PhoneConditions.Network(rawValue: text) else {
                throw cursor.fail(
                    "unknown network \"\(text)\"; expected one of: "
                        + PhoneConditions.Network.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return .network(network)
        }
    }

    /// A step of action `name` carries none of these fields but its own.
    static func rejectFields(_ object: JSONCursor, for name: String) throws(Failure) {
        for field in actionFields {
            let owner = field == "network" ? "network" : "move_to"
            if owner != name, let cursor = object.member(field) {
                throw cursor.fail("\"\(field)\" applies only to \(owner)")
            }
        }
    }

    static func step(_ key: String, _ value: JSONCursor) throws(Failure) -> PhoneScenario.Step {
        switch key {
        case "start_location_updates": return .keepAlive(.startLocationUpdates(allowsBackground: try value.bool()))
        case "stop_location_updates": try ScenarioParser.requireTrue(value); return .keepAlive(.stopLocationUpdates)
        case "monitor_significant_changes":
            try ScenarioParser.requireTrue(value)
            return .keepAlive(.monitorSignificantChanges)
        case "monitor_region":
            let object = try value.object(allowing: ["id", "latitude", "longitude", "radius_m"])
            let id = try ScenarioParser.required("id", in: object)
            let identifier = try id.string()
            guard !identifier.isEmpty else { throw id.fail("expected a non-empty region identifier") }
            let lat = try ScenarioParser.required("latitude", in: object)
            let lon = try ScenarioParser.required("longitude", in: object)
            let radius = try ScenarioParser.required("radius_m", in: object)
            let (latitude, longitude, metres) = (try lat.number(), try lon.number(), try radius.number())
            guard (-90...90).contains(latitude) else { throw lat.fail("expected degrees from -90 to 90") }
            guard (-180...180).contains(longitude) else { throw lon.fail("expected degrees from -180 to 180") }
            guard metres > 0, metres <= 1_000_000 else { throw radius.fail("expected metres above 0, up to 1000000") }
            let center = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
            return .keepAlive(.monitorRegion(CLCircularRegion(center: center, radius: metres, identifier: identifier)))
        case "download":
            let object = try value.object(allowing: ["session", "bytes"])
            let session = try ScenarioParser.required("session", in: object)
            let name = try session.string()
            guard !name.isEmpty else { throw session.fail("expected a non-empty session identifier") }
            let bytes = try ScenarioParser.required("bytes", in: object).integer(in: 0...(1 << 40))
            return .keepAlive(.download(session: name, bytes: bytes))
        case "complete_url_session": try ScenarioParser.requireTrue(value); return .keepAlive(.completeURLSession)
        case "report_call": try ScenarioParser.requireTrue(value); return .keepAlive(.reportCall)
        default: try ScenarioParser.requireTrue(value); return .keepAlive(.endCall)
        }
    }

    static func expectation(_ key: String, _ value: JSONCursor, times: JSONCursor?) throws(Failure)
        -> PhoneScenario.Expectation
    {
        let name = try value.string()
        let known = key == "woken" ? wakeReasons : launchReasons
        guard known.contains(name) else {
            throw value.fail("unknown reason \"\(name)\"; expected one of: " + known.joined(separator: ", "))
        }
        var count: Int?
        if let times { count = try times.integer(in: 0...1_000_000) }
        return .keepAlive(key == "woken" ? .woken(name, times: count) : .launchedFor(name, times: count))
    }

    // MARK: Encoding

    static func encode(_ action: PhoneScenario.KeepAliveAction, into object: inout [String: JSONValue]) {
        switch action {
        case .moveTo(let latitude, let longitude):
            object["action"] = .string("move_to")
            object["latitude"] = .number(latitude)
            object["longitude"] = .number(longitude)
        case .voipPush: object["action"] = .string("voip_push")
        case .silentPush: object["action"] = .string("silent_push")
        case .endCall: object["action"] = .string("end_call")
        case .network(let network):
            object["action"] = .string("network")
            object["network"] = .string(network.rawValue)
        }
    }

    static func encode(_ step: PhoneScenario.KeepAliveStep) -> (String, JSONValue) {
        switch step {
        case .startLocationUpdates(let allows): ("start_location_updates", .bool(allows))
        case .stopLocationUpdates: ("stop_location_updates", .bool(true))
        case .monitorSignificantChanges: ("monitor_significant_changes", .bool(true))
        case .monitorRegion(let region):
            (
                "monitor_region",
                .object([
                    "id": .string(region.identifier), "latitude": .number(region.center.latitude),
                    "longitude": .number(region.center.longitude), "radius_m": .number(region.radius),
                ])
            )
        case .download(let session, let bytes):
            ("download", .object(["session": .string(session), "bytes": .number(Double(bytes))]))
        case .completeURLSession: ("complete_url_session", .bool(true))
        case .reportCall: ("report_call", .bool(true))
        case .endCall: ("end_call", .bool(true))
        }
    }

    static func encode(_ expectation: PhoneScenario.KeepAliveExpectation, into object: inout [String: JSONValue]) {
        switch expectation {
        case .woken(let reason, let times):
            object["woken"] = .string(reason)
            if let times { object["times"] = .number(Double(times)) }
        case .launchedFor(let reason, let times):
            object["launched_for"] = .string(reason)
            if let times { object["times"] = .number(Double(times)) }
        }
    }

    // MARK: Checking

    static func description(_ expectation: PhoneScenario.KeepAliveExpectation) -> String {
        switch expectation {
        case .woken(let reason, let times): "woken by \(reason) " + (times.map { "\($0) times" } ?? "at least once")
        case .launchedFor(let reason, let times):
            "launched for \(reason) " + (times.map { "\($0) times" } ?? "at least once")
        }
    }

    /// Whether it held, and what the trace showed.
    static func evaluate(_ expectation: PhoneScenario.KeepAliveExpectation, _ entries: some Sequence<PhoneTraceEntry>)
        -> (Bool, String)
    {
        switch expectation {
        case .woken(let reason, let times):
            let count = entries.count {
                if case .woken(let woken, _) = $0.event { woken.name == reason } else { false }
            }
            return (times.map { $0 == count } ?? (count > 0), "woken by \(reason) \(count) times")
        case .launchedFor(let reason, let times):
            let count = entries.count {
                if case .launched(let launched) = $0.event { launched.name == reason } else { false }
            }
            return (times.map { $0 == count } ?? (count > 0), "launched for \(reason) \(count) times")
        }
    }
}

// MARK: The scripted app

/// What the scripted app keeps for its keep-alive steps (one stored property of `ScriptedApp`).
struct ScriptedKeepAlive {
    var location: CLLocationManager?
    var sessions: [String: URLSession] = [:]
    var urlSessionCompletions: [@Sendable () async -> Void] = []
    var provider: CXProvider?
    var calls: [UUID] = []
}

extension ScriptedApp: CLLocationManagerDelegate, URLSessionDelegate, PKPushRegistryDelegate {
    /// At launch: the location manager, the push registry and the background sessions the
    /// script uses, made again at every launch (a relaunched app reconnects to them).
    func startKeepAlive() async {
        let steps = script.reactions.flatMap(\.steps).compactMap { if case .keepAlive(let s) = $0 { s } else { nil } }
        let triggers = script.reactions.compactMap { if case .keepAlive(let t) = $0.trigger { t } else { nil } }
        let usesLocation =
            triggers.contains(.location)
            || steps.contains {
                switch $0 {
                case .startLocationUpdates, .stopLocationUpdates, .monitorSignificantChanges, .monitorRegion: true
                default: false
                }
            }
        if usesLocation {
            let manager = context.locationManager()
            keepAlive.location = manager
            await manager.setDelegate(self)
        }
        if triggers.contains(.voipPush) || script.backgroundModes.contains(.voip) {
            keepAlive.provider = context.callProvider()
            await context.pushRegistry().setDelegate(self)
        }
        for case .download(let identifier, _) in steps where keepAlive.sessions[identifier] == nil {
            keepAlive.sessions[identifier] = await context.urlSession(
                configuration: .background(withIdentifier: identifier), delegate: self)
        }
    }

    func perform(keepAlive step: PhoneScenario.KeepAliveStep) async {
        switch step {
        case .startLocationUpdates(let allows):
            await keepAlive.location?.setAllowsBackgroundLocationUpdates(allows)
            await keepAlive.location?.startUpdatingLocation()
        case .stopLocationUpdates: await keepAlive.location?.stopUpdatingLocation()
        case .monitorSignificantChanges: await keepAlive.location?.startMonitoringSignificantLocationChanges()
        case .monitorRegion(let region):
            do {
                try await keepAlive.location?.startMonitoring(for: region)
            } catch {
                await note("monitor region \(region.identifier) failed: \(error)")
            }
        case .download(let identifier, let bytes):
            do {
                _ = try await keepAlive.sessions[identifier]?.downloadTask(
                    with: "https://example.com/\(identifier)", bytes: bytes)
            } catch {
                await note("download in \(identifier) failed: \(error)")
            }
        case .completeURLSession:
            let completions = keepAlive.urlSessionCompletions
            keepAlive.urlSessionCompletions.removeAll()
            for completion in completions { await completion() }
        case .reportCall:
            let uuid = UUID()
            do {
                try await keepAlive.provider?.reportNewIncomingCall(with: uuid, handle: "caller")
                keepAlive.calls.append(uuid)
            } catch {
                await note("report call failed: \(error)")
            }
        case .endCall:
            for uuid in keepAlive.calls { await keepAlive.provider?.reportCallEnded(with: uuid, reason: .remoteEnded) }
            keepAlive.calls.removeAll()
        }
    }

    /// Performs the reactions to `trigger`, inside the handler.
    private func react(toKeepAlive trigger: PhoneScenario.KeepAliveTrigger) async {
        for reaction in script.reactions where reaction.trigger == .keepAlive(trigger) {
            await perform(reaction.steps)
        }
    }

    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) async {
        await react(toKeepAlive: .location)
    }
    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLCircularRegion) async {
        await react(toKeepAlive: .location)
    }
    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLCircularRegion) async {
        await react(toKeepAlive: .location)
    }

    public func handleEventsForBackgroundURLSession(
        identifier: String, completionHandler: @escaping @Sendable () async -> Void
    ) async {
        keepAlive.urlSessionCompletions.append(completionHandler)
        if keepAlive.sessions[identifier] == nil {
            keepAlive.sessions[identifier] = await context.urlSession(
                configuration: .background(withIdentifier: identifier), delegate: self)
        }
        await react(toKeepAlive: .urlSessionEvents)
    }

    public func didReceiveRemoteNotification(
        _ userInfo: [String: String],
        fetchCompletionHandler: @escaping @Sendable (UIBackgroundFetchResult) async -> Void
    ) async {
        await react(toKeepAlive: .silentPush)
        await fetchCompletionHandler(.newData)
    }

    public func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
        completion: @escaping @Sendable () async -> Void
    ) async {
        await react(toKeepAlive: .voipPush)
        await completion()
    }
}
