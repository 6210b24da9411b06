import BLE

/// How one app's advertising request is treated in the app's current state.
package enum AdvertisingMode: Sendable, Hashable {
    /// In front: the local name and the service UUIDs.
    case foreground
    /// In the background with `bluetooth-peripheral` (or preserved for a relaunch): no local
    /// name, the service UUIDs in the overflow area.
    case background
    /// In the background without the mode: advertising stops.
    case off
}

/// The phone's one advertisement from what its apps ask (Core Bluetooth Programming Guide,
/// "Core Bluetooth Background Processing for iOS Apps"; `startAdvertising(_:)`: only the local
/// name and the service UUIDs are supported). A pure function of the requests.
package enum AdvertisingComposer {
    /// The longest legacy advertising data (Core 5.4 Vol 4 Part E §7.8.7).
    static let legacyLimit = 31

    /// `requests` in priority order (the most recently foregrounded app first: its name is
    /// the one advertised). Nil when nothing is to be advertised.
    package static func compose(_ requests: [(PhoneAdvertisement, AdvertisingMode)]) -> AdvertisementData? {
        var name: String?
        var listed: [BluetoothUUID] = []
        var overflow: [BluetoothUUID] = []
        for (request, mode) in requests {
            switch mode {
            case .foreground:
                if name == nil { name = request.localName }
                for uuid in request.serviceUUIDs where !listed.contains(uuid) { listed.append(uuid) }
            case .background:
                for uuid in request.serviceUUIDs where !overflow.contains(uuid) { overflow.append(uuid) }
            case .off:
                continue
            }
        }
        guard name != nil || !listed.isEmpty || !overflow.isEmpty else { return nil }
        var data = AdvertisementData(localName: name, serviceUUIDs: listed)
        if !overflow.isEmpty { data.manufacturerData = OverflowArea.manufacturerData(for: overflow) }
        // The name goes to the scan response when it does not fit beside the rest (what Core
        // Bluetooth does: 28 octets of advertising, the name in the scan response).
        if let name, estimatedLength(data) + 2 + name.utf8.count > legacyLimit { data.localNameInScanResponse = true }
        return data
    }

    /// The advertising data's length without the name: Flags, the UUID lists by width, the
    /// manufacturer data.
    static func estimatedLength(_ data: AdvertisementData) -> Int {
        var length = 3
        let short = data.serviceUUIDs.filter { $0.uuid16 != nil }.count
        let long = data.serviceUUIDs.count - short
        if short > 0 { length += 2 + 2 * short }
        if long > 0 { length += 2 + 16 * long }
        if let manufacturer = data.manufacturerData { length += 4 + manufacturer.data.count }
        return length
    }
}
