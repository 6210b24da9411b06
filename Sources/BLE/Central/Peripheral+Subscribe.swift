import BLEHost

/// Subscribing and listening in one call (Core 5.4 Vol 3 Part G §4.10, §4.11): a peripheral
/// may notify the moment it sees its Client Characteristic Configuration written — before its
/// Write Response reaches this side — and a listener asked for after `setNotifyValue` returns
/// would miss that value.
extension Peripheral {
    /// Enables notifications (or indications) of `characteristic` and returns its values:
    /// the listener is registered before the Client Characteristic Configuration descriptor is
    /// written (§3.3.3.3), so no value sent after the subscription is lost. The stream ends when
    /// the link does; `setNotifyValue(false, for:)` unsubscribes. Throws what `setNotifyValue`
    /// throws (the listener is then dropped).
    public func notifications(for characteristic: Characteristic) async throws(BLEError) -> EventStream<[UInt8]> {
        let values = try values(for: characteristic)
        try await setNotifyValue(true, for: characteristic)
        return values
    }
}
