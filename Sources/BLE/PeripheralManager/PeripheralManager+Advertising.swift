import BLEHost
import BLEWire

/// Advertising (Core 5.4 Vol 3 Part C §9.2–§9.3, §11; Vol 4 Part E §7.8.5–§7.8.9), Core
/// Bluetooth's `startAdvertising(_:)`, `stopAdvertising()` and `isAdvertising`.
extension PeripheralManager {
    /// Advertising_Interval_Min/Max, 0.625 ms units: 100 ms.
    static let advertisingInterval: UInt16 = 0x00A0

    /// Starts advertising `advertisementData` — local name, service UUIDs, manufacturer and
    /// service data, Tx Power Level — in one legacy advertising PDU, connectable unless
    /// `isConnectable` is false; the local name goes in the scan response with
    /// `localNameInScanResponse`. More than 31 octets throws `.advertisingDataTooLong` with the
    /// builder's error naming the overflow, before anything is sent. Advertising again replaces
    /// the data.
    public func startAdvertising(_ advertisementData: AdvertisementData) async throws(BLEError) {
        try checkPoweredOn()
        let data: AdvertisingData
        let scanResponse: AdvertisingData?
        do {
            (data, scanResponse) = try advertisementData.legacyAdvertisingPayloads()
        } catch {
            throw .advertisingDataTooLong(error)
        }
        let hadScanResponse = advertisement?.scanResponseData != nil
        let host = stack.host
        do {
            // Parameters cannot change while advertising (Vol 4 Part E §7.8.5).
            if advertisement != nil {
                advertisement = nil
                try await host.send(HCI.LESetAdvertisingEnable(advertisingEnable: false))
            }
            try await host.send(
                HCI.LESetAdvertisingParameters(
                    advertisingIntervalMin: Self.advertisingInterval, advertisingIntervalMax: Self.advertisingInterval,
                    advertisingType: advertisementData.isConnectable
                        ? .connectableUndirected : .nonConnectableUndirected,
                    ownAddressType: host.ownAddressType
                ))
            try await host.send(HCI.LESetAdvertisingData(advertisingData: data.encoded))
            if scanResponse != nil || hadScanResponse {
                // Vol 4 Part E §7.8.8; empty clears an earlier advertisement's.
                try await host.send(HCI.LESetScanResponseData(scanResponseData: (scanResponse?.encoded ?? [])[...]))
            }
            try await host.send(HCI.LESetAdvertisingEnable(advertisingEnable: true))
        } catch {
            throw .host(error)
        }
        var advertised = advertisementData
        advertised.advertisingData = data
        advertised.scanResponseData = scanResponse
        advertisement = advertised
    }

    /// Stops advertising.
    public func stopAdvertising() async {
        guard advertisement != nil else { return }
        advertisement = nil
        _ = try? await stack.host.send(HCI.LESetAdvertisingEnable(advertisingEnable: false))
    }

    /// Whether the manager advertises (from `startAdvertising` to `stopAdvertising`).
    public var isAdvertising: Bool { advertisement != nil }
}
