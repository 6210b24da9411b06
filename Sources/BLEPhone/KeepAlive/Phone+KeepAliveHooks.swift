extension Phone {
    /// An app changed state: keep-alive modes and their wake sources (location, URLSession, VoIP and silent pushes) react here.
    func keepAliveSawStateChange(of app: AppIdentifier, from old: AppState, to new: AppState) {
        // An app that runs again gets what its sessions finished meanwhile (if it made them).
        if new.runsCode, !old.runsCode, let sessions = runtime.keepAlive.apps[app]?.sessions.keys {
            for session in sessions.sorted() { flushSession(session, of: app) }
        }
    }

    /// An app's process ended: what it held of keep-alive modes and their wake sources (location, URLSession, VoIP and silent pushes) ends with it.
    func keepAliveSawTermination(of app: AppIdentifier, reason: TerminationReason) {
        guard var keepAlive = runtime.keepAlive.apps[app] else { return }
        for handling in keepAlive.handlings {
            switch handling {
            case .urlSession(let session): cancel(.keepAlive(app, .urlSessionCompletion(session)))
            case .silentPush(let serial): cancel(.keepAlive(app, .silentPushWindow(serial)))
            case .voipPush(let serial): cancel(.keepAlive(app, .voipReport(serial)))
            }
        }
        keepAlive.handlings.removeAll()
        keepAlive.afterLaunch.removeAll()
        keepAlive.location?.processEnded()
        keepAlive.locationDelegate = nil
        keepAlive.sessionDelegates.removeAll()
        keepAlive.sessionsReady.removeAll()
        keepAlive.voip?.processEnded()
        keepAlive.pushRegistry = nil
        let lostPushes = keepAlive.voipWaiting
        keepAlive.voipWaiting.removeAll()
        let lostLocation = keepAlive.pendingLocation
        keepAlive.pendingLocation.removeAll()
        let calls = keepAlive.calls
        keepAlive.calls.removeAll()
        runtime.keepAlive.apps[app] = keepAlive
        for call in calls { record(.keepAlive(.callEnded(call.uuidString, why: "the app ended")), app: app) }
        for _ in lostPushes {
            runtime.keepAlive.counters.pushesDropped += 1
            record(
                .keepAlive(.pushDropped(.voip, why: "the app ended before it set a push registry delegate")), app: app)
        }
        for event in lostLocation {
            runtime.keepAlive.counters.locationEventsDropped += 1
            logger.notice("\(app): \(event.kind) lost: the app ended before it set a location manager delegate")
            record(
                .keepAlive(.locationNotDelivered(event.kind, why: "the app ended before it set a delegate")), app: app)
        }
        // The user force-quitting the app cancels its background transfers (URLSessionConfiguration
        // "background(withIdentifier:)").
        if reason == .forceQuit {
            for session in runtime.keepAlive.apps[app]?.sessions.keys.sorted() ?? [] {
                cancelTransfers(session, of: app)
            }
        }
    }

    /// The handset's conditions changed (`Phone.setConditions`).
    func keepAliveSawConditionsChange(from old: PhoneConditions, to new: PhoneConditions) {
        guard old.network != new.network else { return }
        networkChangedForTransfers(to: new.network)
    }
}
