import BLEHost
import BLEWire

/// Scanning and initiating with the legacy or the extended commands (Core 5.4 Vol 4 Part E
/// §3.1.1: a host uses one family until Reset). A controller that supports LE Extended
/// Advertising is driven with the extended ones — LE Set Extended Scan Parameters/Enable
/// (§7.8.64–§7.8.65), LE Extended Create Connection (§7.8.66) — since only an extended scanner
/// hears extended advertising (ADV_EXT_IND, Vol 6 Part B §2.3) and its long data, reported in
/// LE Extended Advertising Reports that `ScanSession` joins; legacy advertising still reaches it,
/// reported with the legacy bit (§7.7.65.13).
extension CentralManager {
    /// Whether this controller is driven with the extended commands.
    var usesExtendedCommands: Bool { stack.supports(.extendedAdvertising) }

    /// Scan parameters for the 1M PHY (the primary advertising channels), interval and window
    /// in 0.625 ms units.
    func sendScanParameters(active: Bool, interval: UInt16, window: UInt16) async throws(HostError) {
        let host = stack.host
        // A private address renewal the controller refused while scanning is made now.
        await host.prepareOwnAddress()
        let ownAddressType = await host.ownAddressType
        if usesExtendedCommands {
            try await host.send(
                HCI.LESetExtendedScanParameters(
                    ownAddressType: ownAddressType,
                    le1M: .init(scanType: active ? .active : .passive, scanInterval: interval, scanWindow: window)))
        } else {
            try await host.send(
                HCI.LESetScanParameters(
                    leScanType: active ? .active : .passive, leScanInterval: interval, leScanWindow: window,
                    ownAddressType: ownAddressType))
        }
    }

    /// Starts or stops scanning; duplicates are never filtered by the controller.
    func sendScanEnable(_ enable: Bool) async throws(HostError) {
        if usesExtendedCommands {
            try await stack.host.send(HCI.LESetExtendedScanEnable(enable: enable))
        } else {
            try await stack.host.send(HCI.LESetScanEnable(leScanEnable: enable, filterDuplicates: false))
        }
    }

    /// LE Create Connection (§7.8.12) or LE Extended Create Connection on the 1M PHY
    /// (§7.8.66) to `peer`, or — nil — to any device on the Filter Accept List (Initiator
    /// Filter Policy 1, Vol 6 Part B §4.3.5).
    func sendCreateConnection(
        to peer: LEAddress?, scanInterval: UInt16, scanWindow: UInt16, parameters: HCI.ConnectionParameters
    ) async throws(HostError) {
        let host = stack.host
        await host.prepareOwnAddress()
        let ownAddressType = await host.ownAddressType
        // A peer the host resolved by itself is sought at the private address it was last seen at.
        let target = await host.initiatorAddress(for: peer ?? LEAddress(.zero, type: .public))
        let filterPolicy: HCI.InitiatorFilterPolicy = peer == nil ? .filterAcceptList : .peerAddress
        let peerAddressType: AddressType = target.type.isRandom ? .random : .public
        if usesExtendedCommands {
            try await host.send(
                HCI.LEExtendedCreateConnection(
                    initiatorFilterPolicy: filterPolicy, ownAddressType: ownAddressType,
                    peerAddressType: peerAddressType, peerAddress: target.address,
                    le1M: .init(scanInterval: scanInterval, scanWindow: scanWindow, connectionParameters: parameters)))
        } else {
            try await host.send(
                HCI.LECreateConnection(
                    leScanInterval: scanInterval, leScanWindow: scanWindow, initiatorFilterPolicy: filterPolicy,
                    peerAddressType: peerAddressType, peerAddress: target.address, ownAddressType: ownAddressType,
                    connectionParameters: parameters))
        }
    }
}
