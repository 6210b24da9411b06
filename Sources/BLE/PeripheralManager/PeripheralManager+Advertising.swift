import BLEHost
import BLEWire

/// What the manager knows about its controller's advertising.
struct AdvertisingCommands {
    /// The controller's Max_Advertising_Data_Length (Core 5.4 Vol 4 Part E §7.8.57), read the
    /// first time extended advertising is planned.
    var maximumDataLength: Int?
    /// Whether advertising set 0 may exist in the controller (extended commands).
    var setMayExist = false
    /// The family the advertising running now was enabled with.
    var running: AdvertisingPlan.Family?
}

/// Advertising (Core 5.4 Vol 3 Part C §9.2–§9.3, §11; Vol 4 Part E §7.8.5–§7.8.9 legacy,
/// §7.8.53–§7.8.57 extended), Core Bluetooth's `startAdvertising(_:)`, `stopAdvertising()` and
/// `isAdvertising`.
extension PeripheralManager {
    /// Starts advertising `advertisementData` — local name, service UUIDs, manufacturer and
    /// service data, Tx Power Level — connectable unless `isConnectable` is false; the local
    /// name goes in the scan response with `localNameInScanResponse`. `options` sets the
    /// interval, whether it is scannable and the PDUs (`AdvertisingOptions`): by default legacy
    /// PDUs every 100 ms, or extended ones when the data does not fit 31 octets and the
    /// controller supports LE Extended Advertising.
    ///
    /// Throws before anything is sent: `.advertisingDataTooLong` with the builder's error
    /// naming the overflow when the data exceeds what the PDUs carry (31 octets legacy; extended,
    /// the controller's maximum up to 1,650 octets, and one AUX_ADV_IND's 245 when connectable);
    /// `.featureUnsupported(.extendedAdvertising)` when extended PDUs are asked of a controller
    /// without them; `.advertisingIntervalOutOfRange`. Advertising again replaces the data.
    public func startAdvertising(
        _ advertisementData: AdvertisementData, options: AdvertisingOptions = AdvertisingOptions()
    ) async throws(BLEError) {
        try checkPoweredOn()
        let extendedCommands = stack.supports(.extendedAdvertising)
        let host = stack.host
        var maximumDataLength = AdvertisingData.extendedMaximumLength
        if extendedCommands {
            do {
                maximumDataLength = try await readMaximumAdvertisingDataLength()
            } catch {
                throw .host(error)
            }
        }
        let plan = try AdvertisingPlan(
            advertisementData, options: options, extendedCommands: extendedCommands,
            maximumDataLength: maximumDataLength)
        do {
            switch plan.family {
            case .legacy: try await startLegacy(plan, on: host)
            case .extended: try await startExtended(plan, on: host)
            }
        } catch {
            throw .host(error)
        }
        var advertised = advertisementData
        advertised.advertisingData = plan.data
        advertised.scanResponseData = plan.scanResponse
        advertisement = advertised
        advertising.running = plan.family
    }

    /// Stops advertising.
    public func stopAdvertising() async {
        guard advertisement != nil else { return }
        advertisement = nil
        _ = try? await sendAdvertisingEnable(false)
        advertising.running = nil
    }

    /// Whether the manager advertises (from `startAdvertising` to `stopAdvertising`).
    public var isAdvertising: Bool { advertisement != nil }

    /// Enables the advertising again after a connection stopped it (connectable advertising
    /// ends when a connection is made, Vol 6 Part B §4.4.2.3; an extended set reports it, Vol 4
    /// Part E §7.7.65.18).
    func resumeAdvertising() async throws(HostError) {
        try await sendAdvertisingEnable(true)
    }

    private func sendAdvertisingEnable(_ enable: Bool) async throws(HostError) {
        switch advertising.running {
        case .extended?:
            try await stack.host.send(
                HCI.LESetExtendedAdvertisingEnable(
                    enable: enable, sets: [.init(advertisingHandle: AdvertisingPlan.setHandle)]))
        case .legacy?, nil:
            try await stack.host.send(HCI.LESetAdvertisingEnable(advertisingEnable: enable))
        }
    }

    /// LE Read Maximum Advertising Data Length (§7.8.57), asked once.
    private func readMaximumAdvertisingDataLength() async throws(HostError) -> Int {
        if let known = advertising.maximumDataLength { return known }
        let length = Int(try await stack.host.send(HCI.LEReadMaximumAdvertisingDataLength()).maxAdvertisingDataLength)
        advertising.maximumDataLength = length
        return length
    }

    private func startLegacy(_ plan: AdvertisingPlan, on host: Host) async throws(HostError) {
        let hadScanResponse = advertisement?.scanResponseData != nil
        // Parameters cannot change while advertising (Vol 4 Part E §7.8.5).
        if advertisement != nil {
            advertisement = nil
            try await host.send(HCI.LESetAdvertisingEnable(advertisingEnable: false))
        }
        // A private address renewal the controller refused while advertising is made now.
        await host.prepareOwnAddress()
        try await host.send(plan.legacyParameters(ownAddressType: host.ownAddressType))
        try await host.send(HCI.LESetAdvertisingData(advertisingData: plan.data.encoded))
        if plan.scanResponse != nil || hadScanResponse {
            // Vol 4 Part E §7.8.8; empty clears an earlier advertisement's.
            try await host.send(HCI.LESetScanResponseData(scanResponseData: (plan.scanResponse?.encoded ?? [])[...]))
        }
        try await host.send(HCI.LESetAdvertisingEnable(advertisingEnable: true))
    }

    /// A fresh set 0 each time: its properties may not carry the old set's data (§7.8.53), so
    /// the old one is disabled and removed (§7.8.59) first.
    private func startExtended(_ plan: AdvertisingPlan, on host: Host) async throws(HostError) {
        let set = AdvertisingPlan.setHandle
        if advertisement != nil {
            advertisement = nil
            try await host.send(
                HCI.LESetExtendedAdvertisingEnable(enable: false, sets: [.init(advertisingHandle: set)]))
        }
        if advertising.setMayExist {
            // Unknown Advertising Identifier when the controller has no such set: nothing to remove.
            _ = try? await host.send(HCI.LERemoveAdvertisingSet(advertisingHandle: set))
            advertising.setMayExist = false
        }
        await host.prepareOwnAddress()
        let ownAddressType = await host.ownAddressType
        advertising.setMayExist = true
        try await host.send(plan.extendedParameters(ownAddressType: ownAddressType))
        if ownAddressType == .random {
            // A set advertises from its own random address (§7.8.52), not LE Set Random
            // Address's: the host's current one, renewed with it under privacy.
            try await host.useCurrentAddress(forAdvertisingSet: set)
        }
        for command in plan.extendedDataCommands { try await host.send(command) }
        for command in plan.extendedScanResponseCommands { try await host.send(command) }
        try await host.send(HCI.LESetExtendedAdvertisingEnable(enable: true, sets: [.init(advertisingHandle: set)]))
    }
}
