import BLEHost
import BLEWire

/// The link's state and the central's requests to change it (Core 5.4 Vol 4 Part E §7.8.18
/// LE Connection Update, §7.8.33 LE Set Data Length, §7.8.49 LE Set PHY).
extension Peripheral {
    /// The link as it is now; nil when not connected. Changes are reported as `.linkChanged`.
    public var linkParameters: LinkParameters? {
        guard case .connected(let handle) = link else { return nil }
        return stack.inPlace(passing: handle) { $0.connection($1) }.map(LinkParameters.init)
    }

    /// Asks for new connection parameters (LE Connection Update, §7.8.18) and returns the link
    /// once the controller applied them (LE Connection Update Complete, §7.7.65.3).
    @discardableResult
    public func requestConnectionParameters(_ parameters: ConnectionParameters) async throws(BLEError)
        -> LinkParameters
    {
        let handle = try connectedHandle()
        let status: HCIStatus
        do {
            status = try await stack.host.updateConnection(handle, parameters)
        } catch {
            throw .host(error)
        }
        guard status.isSuccess else { throw .host(.commandFailed(HCI.LEConnectionUpdate.opcode, status)) }
        return try currentLink()
    }

    /// Asks for `phy` in both directions (LE Set PHY, §7.8.49) and returns the link once the
    /// PHY update procedure ended (§7.7.65.12); a peer without it leaves the link as it was.
    @discardableResult
    public func requestPHY(_ phy: LinkPHY) async throws(BLEError) -> LinkParameters {
        let handle = try connectedHandle()
        let status: HCIStatus
        do {
            status = try await stack.host.setPHY(handle, tx: phy.hci, rx: phy.hci)
        } catch {
            throw .host(error)
        }
        guard status.isSuccess || status == .unsupportedRemoteFeature else {
            throw .host(.commandFailed(HCI.LESetPHY.opcode, status))
        }
        return try currentLink()
    }

    /// Asks for LL payloads of up to `octets` (27–251) taking up to `time` µs (328–17040; by
    /// default the time of `octets` on LE 1M) (LE Set Data Length, §7.8.33). The controllers
    /// settle on the values both take; a change is reported as `.linkChanged`.
    public func requestDataLength(octets: Int, time: Int? = nil) async throws(BLEError) {
        let handle = try connectedHandle()
        let txTime = time ?? (80 + 8 * (octets + 4))
        do {
            try await stack.host.send(
                HCI.LESetDataLength(
                    connectionHandle: handle, txOctets: UInt16(clamping: octets), txTime: UInt16(clamping: txTime)))
        } catch {
            throw .host(error)
        }
    }

    private func connectedHandle() throws(BLEError) -> ConnectionHandle {
        guard case .connected(let handle) = link else { throw .notConnected }
        return handle
    }

    private func currentLink() throws(BLEError) -> LinkParameters {
        guard let parameters = linkParameters else { throw .notConnected }
        return parameters
    }

    /// The host reported a change of the link (LE Connection Update Complete, PHY Update
    /// Complete, Data Length Change, a new ATT_MTU): listeners get the link as it is now, once
    /// per change — an event that reaches the peripheral after the state it reported was
    /// already seen reports nothing.
    func linkChanged(_ handle: ConnectionHandle) {
        guard link == .connected(handle), let now = linkParameters, now != reportedLink else { return }
        reportedLink = now
        eventListeners.yield(.linkChanged(now))
    }

    /// The link as it is now counts as reported (`connect` returns with it: the app reads it
    /// there, and later events report changes from it).
    func linkSettled() {
        reportedLink = linkParameters
    }
}
