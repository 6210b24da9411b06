import BLE

extension PhonePeripheral {
    /// The longest value one write can carry on the current link (`CBPeripheral
    /// maximumWriteValueLength(for:)`): ATT_MTU − 3 without response (Core 5.4 Vol 3 Part G
    /// §4.9.1), 512 with response. Asked of the system's peripheral in place: no delegate call.
    public func maximumWriteValueLength(for type: WriteType) async -> Int {
        await peripheral.maximumWriteValueLength(for: type)
    }
}
