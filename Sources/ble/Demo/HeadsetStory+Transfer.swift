import BLE
import BLEController
import BLECompanion
import BLEDevices
import BLESimulation

/// The update of the headset demo: two engine runs around a link loss.
extension HeadsetStory {
    /// Sends `image`: run 1 until the headset walks out of range, run 2 on the link the
    /// reconnector brings back, resuming from the packet the headset reports.
    func transfer(
        _ image: FirmwareImage, to first: VirtualHeadset, over firstTarget: HeadsetOTATarget,
        scheduler: DeviceTickScheduler<VirtualClock>, reconnected: inout AsyncStream<Peripheral>.Iterator,
        figures: inout HeadsetStoryFigures
    ) async throws {
        log.say(
            "phone: OTA of \(image.version): \(image.size) bytes, SHA-256 "
                + "\(FirmwareDigest.hex(image.sha256).prefix(16))…")
        figures.transferStart = clock.now
        let resends = spawn { [self] in await followResends(first) }
        let firstRun = await update(image, target: firstTarget, run: 1)
        figures.runs.append(firstRun.summary)
        guard case .failed(.recoveryLimit(last: let cause, recoveries: 0), _) = firstRun else {
            throw CommandFailure("the link loss did not end run 1: \(firstRun)")
        }
        log.say("phone: OTA run 1 ended (\(cause)) after \(firstRun.summary.packetsSent) packets")
        firstTarget.close()

        guard let back = await reconnected.next() else { throw CommandFailure("the headset did not come back") }
        figures.outage = (state.withLock { $0.linkDown } ?? clock.now).duration(to: clock.now)
        let secondTarget = try await open(back, scheduler: scheduler)
        let secondRun = await update(image, target: secondTarget, run: 2)
        figures.runs.append(secondRun.summary)
        figures.transferEnd = clock.now
        guard case .succeeded(let summary) = secondRun else {
            throw CommandFailure("the update failed: \(secondRun.failure.map { "\($0)" } ?? "?")")
        }
        figures.dropped = first.statistics.packetsDropped
        figures.corrupted = first.statistics.packetsCorrupted
        resends.cancel()
        log.say(
            "headset: all \(summary.packetCount) packets in; SHA-256 verified, slots swapped to \(image.version) "
                + "(resumed from packet \(summary.resumedFromPacket ?? 0))")
        secondTarget.close()
    }

    /// One engine run, printing 25/50/75/100 % once each and taking the headset out of range
    /// at 40 % of the first run.
    private func update(_ image: FirmwareImage, target: HeadsetOTATarget, run: Int) async -> OTAOutcome {
        // Run 1 cannot reconnect by itself (the reconnector does): it ends at the link loss.
        let configuration = run == 1 ? OTAConfiguration(maximumRecoveries: 0) : OTAConfiguration()
        let engine = OTAEngine(image: image, target: target, configuration: configuration, clock: clock)
        let watcher = spawn { [self] in
            var announced = false
            for await progress in engine.progress {
                if run > 1, !announced, progress.phase == .sending {
                    announced = true
                    log.say(
                        "phone: reconnected; the headset holds \(progress.bytesAcknowledged) bytes, "
                            + "OTA run \(run) resumes from there")
                }
                let percent = progress.totalBytes > 0 ? progress.bytesSent * 100 / progress.totalBytes : 0
                for milestone in [25, 50, 75, 100] where percent >= milestone {
                    guard state.withLock({ $0.milestones.insert(milestone).inserted }) else { continue }
                    log.say("phone: OTA \(milestone) % sent (\(progress.bytesSent) of \(progress.totalBytes) bytes)")
                }
                if run == 1, percent >= 40, state.withLock({ !$0.linkLossStarted }) {
                    state.withLock { $0.linkLossStarted = true }
                    spawn { [self] in await walkAway() }
                }
            }
        }
        let outcome = await engine.run()
        await watcher.value
        return outcome
    }

    /// The headset (the air's first radio) leaves range past the supervision timeout, then comes
    /// back.
    private func walkAway() async {
        let away = await radio.withAir { air -> AirRadioID? in
            guard let id = air.radioIDs.first else { return nil }
            air.move(id, to: HeadsetDemo.outOfRange)
            return id
        }
        guard let away else { return }
        state.withLock { $0.linkDown = clock.now }
        log.say("headset: walks out of range mid-transfer")
        guard (try? await clock.sleep(for: HeadsetDemo.outage)) != nil else { return }
        await radio.withAir { air in air.move(away, to: .origin) }
        log.say("headset: back in range")
    }

    /// Prints the headset's requests to resend (faulted packets).
    private func followResends(_ headset: VirtualHeadset) async {
        for await activity in headset.activity {
            switch activity {
            case .resendRequested(let packet):
                log.say("headset: packet \(packet) arrived damaged or not at all → resend from \(packet)")
            case .packetResendRequested(let packet):
                log.say("headset: packet \(packet) arrived damaged or not at all → resend packet \(packet) only")
            default: break
            }
        }
    }
}
