// What the system Bluetooth service asks of the phone: the inbox of each app.

extension Phone {
    /// The system service has `delivery` for `app`; the phone decides when the app sees it
    /// (Core Bluetooth Programming Guide, "Core Bluetooth Background Processing for iOS Apps"):
    /// - the app runs (in front, or in the background and not suspended): delivered now;
    /// - suspended, with the manager role's background mode (`bluetooth-central` /
    ///   `bluetooth-peripheral`): woken into the background for the profile's wake window, and
    ///   delivered. Each event restarts the window (so a stream of events keeps the app awake;
    ///   work past the window without a background task is frozen, not lost);
    /// - suspended without the mode: queued, and delivered in order when the app next comes
    ///   to the front (the phone's `eventCoalescing` policy may merge queued events);
    /// - not running: relaunched in the background by state restoration when the rules of
    ///   the profile allow it (TN3115; the delivery waits until the app made the manager
    ///   again), else dropped (traced, logged and counted).
    ///
    /// An event with alert text raises the system alert when the app is suspended; with
    /// several apps asking for alerts, only the most recently foregrounded one gets it.
    package func offer(_ delivery: AppBluetoothDelivery, to app: AppIdentifier) {
        guard let entry = runtime.apps[app] else {
            dropEvent(delivery, of: app, why: "no such app installed")
            return
        }
        if let alert = delivery.alert {
            runtime.apps[app]!.wantsAlerts = true
            // Only for a suspended app: one running in the background is handed the event
            // (CBConnectPeripheralOptionNotifyOnNotificationKey: "if the app is suspended at
            // the time of delivery").
            if entry.lifecycle.state == .suspended { raiseAlert(alert, for: app) }
        }
        let hasMode = entry.declaration.backgroundModes.contains(delivery.manager.role.backgroundMode)
        switch entry.lifecycle.state {
        case .active, .inactive:
            deliverOrHold(delivery, to: app)
        case .background:
            if hasMode, !entry.lifecycle.inFront { wake(app, for: delivery.kind) }
            deliverOrHold(delivery, to: app)
        case .suspended:
            if hasMode {
                wake(app, for: delivery.kind)
                deliverOrHold(delivery, to: app)
            } else {
                queue(delivery, for: app)
            }
        case .notRunning:
            relaunchOrDrop(delivery, for: app)
        }
    }

    /// The app instance made `manager` (after its restoration and first state events were
    /// handed to it): events held for it since a restoration relaunch now flow, in order.
    package func managerAttached(_ manager: ManagerID, of app: AppIdentifier) {
        guard var wait = runtime.apps[app]?.restoring else { return }
        let key = ManagerKey(manager)
        wait.attached.insert(key)
        let ready = wait.held.filter { ManagerKey($0.manager) == key }
        wait.held.removeAll { ManagerKey($0.manager) == key }
        runtime.apps[app]!.restoring = wait
        for delivery in ready { offer(delivery, to: app) }
    }

    /// Sets how events queued for suspended foreground-only apps are merged.
    public func setEventCoalescing(_ policy: EventCoalescing) {
        eventCoalescing = policy
    }

    // MARK: Paths of an event

    private func deliverOrHold(_ delivery: AppBluetoothDelivery, to app: AppIdentifier) {
        if let wait = runtime.apps[app]?.restoring, !wait.attached.contains(ManagerKey(delivery.manager)) {
            runtime.apps[app]!.restoring!.held.append(delivery)
            return
        }
        deliver(delivery, to: app)
    }

    private func deliver(_ delivery: AppBluetoothDelivery, to app: AppIdentifier) {
        runtime.counters.eventsDelivered += 1
        record(.eventDelivered(delivery.kind, summary: delivery.summary), app: app)
        delivery.deliver()
    }

    private func wake(_ app: AppIdentifier, for kind: BluetoothEventKind) {
        let window = min(max(profile.wakeWindow, .zero), .seconds(30))
        let wasSuspended = runtime.apps[app]!.lifecycle.state == .suspended
        feed(app) { $0.wake(for: window) }
        // Traced when the app actually wakes, not at each restart of an open window.
        if wasSuspended {
            runtime.counters.wakes += 1
            record(.woken(.bluetooth(kind), until: simulation.now.advanced(by: window)), app: app)
        }
    }

    private func queue(_ delivery: AppBluetoothDelivery, for app: AppIdentifier) {
        let coalesced = runtime.apps[app]!.inbox.enqueue(delivery, policy: eventCoalescing)
        runtime.counters.eventsQueued += 1
        record(.eventQueued(delivery.kind, summary: delivery.summary), app: app)
        for earlier in coalesced {
            runtime.counters.eventsCoalesced += 1
            record(.eventCoalesced(earlier.kind, summary: earlier.summary), app: app)
        }
    }

    /// Hands the app what waited for it to come to the front, oldest first.
    func deliverQueuedEvents(of app: AppIdentifier) {
        guard runtime.apps[app]?.inbox.count ?? 0 > 0 else { return }
        for delivery in runtime.apps[app]!.inbox.drain() { deliverOrHold(delivery, to: app) }
    }

    func dropEvent(_ delivery: AppBluetoothDelivery, of app: AppIdentifier, why: String) {
        runtime.counters.eventsDropped += 1
        logger.notice("\(app): \(delivery.kind) dropped: \(why)")
        record(.eventDropped(delivery.kind, summary: delivery.summary, why: why), app: app)
    }

    /// Only the most recently foregrounded of the apps asking for alerts gets one (Core
    /// Bluetooth Programming Guide, "Use Background Execution Modes Wisely").
    private func raiseAlert(_ text: String, for app: AppIdentifier) {
        let mine = runtime.apps[app]?.lastForegrounded ?? -1
        let newer = runtime.apps.first {
            $0.key != app && $0.value.wantsAlerts && ($0.value.lastForegrounded ?? -1) > mine
        }
        if let newer {
            runtime.counters.alertsSuppressed += 1
            record(.note("alert not shown: \(newer.key) was in front more recently"), app: app)
        } else {
            runtime.counters.alertsRaised += 1
            record(.alert(text), app: app)
        }
    }

    // MARK: Relaunch

    /// State restoration (TN3115): relaunch iff the system preserved something for the app (its
    /// restoration record: a manager with a restore identifier was waiting for this event) and
    /// every relaunch-table row recorded against it since it last ran allows it. A reboot with a
    /// passcode holds the relaunch until the first unlock.
    private func relaunchOrDrop(_ delivery: AppBluetoothDelivery, for app: AppIdentifier) {
        let entry = runtime.apps[app]!
        let bluetooth = self.bluetooth
        if runtime.awaitingFirstUnlock {
            runtime.relaunchesAwaitingUnlock.append((app, delivery))
            record(.eventQueued(delivery.kind, summary: delivery.summary), app: app)
            return
        }
        if let denial = relaunchDenial(of: entry) {
            runtime.counters.relaunchesDenied += 1
            record(.relaunchDenied(why: denial), app: app)
            dropEvent(delivery, of: app, why: "not running; relaunch denied (\(denial))")
            return
        }
        // The restoration record lives with the system service (another actor): the decision
        // waits for it; events arriving meanwhile join the same decision, in order.
        if runtime.apps[app]!.restoring == nil, runtime.pendingRelaunch[app] == nil {
            runtime.pendingRelaunch[app] = [delivery]
            Task(executorPreference: simulation.executor) { [self] in
                let record = await bluetooth.restorationRecord(for: app)
                let identifiers = await bluetooth.restoreIdentifiers(for: app)
                await self.relaunchDecided(app, hasRecord: record != nil, identifiers: identifiers)
            }
        } else if runtime.pendingRelaunch[app] != nil {
            runtime.pendingRelaunch[app]!.append(delivery)
        }
    }

    private func relaunchDenial(of entry: InstalledApp) -> String? {
        for cause in entry.causesSinceRun.sorted(by: { $0.rawValue < $1.rawValue })
        where !profile.relaunch.relaunches(after: cause, usesAccessorySetupKit: entry.declaration.usesAccessorySetupKit)
        {
            return "\(cause): \(profile.name) does not relaunch after it"
        }
        return nil
    }

    private func relaunchDecided(
        _ app: AppIdentifier, hasRecord: Bool, identifiers: (centrals: [String], peripherals: [String])
    ) {
        guard let deliveries = runtime.pendingRelaunch.removeValue(forKey: app) else { return }
        guard runtime.apps[app]?.lifecycle.state == .notRunning else {
            for delivery in deliveries { offer(delivery, to: app) }
            return
        }
        guard hasRecord else {
            for delivery in deliveries {
                dropEvent(delivery, of: app, why: "not running, and nothing preserved to restore")
            }
            return
        }
        var centrals = identifiers.centrals
        var peripherals = identifiers.peripherals
        for delivery in deliveries {
            guard let identifier = delivery.manager.restoreIdentifier else { continue }
            switch delivery.manager.role {
            case .central where !centrals.contains(identifier): centrals.append(identifier)
            case .peripheral where !peripherals.contains(identifier): peripherals.append(identifier)
            default: break
            }
        }
        runtime.counters.relaunches += 1
        launch(
            app, inFront: false,
            reason: .bluetoothRestoration(
                LaunchOptions(bluetoothCentrals: centrals, bluetoothPeripherals: peripherals)))
        wake(app, for: deliveries[0].kind)
        runtime.apps[app]!.restoring?.held.append(contentsOf: deliveries)
    }
}
