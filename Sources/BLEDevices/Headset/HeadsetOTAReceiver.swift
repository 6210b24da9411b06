import BLE
import BLECompanion
import BLELocking
import BLESimulation

/// The headset's side of the OTA sequence (docs/headset-protocol.md): turns OTA messages into
/// `FirmwareFlash` calls and the flash's answers into the protocol's, and injects faults into
/// incoming data packets (dropped, or one octet flipped) from a seeded generator.
final class HeadsetOTAReceiver: Sendable {
    /// Counters of the faults injected.
    struct Faults: Sendable, Hashable {
        var dropped = 0
        var corrupted = 0
    }

    let flash: FirmwareFlash
    private let faultRate: Double
    private let random: Locked<(generator: SeededRandomGenerator, faults: Faults)>

    init(flash: FirmwareFlash, faultRate: Double, seed: UInt64) {
        self.flash = flash
        self.faultRate = faultRate
        random = Locked((SeededRandomGenerator(seed: seed), Faults()))
    }

    var faults: Faults { random.withLock { $0.faults } }

    /// The answer to OTA start (`83`): `0A` entered OTA mode or battery too low, `0B` success
    /// for the running image, version format error, or failure for any other refusal.
    func start(_ start: HeadsetProtocol.OTAStart) -> (HeadsetDeviceMessage, OTAStartAnswer?) {
        let parameters = OTASessionParameters(
            imageSize: Int(start.imageSize), version: start.version, sha256: start.sha256,
            packetSize: Int(start.packetLength))
        let answer: OTAStartAnswer
        do {
            answer = try flash.start(parameters)
        } catch {
            return (.otaResult(.failure), nil)
        }
        switch answer {
        case .ready: return (.mcuResponse(.enteredOTAMode), answer)
        case .alreadyInstalled: return (.otaResult(.success), answer)
        case .refused(.batteryTooLow): return (.mcuResponse(.batteryTooLow), answer)
        case .refused(.versionFormat): return (.otaResult(.versionFormatError), answer)
        case .refused: return (.otaResult(.failure), answer)
        }
    }

    /// The answer to OTA status query (`85`): `0D`, or `0B` failure when no update is under way.
    func status() -> HeadsetDeviceMessage {
        switch flash.status() {
        case .idle:
            return .otaResult(.failure)
        case .receiving(let nextPacket, let receivedBytes):
            return .otaStatus(
                HeadsetProtocol.OTAStatus(
                    receivedBytes: UInt32(clamping: receivedBytes), nextPacket: UInt16(clamping: nextPacket)))
        }
    }

    /// Takes one OTA data packet (`84`); returns the OTA error reports to send: `0C` (resend
    /// from, after a reorder-buffer overflow or without one) or `0F` per missing packet.
    func receive(_ data: HeadsetProtocol.OTAData) async -> [HeadsetDeviceMessage] {
        var packet = OTAPacket(number: data.packet, payload: data.data, crc32: data.crc32)
        switch injectFault(into: &packet) {
        case .drop: return []
        case .deliver: break
        }
        let outcome: OTAPacketOutcome
        do {
            outcome = try await flash.receive(packet)
        } catch {
            return []
        }
        return outcome.reports.map { report in
            switch report {
            case .resendFrom(let number): .otaResend(packet: UInt16(clamping: number))
            case .resend(let number): .otaResendPacket(UInt16(clamping: number))
            }
        }
    }

    /// The answer to OTA commit (`86`): `0B` success, restart failure, or failure.
    func commit() -> (HeadsetDeviceMessage, OTACommitOutcome?) {
        let outcome: OTACommitOutcome
        do {
            outcome = try flash.commit()
        } catch {
            return (.otaResult(.restartFailure), nil)
        }
        switch outcome {
        case .installed: return (.otaResult(.success), outcome)
        case .failed(.restartFailure): return (.otaResult(.restartFailure), outcome)
        case .failed: return (.otaResult(.failure), outcome)
        }
    }

    /// The answer to OTA abort (`87`).
    func abort() -> HeadsetDeviceMessage {
        do {
            try flash.abort()
            return .otaResult(.aborted)
        } catch {
            return .otaResult(.failure)
        }
    }

    private enum Fate {
        case deliver
        case drop
    }

    /// Draws whether the packet is faulted; a corrupted one keeps its CRC, so the flash rejects it.
    private func injectFault(into packet: inout OTAPacket) -> Fate {
        guard faultRate > 0 else { return .deliver }
        return random.withLock { random in
            guard Double.random(in: 0..<1, using: &random.generator) < faultRate else { return .deliver }
            if Bool.random(using: &random.generator) || packet.payload.isEmpty {
                random.faults.dropped += 1
                return .drop
            }
            let index = Int.random(in: 0..<packet.payload.count, using: &random.generator)
            packet.payload[index] ^= UInt8.random(in: 1...255, using: &random.generator)
            random.faults.corrupted += 1
            return .deliver
        }
    }
}
