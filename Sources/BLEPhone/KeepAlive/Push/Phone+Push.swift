import Foundation

// VoIP pushes (PushKit, CallKit) and silent pushes as the phone performs them (phone-rules.md:
// "VoIP must report to CallKit (0xbaadca11)", "Silent push: ≤ 30 s, ~3/hour (D)").

extension Phone {
    // MARK: Silent pushes

    /// A background (content-available) push for `app` arrives
    /// (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`, "Pushing background
    /// updates to your App"): the app in front gets it at once; in the background it needs the
    /// `remote-notification` mode and passes the rate limit (`KeepAliveRules`; over it, it waits,
    /// only the latest); a suspended app is woken and a terminated one launched in the background
    /// — not after the user force-quit it — and the handler runs for at most 30 s (its completion
    /// ends the hold sooner).
    public func deliverSilentPush(to app: AppIdentifier, payload: [String: String] = [:]) {
        record(.keepAlive(.pushReceived(.silent)), app: app)
        guard let entry = runtime.apps[app] else { return dropPush(.silent, app, "no such app installed") }
        let serial = nextPushSerial()
        if entry.lifecycle.inFront, entry.lifecycle.state.runsCode {
            return startSilentPush(serial, payload, to: app)
        }
        guard entry.declaration.backgroundModes.contains(.remoteNotification) else {
            return dropPush(.silent, app, "no remote-notification background mode")
        }
        let rules = runtime.keepAlive.rules
        var gate =
            runtime.keepAlive.apps[app]?.silentGate
            ?? SilentPushGate(limit: rules.silentPushesPerPeriod, period: rules.silentPushRatePeriod)
        let decision = gate.offer(serial, at: simulation.now)
        withKeepAlive(app) {
            $0.silentGate = gate
        }
        switch decision {
        case .deliver:
            startSilentPush(serial, payload, to: app)
        case .wait(let until, let replaced):
            if replaced != nil { dropPush(.silent, app, "replaced by a later push while waiting for the rate limit") }
            withKeepAlive(app) { $0.silentWaiting = (serial, payload) }
            runtime.keepAlive.counters.pushesDeferred += 1
            logger.info("\(app): silent push deferred by the rate limit")
            record(.keepAlive(.pushDeferred(.silent, until: until)), app: app)
            schedule(.keepAlive(app, .silentPushWaiting), at: until)
        }
    }

    func silentPushWaitingTimerFired(of app: AppIdentifier) {
        guard var gate = runtime.keepAlive.apps[app]?.silentGate else { return }
        let (serial, retry) = gate.timerFired(at: simulation.now)
        runtime.keepAlive.apps[app]!.silentGate = gate
        if let retry { schedule(.keepAlive(app, .silentPushWaiting), at: retry) }
        guard serial != nil, let waiting = runtime.keepAlive.apps[app]!.silentWaiting else { return }
        runtime.keepAlive.apps[app]!.silentWaiting = nil
        startSilentPush(waiting.serial, waiting.payload, to: app)
    }

    private func startSilentPush(_ serial: Int, _ payload: [String: String], to app: AppIdentifier) {
        guard let entry = runtime.apps[app] else { return }
        let window = runtime.keepAlive.rules.silentPushWindow
        let until = simulation.now.advanced(by: window)
        switch entry.lifecycle.state {
        case .active, .inactive, .background:
            beginHandling(.silentPush(serial), of: app, allowance: window, timer: .silentPushWindow(serial))
            callSilentPushHandler(serial, payload, of: app)
        case .suspended:
            beginHandling(.silentPush(serial), of: app, allowance: window, timer: .silentPushWindow(serial))
            wakeForKeepAlive(app, .silentPush, until: until)
            callSilentPushHandler(serial, payload, of: app)
        case .notRunning:
            // "the system does not launch your app … if the user has force-quit it"
            // (didReceiveRemoteNotification:fetchCompletionHandler:).
            guard !wasForceQuit(app) else {
                runtime.counters.relaunchesDenied += 1
                record(.relaunchDenied(why: "silent push: the user force-quit the app"), app: app)
                return dropPush(.silent, app, "the user force-quit the app")
            }
            launchForKeepAlive(app, reason: .silentPush, then: .silentPush(serial, payload))
            beginHandling(.silentPush(serial), of: app, allowance: window, timer: .silentPushWindow(serial))
        }
    }

    func callSilentPushHandler(_ serial: Int, _ payload: [String: String], of app: AppIdentifier) {
        guard let instance = runtime.apps[app]?.instance, let launch = runtime.apps[app]?.context?.launchNumber else {
            return
        }
        runtime.keepAlive.counters.pushesDelivered += 1
        let until = handlingDeadline(
            app, .silentPushWindow(serial), allowance: runtime.keepAlive.rules.silentPushWindow)
        record(.keepAlive(.pushHandling(.silent, serial: serial, until: until)), app: app)
        runOnApp(app, .didReceiveRemoteNotification) { [self] in
            await instance.didReceiveRemoteNotification(payload) { [self] _ in
                await silentPushCompleted(serial, of: app, launch: launch)
            }
        }
    }

    private func silentPushCompleted(_ serial: Int, of app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch),
            endHandling(.silentPush(serial), of: app, timer: .silentPushWindow(serial))
        else { return }
        record(.keepAlive(.pushHandled(.silent, serial: serial, completionCalled: true)), app: app)
    }

    /// The 30 s are up: the hold ends (the app is suspended when nothing else holds it). Apple
    /// documents no kill for a late fetch completion, only that the system may deliver fewer
    /// pushes: traced and counted.
    func silentPushWindowEnded(_ serial: Int, of app: AppIdentifier) {
        guard runtime.keepAlive.apps[app]?.handlings.remove(.silentPush(serial)) != nil else { return }
        runtime.keepAlive.counters.completionsMissed += 1
        logger.notice("\(app): silent push handler did not complete within its window")
        record(.keepAlive(.pushHandled(.silent, serial: serial, completionCalled: false)), app: app)
        syncKeepAliveHolds(app)
    }

    // MARK: VoIP pushes

    /// A PushKit VoIP push for `app` arrives: it needs PushKit (iOS 8+) and the `voip` mode; the
    /// app is woken, or launched in the background (force-quit or not: PushKit's purpose, I),
    /// and its registry delegate gets the push. From iOS 13 a call must be reported before the
    /// completion (or within `KeepAliveRules.voipReportAllowance`), else kill 0xbaadca11; after
    /// `voipFailuresBeforeDeliveryStops` such failures, pushes are no longer delivered.
    public func deliverVoIPPush(to app: AppIdentifier, payload: [String: String] = [:]) {
        record(.keepAlive(.pushReceived(.voip)), app: app)
        guard let entry = runtime.apps[app] else { return dropPush(.voip, app, "no such app installed") }
        guard profile.hasPushKit else { return dropPush(.voip, app, "PushKit needs iOS 8") }
        guard entry.declaration.backgroundModes.contains(.voip) else {
            return dropPush(.voip, app, "no voip background mode")
        }
        var ledger =
            runtime.keepAlive.apps[app]?.voip ?? VoIPPushLedger(profile: profile, rules: runtime.keepAlive.rules)
        guard !ledger.deliveryStopped else {
            return dropPush(.voip, app, "delivery stopped after \(ledger.failures) pushes not reported as calls")
        }
        let serial = nextPushSerial()
        ledger.received(serial)
        withKeepAlive(app) { $0.voip = ledger }
        let allowance = runtime.keepAlive.rules.voipReportAllowance
        switch entry.lifecycle.state {
        case .active, .inactive, .background:
            beginHandling(.voipPush(serial), of: app, allowance: allowance, timer: .voipReport(serial))
            handVoIPPush(serial, payload, to: app)
        case .suspended:
            beginHandling(.voipPush(serial), of: app, allowance: allowance, timer: .voipReport(serial))
            wakeForKeepAlive(app, .voipPush, until: simulation.now.advanced(by: allowance))
            handVoIPPush(serial, payload, to: app)
        case .notRunning:
            launchForKeepAlive(app, reason: .voipPush, then: .voipPush(serial, payload))
            beginHandling(.voipPush(serial), of: app, allowance: allowance, timer: .voipReport(serial))
        }
    }

    /// Gives the push to the registry delegate, or keeps it until the app sets one.
    func handVoIPPush(_ serial: Int, _ payload: [String: String], to app: AppIdentifier) {
        guard let slot = runtime.keepAlive.apps[app]?.pushRegistry, isCurrent(app, launch: slot.launch) else {
            withKeepAlive(app) { $0.voipWaiting.append((serial, payload)) }
            return
        }
        runtime.keepAlive.counters.pushesDelivered += 1
        let until = handlingDeadline(app, .voipReport(serial), allowance: runtime.keepAlive.rules.voipReportAllowance)
        record(.keepAlive(.pushHandling(.voip, serial: serial, until: until)), app: app)
        let (registry, delegate, launch) = (slot.registry, slot.delegate, slot.launch)
        runOnApp(app, .didReceiveIncomingPush) { [self] in
            await delegate.pushRegistry(
                registry, didReceiveIncomingPushWith: PKPushPayload(dictionaryPayload: payload, type: .voIP),
                for: .voIP
            ) { [self] in
                await voipPushCompleted(serial, of: app, launch: launch)
            }
        }
    }

    func setPushRegistryDelegate(
        _ delegate: (any PKPushRegistryDelegate)?, registry: PKPushRegistry, app: AppIdentifier, launch: Int
    ) {
        guard isCurrent(app, launch: launch) else { return }
        guard let delegate else {
            withKeepAlive(app) { $0.pushRegistry = nil }
            return
        }
        let waiting = withKeepAlive(app) { keepAlive in
            keepAlive.pushRegistry = PushRegistrySlot(launch: launch, registry: registry, delegate: delegate)
            defer { keepAlive.voipWaiting.removeAll() }
            return keepAlive.voipWaiting
        }
        for (serial, payload) in waiting { handVoIPPush(serial, payload, to: app) }
    }

    private func voipPushCompleted(_ serial: Int, of app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch), let outcome = runtime.keepAlive.apps[app]?.voip?.finished(serial) else {
            return
        }
        endHandling(.voipPush(serial), of: app, timer: .voipReport(serial))
        record(.keepAlive(.pushHandled(.voip, serial: serial, completionCalled: true)), app: app)
        if outcome == .kill { killForUnreportedPush(app) }
    }

    func voipReportOverdue(_ serial: Int, of app: AppIdentifier) {
        guard let outcome = runtime.keepAlive.apps[app]?.voip?.finished(serial) else { return }
        runtime.keepAlive.apps[app]!.handlings.remove(.voipPush(serial))
        runtime.keepAlive.counters.completionsMissed += 1
        record(.keepAlive(.pushHandled(.voip, serial: serial, completionCalled: false)), app: app)
        if outcome == .kill { killForUnreportedPush(app) } else { syncKeepAliveHolds(app) }
    }

    private func killForUnreportedPush(_ app: AppIdentifier) {
        logger.notice("\(app): VoIP push not reported to CallKit (0xbaadca11)")
        kill(app, .voipPushNotReported)
    }

    // MARK: Calls

    func reportCall(_ uuid: UUID, handle: String, app: AppIdentifier, launch: Int) throws(CXError) {
        guard isCurrent(app, launch: launch) else { throw .instanceEnded }
        guard profile.majorVersion >= 10 else { throw .unavailable }
        guard runtime.keepAlive.apps[app]?.calls.contains(uuid) != true else { throw .callUUIDAlreadyExists }
        withKeepAlive(app) {
            $0.calls.append(uuid)
            $0.voip?.callReported()
        }
        runtime.keepAlive.counters.callsReported += 1
        record(.keepAlive(.callReported(uuid.uuidString)), app: app)
        syncKeepAliveHolds(app)
    }

    /// The user ends the app's call (`uuid`, or every call of the app): its hold ends.
    public func endCall(_ uuid: UUID? = nil, of app: AppIdentifier) {
        let calls = runtime.keepAlive.apps[app]?.calls ?? []
        guard !calls.isEmpty else {
            record(.note("end call: the app has no call"), app: app)
            return
        }
        for call in calls where uuid == nil || uuid == call { endCall(call, of: app, why: "the user ended it") }
    }

    func endCall(_ uuid: UUID, of app: AppIdentifier, why: String) {
        guard let index = runtime.keepAlive.apps[app]?.calls.firstIndex(of: uuid) else { return }
        runtime.keepAlive.apps[app]!.calls.remove(at: index)
        record(.keepAlive(.callEnded(uuid.uuidString, why: why)), app: app)
        syncKeepAliveHolds(app)
    }

    // MARK: Plumbing

    private func nextPushSerial() -> Int {
        runtime.keepAlive.nextPush += 1
        return runtime.keepAlive.nextPush
    }

    private func dropPush(_ kind: PushKind, _ app: AppIdentifier, _ why: String) {
        runtime.keepAlive.counters.pushesDropped += 1
        logger.notice("\(app): \(kind.rawValue) push dropped: \(why)")
        record(.keepAlive(.pushDropped(kind, why: why)), app: app)
    }
}
