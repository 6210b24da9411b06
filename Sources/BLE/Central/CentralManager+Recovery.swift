import BLEHost
import BLETransport

/// The central's controller going and coming back (Core Bluetooth's `.resetting`,
/// `.poweredOff`, `.poweredOn`).
extension CentralManager {
    /// Attaches a new transport to the controller after the old one was lost (`lostTransport`:
    /// a dongle re-plugged, a controller process restarted, a socket re-opened): the state goes
    /// `.resetting` while the host initialises the controller, then `.poweredOn`. The links of
    /// the old transport were reported `.disconnected` when it was lost; connect again. The
    /// new transport is not captured even when the manager's radio was.
    public func reattach(_ transport: any HCITransport) async throws(BLEError) {
        try await runReattach(transport)
    }

    /// An HCI Hardware Error (Core 5.4 Vol 4 Part E §7.7.16): `.resetting`; the scan ends,
    /// pending connection attempts fail (Hardware Failure, 0x03), every link is reported
    /// `.disconnected`; the controller is reset and the manager returns to the state before.
    /// Runs on a task of its own, so the link-down events flow while the reset goes on.
    func hardwareErrorReported(_ code: UInt8) {
        stack.spawn { [weak self] in
            guard let self else { return }
            await self.recoverFromHardwareError(code) {
                await self.stopForControllerReset()
            }
        }
    }

    /// What the controller's reset ends: the scan, the pending attempts.
    private func stopForControllerReset() {
        let active = scan
        scan = nil
        controllerScanning = false
        active?.continuation.finish()
        failAttemptsControllerLost()
    }
}
