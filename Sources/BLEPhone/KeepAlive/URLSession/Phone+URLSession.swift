import BLESimulation

// Background URLSession as the phone performs it (URLSessionConfiguration
// "background(withIdentifier:)", UIApplicationDelegate
// "application(_:handleEventsForBackgroundURLSession:completionHandler:)", "Downloading files in
// the background"; phone-rules.md "Keep-alive": "background URLSession relaunch on finish
// (0x2182bad3 if completion not called)").

extension Phone {
    func urlSessionMade(_ session: URLSession, delegate: (any URLSessionDelegate)?, app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch) else { return }
        let identifier = session.configuration.identifier
        withKeepAlive(app) {
            $0.sessionDelegates[identifier] = SessionDelegateSlot(launch: launch, session: session, delegate: delegate)
        }
        _ = sessionState(identifier, of: app)
        flushSession(identifier, of: app)
    }

    /// A task `resume()`d: its identifier (nil from an ended instance).
    func startTransfer(
        session identifier: String, url: String, upload: Bool, bytes: Int, app: AppIdentifier, launch: Int
    ) -> Int? {
        guard isCurrent(app, launch: launch) else { return nil }
        var session = sessionState(identifier, of: app)
        let (task, actions) = session.add(url: url, upload: upload, bytes: bytes, at: simulation.now)
        runtime.keepAlive.apps[app]!.sessions[identifier] = session
        record(.keepAlive(.transferStarted(session: identifier, task: task, bytes: bytes, upload: upload)), app: app)
        performSession(actions, identifier, of: app)
        return task
    }

    private func sessionState(_ identifier: String, of app: AppIdentifier) -> BackgroundSession {
        if let session = runtime.keepAlive.apps[app]?.sessions[identifier] { return session }
        let rate = runtime.keepAlive.rules.bytesPerSecond(on: runtime.conditions.network)
        let session = BackgroundSession(identifier: identifier, bytesPerSecond: rate, at: simulation.now)
        withKeepAlive(app) { $0.sessions[identifier] = session }
        return session
    }

    func transferTimerFired(_ identifier: String, of app: AppIdentifier) {
        guard var session = runtime.keepAlive.apps[app]?.sessions[identifier] else { return }
        let actions = session.timerFired(at: simulation.now)
        runtime.keepAlive.apps[app]!.sessions[identifier] = session
        performSession(actions, identifier, of: app)
    }

    func networkChangedForTransfers(to network: PhoneConditions.Network) {
        let rate = runtime.keepAlive.rules.bytesPerSecond(on: network)
        for app in runtime.keepAlive.apps.keys.sorted() {
            for identifier in runtime.keepAlive.apps[app]!.sessions.keys.sorted() {
                let actions = runtime.keepAlive.apps[app]!.sessions[identifier]!.setRate(rate, at: simulation.now)
                performSession(actions, identifier, of: app)
            }
        }
    }

    func cancelTransfers(_ identifier: String, of app: AppIdentifier) {
        guard var session = runtime.keepAlive.apps[app]?.sessions[identifier], !session.running.isEmpty else { return }
        let actions = session.cancelAll(.cancelledUserForceQuitApplication, at: simulation.now)
        runtime.keepAlive.apps[app]!.sessions[identifier] = session
        performSession(actions, identifier, of: app)
    }

    private func performSession(_ actions: [BackgroundSession.Action], _ identifier: String, of app: AppIdentifier) {
        for action in actions {
            switch action {
            case .schedule(let time): schedule(.keepAlive(app, .transfer(identifier)), at: time)
            case .cancelTimer: cancel(.keepAlive(app, .transfer(identifier)))
            case .waiting: record(.keepAlive(.transferWaiting(session: identifier)), app: app)
            case .completed(let completion):
                if completion.error == nil {
                    runtime.keepAlive.counters.transfersCompleted += 1
                } else {
                    runtime.keepAlive.counters.transfersCancelled += 1
                }
                record(
                    .keepAlive(.transferCompleted(session: identifier, task: completion.task, error: completion.error)),
                    app: app)
                flushSession(identifier, of: app)
            case .allFinished:
                sessionFinished(identifier, of: app)
            }
        }
    }

    /// The session's last task ended: an app that runs gets the completions from its delegate;
    /// a suspended one is woken and a terminated one relaunched in the background, and
    /// `handleEventsForBackgroundURLSession` is called, its completion handler due within
    /// `KeepAliveRules.urlSessionCompletionAllowance`.
    private func sessionFinished(_ identifier: String, of app: AppIdentifier) {
        guard let entry = runtime.apps[app],
            runtime.keepAlive.apps[app]?.sessions[identifier]?.completions.isEmpty == false
        else { return }
        let allowance = runtime.keepAlive.rules.urlSessionCompletionAllowance
        let until = simulation.now.advanced(by: allowance)
        switch entry.lifecycle.state {
        case .active, .inactive, .background:
            flushSession(identifier, of: app)
        case .suspended:
            guard runtime.keepAlive.apps[app]?.handlings.contains(.urlSession(identifier)) != true else { return }
            beginHandling(
                .urlSession(identifier), of: app, allowance: allowance, timer: .urlSessionCompletion(identifier))
            wakeForKeepAlive(app, .urlSession(identifier), until: until)
            callHandleEvents(identifier, of: app)
        case .notRunning:
            launchForKeepAlive(app, reason: .urlSession(identifier), then: .urlSessionEvents(identifier))
            beginHandling(
                .urlSession(identifier), of: app, allowance: allowance, timer: .urlSessionCompletion(identifier))
        }
    }

    /// Calls `handleEventsForBackgroundURLSession` on the app's executor; once it returns, the
    /// session's completions go to its delegate (now, or when the app makes the session again).
    func callHandleEvents(_ identifier: String, of app: AppIdentifier) {
        guard let instance = runtime.apps[app]?.instance, let launch = runtime.apps[app]?.context?.launchNumber else {
            return
        }
        let until = handlingDeadline(
            app, .urlSessionCompletion(identifier), allowance: runtime.keepAlive.rules.urlSessionCompletionAllowance)
        record(.keepAlive(.sessionEventsHandling(session: identifier, until: until)), app: app)
        runOnApp(app, .handleEventsForBackgroundURLSession) { [self] in
            await instance.handleEventsForBackgroundURLSession(identifier: identifier) { [self] in
                await urlSessionCompletionCalled(identifier, of: app, launch: launch)
            }
            await handleEventsReturned(identifier, of: app, launch: launch)
        }
    }

    private func handleEventsReturned(_ identifier: String, of app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch) else { return }
        withKeepAlive(app) { _ = $0.sessionsReady.insert(identifier) }
        flushSession(identifier, of: app)
    }

    /// Hands the session's completions to its delegate when the app runs, has made the session
    /// in this instance, and is not between a wake for the session and its
    /// `handleEventsForBackgroundURLSession` returning. After a wake, the delegate's
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)` follows them.
    func flushSession(_ identifier: String, of app: AppIdentifier) {
        guard let entry = runtime.apps[app], entry.lifecycle.state.runsCode,
            let keepAlive = runtime.keepAlive.apps[app], let slot = keepAlive.sessionDelegates[identifier],
            isCurrent(app, launch: slot.launch), keepAlive.sessions[identifier]?.completions.isEmpty == false
        else { return }
        let woken = keepAlive.handlings.contains(.urlSession(identifier))
        guard !woken || keepAlive.sessionsReady.contains(identifier) else { return }
        let completions = runtime.keepAlive.apps[app]!.sessions[identifier]!.takeCompletions()
        let stillRunning = !(runtime.keepAlive.apps[app]!.sessions[identifier]!.running.isEmpty)
        runtime.keepAlive.apps[app]!.sessionsReady.remove(identifier)
        guard let delegate = slot.delegate else { return }
        let session = slot.session
        runOnApp(app, .urlSessionDelegate) {
            for completion in completions {
                let task = URLSessionTask(
                    taskIdentifier: completion.task, url: completion.url, isUpload: completion.upload,
                    bytes: completion.bytes)
                await delegate.urlSession(session, task: task, didCompleteWithError: completion.error)
            }
            if woken, !stillRunning { await delegate.urlSessionDidFinishEvents(forBackgroundURLSession: session) }
        }
    }

    private func urlSessionCompletionCalled(_ identifier: String, of app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch),
            endHandling(.urlSession(identifier), of: app, timer: .urlSessionCompletion(identifier))
        else {
            logger.debug("\(app): URLSession '\(identifier)' completion handler called again or too late")
            return
        }
        record(.keepAlive(.sessionEventsHandled(session: identifier, completionCalled: true)), app: app)
    }

    /// The allowance ran out with the completion handler not called: 0x2182bad3.
    func urlSessionCompletionOverdue(_ identifier: String, of app: AppIdentifier) {
        guard runtime.keepAlive.apps[app]?.handlings.remove(.urlSession(identifier)) != nil else { return }
        runtime.keepAlive.counters.completionsMissed += 1
        record(.keepAlive(.sessionEventsHandled(session: identifier, completionCalled: false)), app: app)
        logger.notice("\(app): URLSession '\(identifier)' completion handler not called in time (0x2182bad3)")
        kill(app, .urlSessionCompletionOverrun)
    }
}
