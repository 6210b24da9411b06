/// The typed meaning of an AD structure (CSS Part A §1). Types without a case here stay
/// `.other(type, data)` with their raw octets.
///
/// Reading a value from an `ADStructure` never fails: the structure's data was checked when it
/// was made. Building structures from a value (`ADStructure.structures(for:)`) picks the shortest
/// UUID width each UUID has, so a list of mixed widths becomes one structure per width.
public enum ADValue: Hashable, Sendable, WireRenderable, CustomRendering {
    /// Flags (CSS Part A §1.3).
    case flags(ADFlags)
    /// Service UUID lists of any width (CSS Part A §1.1); `complete` tells the complete list
    /// types (0x03, 0x05, 0x07) from the incomplete ones.
    case serviceUUIDs(complete: Bool, [BluetoothUUID])
    /// Service Solicitation lists of any width (CSS Part A §1.10).
    case solicitedServiceUUIDs([BluetoothUUID])
    /// Complete (0x09) or Shortened (0x08) Local Name (CSS Part A §1.2). Names are decoded as
    /// UTF-8 with invalid sequences replaced by U+FFFD; the raw octets stay in the structure.
    case localName(complete: Bool, String)
    /// Tx Power Level in dBm (CSS Part A §1.5).
    case txPowerLevel(Int8)
    /// Appearance (CSS Part A §1.12).
    case appearance(ADAppearance)
    /// Manufacturer Specific Data: company identifier and the octets after it (CSS Part A §1.4).
    case manufacturerData(companyID: UInt16, data: ArraySlice<UInt8>)
    /// Service Data for a 16-, 32- or 128-bit UUID (CSS Part A §1.11).
    case serviceData(BluetoothUUID, data: ArraySlice<UInt8>)
    /// Advertising Interval in units of 0.625 ms (CSS Part A §1.15): 16 bits travel as type
    /// 0x1A, longer values as Advertising Interval - long (0x2F, 3 or 4 octets).
    case advertisingInterval(units: UInt32)
    /// LE Role (CSS Part A §1.17).
    case leRole(ADLERole)
    /// URI with its scheme expanded from the Assigned Numbers table (CSS Part A §1.18). URI data
    /// whose scheme code point the table does not have stays `.other`.
    case uri(String)
    /// Public Target Address list (CSS Part A §1.13).
    case publicTargetAddresses([BluetoothAddress])
    /// Random Target Address list (CSS Part A §1.14).
    case randomTargetAddresses([BluetoothAddress])
    /// Peripheral Connection Interval Range in units of 1.25 ms; 0xFFFF means no specific
    /// bound (CSS Part A §1.9).
    case peripheralConnectionIntervalRange(min: UInt16, max: UInt16)
    /// LE Bluetooth Device Address: the address and whether it is public or random
    /// (CSS Part A §1.16).
    case leBluetoothDeviceAddress(LEAddress)
    /// Any other type, raw.
    case other(ADType, data: ArraySlice<UInt8>)

    public var rendered: RenderedValue {
        .object(name: caseName, fields: renderedFields)
    }

    var caseName: String {
        switch self {
        case .flags: "flags"
        case .serviceUUIDs: "serviceUUIDs"
        case .solicitedServiceUUIDs: "solicitedServiceUUIDs"
        case .localName: "localName"
        case .txPowerLevel: "txPowerLevel"
        case .appearance: "appearance"
        case .manufacturerData: "manufacturerData"
        case .serviceData: "serviceData"
        case .advertisingInterval: "advertisingInterval"
        case .leRole: "leRole"
        case .uri: "uri"
        case .publicTargetAddresses: "publicTargetAddresses"
        case .randomTargetAddresses: "randomTargetAddresses"
        case .peripheralConnectionIntervalRange: "peripheralConnectionIntervalRange"
        case .leBluetoothDeviceAddress: "leBluetoothDeviceAddress"
        case .other: "other"
        }
    }

    /// The value's fields, shared by `ADValue` and `ADStructure` renderings.
    var renderedFields: [(String, RenderedValue)] {
        switch self {
        case .flags(let flags):
            return [("flags", flags.rendered)]
        case .serviceUUIDs(let complete, let uuids):
            return [("complete", .bool(complete)), ("uuids", .array(uuids.map(\.rendered)))]
        case .solicitedServiceUUIDs(let uuids):
            return [("uuids", .array(uuids.map(\.rendered)))]
        case .localName(let complete, let name):
            return [("complete", .bool(complete)), ("name", .string(name))]
        case .txPowerLevel(let dBm):
            return [("dBm", .integer(Int64(dBm)))]
        case .appearance(let appearance):
            return [("appearance", appearance.rendered)]
        case .manufacturerData(let companyID, let data):
            return [("companyID", .symbol(Hex.prefixed(companyID, width: 4))), ("data", .bytes(Array(data)))]
        case .serviceData(let uuid, let data):
            return [("uuid", uuid.rendered), ("data", .bytes(Array(data)))]
        case .advertisingInterval(let units):
            return [("units", .unsigned(UInt64(units))), ("ms", .string(Self.milliseconds(units)))]
        case .leRole(let role):
            return [("role", role.rendered)]
        case .uri(let uri):
            return [("uri", .string(uri))]
        case .publicTargetAddresses(let addresses), .randomTargetAddresses(let addresses):
            return [("addresses", .array(addresses.map(\.rendered)))]
        case .peripheralConnectionIntervalRange(let min, let max):
            return [("min", .unsigned(UInt64(min))), ("max", .unsigned(UInt64(max)))]
        case .leBluetoothDeviceAddress(let address):
            return [("address", address.rendered)]
        case .other(let type, let data):
            // Not "type": JSON uses that key for the case name.
            return [("adType", type.rendered), ("data", .bytes(Array(data)))]
        }
    }

    /// 0.625 ms units as milliseconds, exactly ("100.625").
    static func milliseconds(_ units: UInt32) -> String {
        let thousandths = UInt64(units) * 625
        let whole = thousandths / 1000
        var fraction = String(thousandths % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }
}

extension ADStructure {
    /// The typed meaning of this structure. Never fails: the data was checked when the structure
    /// was made, and should it not fit anyway, the raw `.other` form is returned.
    public var value: ADValue {
        let count = data.count
        let start = data.startIndex
        switch type.rawValue {
        case 0x01:
            return .flags(ADFlags(rawValue: data.first ?? 0))
        case 0x02...0x07:
            let width = type.rawValue <= 0x03 ? 2 : type.rawValue <= 0x05 ? 4 : 16
            guard let uuids = Self.uuids(data, width: width) else { break }
            return .serviceUUIDs(complete: type.rawValue & 1 == 1, uuids)
        case 0x14, 0x15, 0x1F:
            let width = type.rawValue == 0x14 ? 2 : type.rawValue == 0x1F ? 4 : 16
            guard let uuids = Self.uuids(data, width: width) else { break }
            return .solicitedServiceUUIDs(uuids)
        case 0x08, 0x09:
            return .localName(complete: type.rawValue == 0x09, String(decoding: data, as: UTF8.self))
        case 0x0A where count == 1:
            return .txPowerLevel(Int8(bitPattern: data[start]))
        case 0x19 where count == 2:
            return .appearance(ADAppearance(rawValue: Self.littleEndian(data, 2)))
        case 0xFF where count >= 2:
            return .manufacturerData(companyID: Self.littleEndian(data, 2), data: data[(start &+ 2)...])
        case 0x16, 0x20, 0x21:
            let width = type.rawValue == 0x16 ? 2 : type.rawValue == 0x20 ? 4 : 16
            guard count >= width, let uuid = Self.uuid(data, at: start, width: width) else { break }
            return .serviceData(uuid, data: data[(start &+ width)...])
        case 0x1A where count == 2:
            return .advertisingInterval(units: UInt32(Self.littleEndian(data, 2) as UInt16))
        case 0x2F where count == 3 || count == 4:
            return .advertisingInterval(units: Self.littleEndian(data, count))
        case 0x1C where count == 1:
            return .leRole(ADLERole(rawValue: data[start]))
        case 0x24:
            guard case .codePoint(let code, let width) = ADURIScheme.lead(of: data) else { break }
            let rest = String(decoding: data[(start &+ width)...], as: UTF8.self)
            if code == ADURIScheme.emptyScheme { return .uri(rest) }
            guard let scheme = ADURIScheme.name(for: code) else { break }
            return .uri(scheme.description + rest)
        case 0x17, 0x18:
            guard count % 6 == 0 else { break }
            var addresses: [BluetoothAddress] = []
            addresses.reserveCapacity(count / 6)
            var index = start
            while index < data.endIndex {
                addresses.append(BluetoothAddress(Self.littleEndian(data[index..<(index &+ 6)], 6)))
                index &+= 6
            }
            return type.rawValue == 0x17
                ? .publicTargetAddresses(addresses) : .randomTargetAddresses(addresses)
        case 0x12 where count == 4:
            return .peripheralConnectionIntervalRange(
                min: Self.littleEndian(data, 2), max: Self.littleEndian(data[(start &+ 2)...], 2))
        case 0x1B where count == 7:
            let address = BluetoothAddress(Self.littleEndian(data, 6) as UInt64)
            // Bit 0 of the last octet: 0 public, 1 random; the other bits are reserved.
            let kind: AddressType = data[start &+ 6] & 0x01 == 0 ? .public : .random
            return .leBluetoothDeviceAddress(LEAddress(address, type: kind))
        default:
            break
        }
        return .other(type, data: data)
    }

    /// The little-endian integer in the first `width` octets of `bytes` (the caller checked the
    /// count).
    @inline(__always)
    static func littleEndian<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>, _ width: Int) -> T {
        var value: T = 0
        var index = bytes.startIndex &+ width
        while index > bytes.startIndex {
            index &-= 1
            value = value << 8 | T(bytes[index])
        }
        return value
    }

    static func uuid(_ bytes: ArraySlice<UInt8>, at index: Int, width: Int) -> BluetoothUUID? {
        let octets = bytes[index..<(index &+ width)]
        switch width {
        case 2: return BluetoothUUID(littleEndian(octets, 2) as UInt16)
        case 4: return BluetoothUUID(uuid32: littleEndian(octets, 4))
        case 16:
            return BluetoothUUID(
                high: littleEndian(octets[(index &+ 8)...], 8), low: littleEndian(octets, 8))
        default: return nil
        }
    }

    static func uuids(_ bytes: ArraySlice<UInt8>, width: Int) -> [BluetoothUUID]? {
        guard bytes.count % width == 0 else { return nil }
        var uuids: [BluetoothUUID] = []
        uuids.reserveCapacity(bytes.count / width)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard let uuid = uuid(bytes, at: index, width: width) else { return nil }
            uuids.append(uuid)
            index &+= width
        }
        return uuids
    }
}
