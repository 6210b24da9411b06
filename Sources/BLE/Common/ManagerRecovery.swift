import BLEHost
import BLETransport

/// A manager's controller coming back (Core Bluetooth's `.resetting` → `.poweredOn`): after an
/// HCI Hardware Error the controller is reset where it is; after the transport was lost, a new
/// one is attached. What both managers share; each stops its own work first.
extension PoweredManager {
    /// After an HCI Hardware Error (Core 5.4 Vol 4 Part E §7.7.16): `.resetting` while the host
    /// reports every link down and resets the controller (HCI Reset and initialisation,
    /// §7.3.2), then back to the state before — or `.unsupported` when the reset fails.
    /// `stopWork` runs first, with the state already `.resetting`. False when no reset was due.
    @discardableResult
    func recoverFromHardwareError(_ code: UInt8, stopWork: () async -> Void) async -> Bool {
        guard power.hardwareError() else { return false }
        stack.host.logger.error("manager: the controller reported hardware error \(code); state \(power.state)")
        await stopWork()
        do {
            try await stack.host.resetAfterHardwareError()
            power.recoveryEnded(succeeded: true)
        } catch {
            stack.host.logger.error("manager: the controller did not come back after its hardware error: \(error)")
            power.recoveryEnded(succeeded: false)
        }
        return true
    }

    /// Attaches `transport` in place of the lost one (the controller re-opened): `.resetting`
    /// while the host starts on it, then `.poweredOn`. Throws `.transportInUse` unless the transport was lost,
    /// or when the host cannot be brought up on the new one (the state is then `.unsupported`).
    func runReattach(_ transport: any HCITransport) async throws(BLEError) {
        guard power.reattach() else {
            if power.isClosed { throw .closed }
            throw .transportInUse
        }
        // The loss ended the event observer: the manager's preparations set it again.
        await prepareHostStart()
        do {
            try await stack.host.reattach(transport)
        } catch {
            power.hostStartEnded(succeeded: false)
            throw .host(error)
        }
        power.hostStartEnded(succeeded: true)
    }
}
