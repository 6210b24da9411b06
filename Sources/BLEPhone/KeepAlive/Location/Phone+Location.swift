import BLESimulation

// The location mode and the location services as the phone performs them ("Handling location
// updates in the background"; phone-rules.md "Keep-alive": "location mode while updates on;
// region/significant change relaunch").

extension Phone {
    /// Where the phone is (`moveTo(_:)`).
    public var coordinate: CLLocationCoordinate2D { runtime.keepAlive.position }

    var currentLocation: CLLocation { CLLocation(coordinate: runtime.keepAlive.position, timestamp: simulation.now) }

    /// The user carries the phone to `coordinate`: each app's location services see the move —
    /// a standard update for an app that runs (or that updates keep running), a significant
    /// change (500 m, five minutes) and region crossings that wake a suspended app or relaunch
    /// a terminated one (not after the user force-quit it, unless
    /// `KeepAliveRules.locationRelaunchesAfterForceQuit`).
    public func moveTo(_ coordinate: CLLocationCoordinate2D) {
        guard coordinate.isValid else {
            logger.warning("moveTo: \(coordinate) is not on the Earth; the phone stays where it is")
            record(.note("move ignored: \(coordinate) is not on the Earth"))
            return
        }
        runtime.keepAlive.position = coordinate
        record(.keepAlive(.phoneMoved(coordinate)))
        let fix = CLLocation(coordinate: coordinate, timestamp: simulation.now)
        for app in runtime.keepAlive.apps.keys.sorted() {
            guard var monitor = runtime.keepAlive.apps[app]?.location else { continue }
            let runs = runtime.apps[app]?.lifecycle.state.runsCode ?? false
            let (events, paused) = monitor.moved(to: fix, appRuns: runs)
            runtime.keepAlive.apps[app]!.location = monitor
            if paused {
                runtime.keepAlive.counters.locationUpdatesPaused += 1
                record(
                    .keepAlive(.locationNotDelivered(.update, why: "updates pause while the app is suspended")),
                    app: app)
            }
            for event in events { route(event, to: app) }
        }
    }

    func locationMonitor(of app: AppIdentifier) -> LocationMonitor? { runtime.keepAlive.apps[app]?.location }

    // MARK: The app's calls

    func changeLocation(of app: AppIdentifier, launch: Int, _ change: @Sendable (inout LocationMonitor) -> Void) {
        guard isCurrent(app, launch: launch) else { return }
        var monitor = makeMonitor(app)
        let before = (monitor.updating, monitor.keepsAppRunning)
        change(&monitor)
        runtime.keepAlive.apps[app]!.location = monitor
        if (monitor.updating, monitor.keepsAppRunning) != before {
            record(
                .keepAlive(.locationUpdates(on: monitor.updating, keepsAppRunning: monitor.keepsAppRunning)), app: app)
        }
        syncKeepAliveHolds(app)
    }

    func changeSignificantChanges(of app: AppIdentifier, launch: Int, on: Bool) {
        guard isCurrent(app, launch: launch) else { return }
        var monitor = makeMonitor(app)
        guard monitor.significantChanges != on else { return }
        if on { monitor.startSignificantChanges(at: currentLocation) } else { monitor.stopSignificantChanges() }
        runtime.keepAlive.apps[app]!.location = monitor
        record(.keepAlive(.significantChanges(on: on)), app: app)
    }

    func startRegionMonitoring(_ region: CLCircularRegion, app: AppIdentifier, launch: Int) throws(CLError) {
        guard isCurrent(app, launch: launch) else { return }
        guard region.center.isValid, region.radius > 0, region.radius.isFinite else {
            throw .regionMonitoringFailure(
                "region '\(region.identifier)' needs a centre on the Earth and a positive radius")
        }
        var monitor = makeMonitor(app)
        guard monitor.regions[region.identifier] != nil || monitor.regions.count < 20 else {
            throw .regionMonitoringFailure("an app monitors at most 20 regions")
        }
        monitor.startMonitoring(region, at: runtime.keepAlive.position)
        runtime.keepAlive.apps[app]!.location = monitor
        record(.keepAlive(.regionMonitoring(region.identifier, on: true)), app: app)
    }

    func stopRegionMonitoring(_ identifier: String, app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch), runtime.keepAlive.apps[app]?.location?.regions[identifier] != nil else {
            return
        }
        runtime.keepAlive.apps[app]!.location!.stopMonitoring(identifier)
        record(.keepAlive(.regionMonitoring(identifier, on: false)), app: app)
    }

    /// Sets the app's delegate; events that relaunched or woke the app and waited for one are
    /// delivered now ("When you restart location services, the current event is delivered to
    /// your delegate immediately").
    func setLocationDelegate(
        _ delegate: (any CLLocationManagerDelegate)?, manager: CLLocationManager, app: AppIdentifier, launch: Int
    ) {
        guard isCurrent(app, launch: launch) else { return }
        guard let delegate else {
            withKeepAlive(app) { $0.locationDelegate = nil }
            return
        }
        let waiting = withKeepAlive(app) { keepAlive in
            keepAlive.locationDelegate = LocationDelegateSlot(launch: launch, manager: manager, delegate: delegate)
            defer { keepAlive.pendingLocation.removeAll() }
            return keepAlive.pendingLocation
        }
        for event in waiting { deliverLocation(event, to: app) }
    }

    private func makeMonitor(_ app: AppIdentifier) -> LocationMonitor {
        if let monitor = runtime.keepAlive.apps[app]?.location { return monitor }
        let hasMode = runtime.apps[app]?.declaration.backgroundModes.contains(.location) ?? false
        let monitor = LocationMonitor(hasLocationMode: hasMode, profile: profile, rules: runtime.keepAlive.rules)
        withKeepAlive(app) { $0.location = monitor }
        return monitor
    }

    // MARK: Routing an event

    private func route(_ event: LocationEvent, to app: AppIdentifier) {
        guard let entry = runtime.apps[app] else { return }
        let window = runtime.keepAlive.rules.locationEventWindow
        switch entry.lifecycle.state {
        case .active, .inactive:
            deliverLocation(event, to: app)
        case .background:
            // A crossing or significant change gives a background app its time to handle it.
            if event.kind.wakesApp { feed(app) { $0.wake(for: window) } }
            deliverLocation(event, to: app)
        case .suspended:
            // Standard updates never reach a suspended app (`moved` paused them).
            guard event.kind.wakesApp else { return }
            feed(app) { $0.wake(for: window) }
            wakeForKeepAlive(app, .location, until: simulation.now.advanced(by: window))
            deliverLocation(event, to: app)
        case .notRunning:
            guard event.kind.wakesApp else { return }
            if wasForceQuit(app), !runtime.keepAlive.rules.locationRelaunchesAfterForceQuit {
                runtime.counters.relaunchesDenied += 1
                runtime.keepAlive.counters.locationEventsDropped += 1
                logger.notice("\(app): \(event.kind) does not relaunch an app the user force-quit")
                record(.relaunchDenied(why: "\(event.kind): the user force-quit the app"), app: app)
                record(.keepAlive(.locationNotDelivered(event.kind, why: "the user force-quit the app")), app: app)
                return
            }
            withKeepAlive(app) { $0.pendingLocation.append(event) }
            launchForKeepAlive(app, reason: .location, then: nil)
            feed(app) { $0.wake(for: window) }
        }
    }

    /// Hands the event to the app's delegate on its executor, or keeps a waking event until the
    /// app sets one (a standard update with no delegate goes nowhere, as on iOS: traced).
    private func deliverLocation(_ event: LocationEvent, to app: AppIdentifier) {
        guard let slot = runtime.keepAlive.apps[app]?.locationDelegate, isCurrent(app, launch: slot.launch) else {
            if event.kind.wakesApp {
                withKeepAlive(app) { $0.pendingLocation.append(event) }
            } else {
                record(.keepAlive(.locationNotDelivered(event.kind, why: "no delegate")), app: app)
            }
            return
        }
        runtime.keepAlive.counters.locationEventsDelivered += 1
        record(.keepAlive(.locationDelivered(event.kind)), app: app)
        let (manager, delegate) = (slot.manager, slot.delegate)
        runOnApp(app, .locationUpdate) {
            switch event.kind {
            case .update, .significantChange:
                await delegate.locationManager(manager, didUpdateLocations: [event.location])
            case .enterRegion:
                if let region = event.region { await delegate.locationManager(manager, didEnterRegion: region) }
            case .exitRegion:
                if let region = event.region { await delegate.locationManager(manager, didExitRegion: region) }
            }
        }
    }
}
