import BLEPhone

/// The headset app's overnight check for new firmware: a BGProcessingTask that needs external
/// power and a network (BGTaskScheduler, "Choosing Background Strategies for Your App": work
/// that can wait for the phone to charge), submitted each time the app leaves the screen and
/// again after each run. The check itself is modelled as `work` of running time.
public struct HeadsetUpdateCheck: Sendable, Hashable {
    /// The task's identifier (in the app's `BGTaskSchedulerPermittedIdentifiers`).
    public var identifier: String
    /// How long a check runs on the app's clock.
    public var work: Duration
    /// The earliest next run after one ended (the request's `earliestBeginDate`).
    public var interval: Duration

    public init(
        identifier: String = "com.example.headset.update-check", work: Duration = .seconds(20),
        interval: Duration = .seconds(12 * 3600)
    ) {
        self.identifier = identifier
        self.work = work
        self.interval = interval
    }
}

extension HeadsetAppConfiguration {
    /// The configuration with the overnight update check: the `processing` mode, the task's
    /// identifier permitted, and `updateCheck` set.
    public func checkingForUpdates(_ check: HeadsetUpdateCheck = HeadsetUpdateCheck()) -> HeadsetAppConfiguration {
        var configuration = self
        configuration.declaration.backgroundModes.insert(.processing)
        configuration.declaration.permittedTaskIdentifiers.insert(check.identifier)
        configuration.updateCheck = check
        return configuration
    }
}

extension HeadsetPhoneApp {
    /// Registers the check's launch handler (only during the launch: BGTaskScheduler
    /// `register(forTaskWithIdentifier:using:launchHandler:)`).
    func registerUpdateCheck() async {
        guard let check = configuration.updateCheck else { return }
        do {
            try await context.taskScheduler.register(forTaskWithIdentifier: check.identifier) { [self] task in
                await runUpdateCheck(task, check)
            }
        } catch {
            await note("cannot register the update check: \(error)")
        }
    }

    /// Asks for the next check, on power and a network, not before `after` from now.
    func submitUpdateCheck(after delay: Duration = .zero) async {
        guard let check = configuration.updateCheck else { return }
        let scheduler = context.taskScheduler
        let earliest = delay > .zero ? scheduler.now.advanced(by: delay) : nil
        let request = BGProcessingTaskRequest(
            identifier: check.identifier, earliestBeginDate: earliest, requiresExternalPower: true,
            requiresNetworkConnectivity: true)
        do {
            try await scheduler.submit(request)
        } catch {
            await note("the update check was not scheduled: \(error)")
        }
    }

    private func runUpdateCheck(_ task: BGTask, _ check: HeadsetUpdateCheck) async {
        task.expirationHandler = { [self] in
            await self.updateCheckExpired(task)
        }
        await note("checking for new headset firmware (a processing task, on power)")
        do {
            try await context.clock.sleep(for: check.work)
        } catch {
            return
        }
        observer.update { $0.updateChecks += 1 }
        await note("update check done: the headset's firmware is current")
        await task.setTaskCompleted(success: true)
        await submitUpdateCheck(after: check.interval)
    }

    private func updateCheckExpired(_ task: BGTask) async {
        observer.update { $0.updateChecksExpired += 1 }
        await note("the update check ran out of time; it will run again")
        await task.setTaskCompleted(success: false)
        await submitUpdateCheck()
    }
}
