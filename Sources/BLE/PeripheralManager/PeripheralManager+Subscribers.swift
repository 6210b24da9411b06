import BLEHost

/// Who listens to a characteristic (Core Bluetooth's `CBMutableCharacteristic.subscribedCentrals`).
extension PeripheralManager {
    /// The centrals subscribed to `characteristic` now, in connection order: those whose last
    /// write of its Client Characteristic Configuration enabled notifications or indications
    /// (Core 5.4 Vol 3 Part G §3.3.3.3). A central leaves the list when it writes 0 or
    /// disconnects (a configuration does not outlive the link without a bond, §3.3.3.3).
    /// Empty for a characteristic this manager did not publish.
    public func subscribedCentrals(for characteristic: Characteristic) -> [Central] {
        guard characteristic.owner == owner else { return [] }
        return subscriptions.keys.sorted().compactMap { handle in
            guard centrals[handle] != nil, subscriptions[handle]?[characteristic.handle] != nil else { return nil }
            return central(handle)
        }
    }
}
