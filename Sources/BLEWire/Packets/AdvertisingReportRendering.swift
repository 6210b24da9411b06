/// Advertising reports render their data as AD structures when it decodes (the usual case),
/// so `ble decode` and logs show names and UUIDs rather than hex.
extension LEMetaEvent.AdvertisingReport.Report: CustomRendering {
    public var rendered: RenderedValue {
        .object(
            name: nil,
            fields: [
                ("eventType", eventType.rendered),
                ("address", address.rendered),
                ("data", Self.renderAdvertisingData(data)),
                ("rssi", .integer(Int64(rssi))),
            ])
    }

    static func renderAdvertisingData(_ data: ArraySlice<UInt8>) -> RenderedValue {
        if let decoded = try? AdvertisingData(decoding: data) { return decoded.rendered }
        return .bytes(Array(data))
    }
}
