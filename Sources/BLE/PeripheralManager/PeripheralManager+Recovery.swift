import BLEHost
import BLETransport

/// The peripheral manager's controller going away and coming back, as the central's does
/// (`ManagerRecovery`): Core Bluetooth's `.resetting`, then `.poweredOn` again.
extension PeripheralManager {
    /// Attaches `transport` in place of the one that was lost (the controller re-opened: a
    /// dongle plugged back, a controller process restarted): `.resetting` while the host starts
    /// on it, then `.poweredOn`. The services and L2CAP PSMs stay published (the PSMs are
    /// published again on the new host); advertising must be started again, as after a power
    /// cycle. Throws `.transportInUse` unless the transport was lost.
    public func reattach(_ transport: any HCITransport) async throws(BLEError) {
        try await runReattach(transport)
        await republishL2CAPChannels()
    }

    /// An HCI Hardware Error (Core 5.4 Vol 4 Part E §7.7.16): `.resetting`; advertising ends
    /// (the controller's reset forgets it), every link is reported `.disconnected`; the
    /// controller is reset and the manager returns to the state before. On a task of its own,
    /// so the link-down events flow while the reset goes on.
    func hardwareErrorReported(_ code: UInt8) {
        stack.spawn { [weak self] in
            guard let self else { return }
            await self.recoverFromHardwareError(code) {
                await self.forgetControllerState()
            }
        }
    }

    /// What a controller that reset or went away no longer has: the advertising it ran, and
    /// what was read of it (its maximum advertising data length may differ on the next one).
    func forgetControllerState() {
        advertisement = nil
        advertising = AdvertisingCommands()
    }
}
