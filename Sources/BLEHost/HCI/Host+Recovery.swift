import BLETransport
import BLEWire

/// Bringing a controller back: after an HCI Hardware Error, and after the transport to it was
/// lost and opened again (a dongle unplugged and plugged back, a controller process restarted).
extension Host {
    /// Recovers from an HCI Hardware Error (Core 5.4 Vol 4 Part E §7.7.16: the controller
    /// failed and its state is gone): every link is reported down with Hardware Failure (0x03),
    /// as the controller will not say so itself, then HCI Reset and the initialisation sequence
    /// run again (§7.3.2, §3).
    package func resetAfterHardwareError() async throws(HostError) {
        guard case .running = runState else { throw .stopped }
        logger.error("the controller reported a hardware error; resetting it")
        for handle in connections.keys.sorted() { linkDown(handle, reason: .hardwareFailure) }
        try await initialize()
    }

    /// Starts again on `transport` after the previous one was lost (`lostTransport`): what the
    /// host knew of the old controller is forgotten, and `start()` runs the initialisation
    /// sequence on the new one. The event observer must be set again (`observeEvents`), as
    /// the loss ended it; the `events` stream stays ended.
    package func reattach(_ transport: any HCITransport) async throws(HostError) {
        guard case .stopped = runState, lostTransport != nil else { throw .stopped }
        self.transport = transport
        inPlaceTransport = transport as? any InPlaceHCITransport
        (outgoingPackets, outgoing) = EventStream.makeStream(of: H4Packet.self)
        lostTransport = nil
        commandFlow = CommandFlow()
        acl = ACLScheduler(commandQueueLimit: configuration.transmitQueueLimit)
        reassembler = L2CAPReassembler()
        earlyACL = []
        connections = [:]
        bearers = [:]
        linkControl = LinkControl()
        readinessInterest = 0
        controllerInfo = ControllerInfo()
        runState = .idle
        try await start()
    }
}
