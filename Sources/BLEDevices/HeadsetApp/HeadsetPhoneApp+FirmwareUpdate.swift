import BLE
import BLECompanion
import BLEPhone

/// The update the user confirmed, run by the app itself: the OTA engine over the headset
/// protocol's binding (`HeadsetOTABinding`) on the app's own Core Bluetooth link to the headset
/// (`DeviceChunkLink.phone`). The app stays the one reader of the to-app characteristic: while an
/// update runs, its notifications go to the update's link, and the link hands every message that
/// is not the update's (heartbeats, gestures) back to the app.
///
/// It runs inside a background task "firmware update", so a Home press does not stop it while
/// the budget lasts (UIApplication `beginBackgroundTask(withName:expirationHandler:)`). When the
/// budget runs out the app ends the task, as it must, and the update stands while the app is
/// suspended: the engine's clock is the app's, and it goes on from where the headset stands
/// when the app runs again.
extension HeadsetPhoneApp {
    typealias UpdateLink = DeviceChunkLink<HeadsetProtocol>

    /// An update under way: its link (nil between a disconnection and the next subscription),
    /// the engine's wait for the next link, and the background task around it.
    struct FirmwareUpdateRun {
        var link: UpdateLink?
        var linkWaiter: CheckedContinuation<UpdateLink, any Error>?
        var task: BackgroundTaskIdentifier
    }

    /// Runs the update to its end: the override hook when the configuration has one, else the
    /// OTA engine over the app's link to the headset.
    func updateFirmware(to image: FirmwareImage) async {
        if let start = configuration.startFirmwareUpdate { return await start(image) }
        guard firmwareUpdate == nil else {
            return await updateRefused(image, "an update is already under way")
        }
        guard let headset, toDevice != nil, await headset.state == .connected else {
            return await updateRefused(image, "the headset is not connected")
        }
        let task = await context.beginBackgroundTask(withName: "firmware update") { [self] in
            await firmwareUpdateTimeRanOut()
        }
        firmwareUpdate = FirmwareUpdateRun(task: task)
        guard let link = await freshUpdateLink() else {
            await endFirmwareUpdate()
            return await updateRefused(image, "the headset is not connected")
        }
        let target = HeadsetOTABinding(
            link: link, taskExecutor: context.executor, reconnect: { [self] in try await nextUpdateLink() })
        // The binding reads the link: what is not the update's comes back to the app.
        let relay = Task(executorPreference: context.executor) { [self] in
            for await incoming in target.otherMessages { await handleDeviceMessage(incoming.message) }
        }
        let engine = OTAEngine(
            image: image, target: target, configuration: configuration.otaConfiguration, clock: context.clock)
        let outcome = await engine.run()
        target.close()
        relay.cancel()
        await endFirmwareUpdate()
        switch outcome {
        case .succeeded(let summary):
            observer.update { $0.firmwareUpdatesCompleted += 1 }
            await note(
                "firmware update to \(image.version) finished: installed (\(summary.packetsSent) packets, "
                    + "\(summary.recoveries) recoveries)")
        case .failed(let failure, _):
            observer.update { $0.firmwareUpdatesFailed += 1 }
            await note("firmware update to \(image.version) finished: failed: \(failure)")
        }
    }

    /// An update that could not start: counted as failed, and said why.
    private func updateRefused(_ image: FirmwareImage, _ why: String) async {
        observer.update { $0.firmwareUpdatesFailed += 1 }
        await note("firmware update to \(image.version) failed: \(why)")
    }

    /// A new link over the current connection, or nil when the headset is not subscribed.
    func freshUpdateLink() async -> UpdateLink? {
        guard firmwareUpdate != nil, let headset, let toDevice, await headset.state == .connected else { return nil }
        let link = UpdateLink.phone(
            headset, writingTo: toDevice,
            configuration: DeviceLinkConfiguration(clock: context.clock, taskExecutor: context.executor))
        firmwareUpdate?.link = link
        return link
    }

    /// The engine's reconnect: the app itself connects again after a disconnection (a pending
    /// connect that never times out); this waits until it has subscribed again.
    func nextUpdateLink() async throws -> UpdateLink {
        if let old = firmwareUpdate?.link {
            firmwareUpdate?.link = nil
            await old.close()
        }
        if let link = await freshUpdateLink() { return link }
        guard firmwareUpdate != nil else { throw CancellationError() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard !Task.isCancelled, firmwareUpdate != nil else {
                    return continuation.resume(throwing: CancellationError())
                }
                firmwareUpdate?.linkWaiter = continuation
            }
        } onCancel: {
            Task(executorPreference: context.executor) { [self] in await resumeLinkWaiter(with: nil) }
        }
    }

    func resumeLinkWaiter(with link: UpdateLink?) {
        guard let waiter = firmwareUpdate?.linkWaiter else { return }
        firmwareUpdate?.linkWaiter = nil
        if let link { waiter.resume(returning: link) } else { waiter.resume(throwing: CancellationError()) }
    }

    /// The headset disconnected: the update's link is gone (its requests fail as a link loss).
    func updateLinkDown() async {
        guard let link = firmwareUpdate?.link else { return }
        firmwareUpdate?.link = nil
        await link.close()
    }

    /// The app subscribed again: an engine waiting for a link gets one.
    func updateLinkUp() async {
        guard firmwareUpdate?.linkWaiter != nil, firmwareUpdate?.link == nil else { return }
        resumeLinkWaiter(with: await freshUpdateLink())
    }

    /// The background budget ran out: end the task (or the system kills the app, 0x2182bad2);
    /// the update goes on when the app runs again.
    func firmwareUpdateTimeRanOut() async {
        guard let task = firmwareUpdate?.task, task != .invalid else { return }
        firmwareUpdate?.task = .invalid
        observer.update { $0.expiredTasks += 1 }
        await context.endBackgroundTask(task)
        await note("the firmware update's background time ran out: ended its task")
    }

    func endFirmwareUpdate() async {
        guard let run = firmwareUpdate else { return }
        firmwareUpdate = nil
        run.linkWaiter?.resume(throwing: CancellationError())
        await run.link?.close()
        await context.endBackgroundTask(run.task)
    }
}
