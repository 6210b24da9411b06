import BLE

/// Our model of Apple's advertising "overflow area": where a background `bluetooth-peripheral`
/// app's service UUIDs go, visible only to an iOS device scanning for them (Core Bluetooth
/// Programming Guide, "Core Bluetooth Background Processing for iOS Apps").
///
/// Modelled as Manufacturer Specific Data of Apple's company identifier 0x004C: a type octet
/// 0x01 (as captures of iOS show) and a 16-byte bitmask in which each service UUID sets one
/// bit. Apple does not document its hash; ours — FNV-1a over the UUID's 128-bit form, modulo
/// 128 — is a model, not Apple's function. As with Apple's, bits collide: a scanner for a UUID
/// whose bit another UUID set also matches.
package enum OverflowArea {
    package static let appleCompanyIdentifier: UInt16 = 0x004C
    package static let type: UInt8 = 0x01
    package static let bitmaskLength = 16

    /// The bit a service UUID sets (0–127).
    package static func bit(for uuid: BluetoothUUID) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for word in [uuid.high, uuid.low] {
            for shift in stride(from: 56, through: 0, by: -8) {
                hash ^= (word >> UInt64(shift)) & 0xFF
                hash &*= 0x100_0000_01b3
            }
        }
        return Int(hash % UInt64(bitmaskLength * 8))
    }

    /// The manufacturer data carrying `uuids`.
    package static func manufacturerData(for uuids: [BluetoothUUID]) -> ManufacturerData {
        var mask = [UInt8](repeating: 0, count: bitmaskLength)
        for uuid in uuids {
            let bit = bit(for: uuid)
            mask[bit / 8] |= 1 << UInt8(bit % 8)
        }
        return ManufacturerData(companyIdentifier: appleCompanyIdentifier, data: [type] + mask)
    }

    /// Whether `advertisement`'s overflow area has `uuid`'s bit.
    package static func contains(_ uuid: BluetoothUUID, in advertisement: AdvertisementData) -> Bool {
        guard let data = advertisement.manufacturerData, data.companyIdentifier == appleCompanyIdentifier,
            data.data.count == 1 + bitmaskLength, data.data[0] == type
        else { return false }
        let bit = bit(for: uuid)
        return data.data[1 + bit / 8] & (1 << UInt8(bit % 8)) != 0
    }
}

extension AdvertisementData {
    /// Core Bluetooth's `CBAdvertisementDataOverflowServiceUUIDsKey` as a scanner asking for
    /// `candidates` sees it: those whose bit is set in the advertisement's overflow area.
    public func overflowServiceUUIDs(among candidates: [BluetoothUUID]) -> [BluetoothUUID] {
        candidates.filter { OverflowArea.contains($0, in: self) }
    }
}
