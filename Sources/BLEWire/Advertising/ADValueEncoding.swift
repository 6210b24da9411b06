extension ADStructure {
    /// The wire form of a typed value (CSS Part A §1).
    ///
    /// UUIDs take the shortest width they have (16, else 32, else 128 bits), so a UUID list of
    /// mixed widths becomes one structure per width, 16-bit first; an empty list becomes one
    /// empty 16-bit list. Service Data uses the shortest width of its UUID. An advertising
    /// interval above 0xFFFF uses Advertising Interval - long. A URI's scheme is replaced by its
    /// code point when the Assigned Numbers table has it, else the URI follows code point 0x01.
    ///
    /// Throws `structureTooLong` when a structure would carry more than 254 data octets and
    /// `invalidStructure` when `.other` carries data its type does not allow.
    public static func structures(for value: ADValue) throws(AdvertisingDataError) -> [ADStructure] {
        switch value {
        case .flags(let flags):
            // Trailing zero octets of Flags are not sent (CSS Part A §1.3.2).
            return [ADStructure(unchecked: .flags, data: flags.rawValue == 0 ? [] : [flags.rawValue])]
        case .serviceUUIDs(let complete, let uuids):
            let types: [ADType] =
                complete
                ? [.completeServiceUUIDs16, .completeServiceUUIDs32, .completeServiceUUIDs128]
                : [.incompleteServiceUUIDs16, .incompleteServiceUUIDs32, .incompleteServiceUUIDs128]
            return try uuidLists(uuids, types: types)
        case .solicitedServiceUUIDs(let uuids):
            return try uuidLists(
                uuids, types: [.solicitedServiceUUIDs16, .solicitedServiceUUIDs32, .solicitedServiceUUIDs128])
        case .localName(let complete, let name):
            return [try checked(complete ? .completeLocalName : .shortenedLocalName, Array(name.utf8))]
        case .txPowerLevel(let dBm):
            return [ADStructure(unchecked: .txPowerLevel, data: [UInt8(bitPattern: dBm)])]
        case .appearance(let appearance):
            var writer = ByteWriter(capacity: 2)
            writer.u16(appearance.rawValue)
            return [ADStructure(unchecked: .appearance, data: writer.bytes[...])]
        case .manufacturerData(let companyID, let data):
            var writer = ByteWriter(capacity: 2 + data.count)
            writer.u16(companyID)
            writer.append(data)
            return [try checked(.manufacturerSpecificData, writer.bytes)]
        case .serviceData(let uuid, let data):
            let width = shortestWidth(uuid)
            let type: ADType = width == 2 ? .serviceData16 : width == 4 ? .serviceData32 : .serviceData128
            var writer = ByteWriter(capacity: width + data.count)
            uuid.encode(into: &writer, width: width)
            writer.append(data)
            return [try checked(type, writer.bytes)]
        case .advertisingInterval(let units):
            var writer = ByteWriter(capacity: 4)
            if units <= 0xFFFF {
                writer.u16(UInt16(units))
                return [ADStructure(unchecked: .advertisingInterval, data: writer.bytes[...])]
            }
            writer.uint(UInt64(units), width: units <= 0xFF_FFFF ? 3 : 4)
            return [ADStructure(unchecked: .advertisingIntervalLong, data: writer.bytes[...])]
        case .leRole(let role):
            return [ADStructure(unchecked: .leRole, data: [role.rawValue])]
        case .uri(let uri):
            let (code, rest) = ADURIScheme.compress(uri)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(3 + rest.utf8.count)
            ADURIScheme.appendUTF8(code, to: &bytes)
            bytes.append(contentsOf: rest.utf8)
            return [try checked(.uri, bytes)]
        case .publicTargetAddresses(let addresses):
            return [try checked(.publicTargetAddress, addressList(addresses))]
        case .randomTargetAddresses(let addresses):
            return [try checked(.randomTargetAddress, addressList(addresses))]
        case .peripheralConnectionIntervalRange(let min, let max):
            var writer = ByteWriter(capacity: 4)
            writer.u16(min)
            writer.u16(max)
            return [ADStructure(unchecked: .peripheralConnectionIntervalRange, data: writer.bytes[...])]
        case .leBluetoothDeviceAddress(let address):
            var writer = ByteWriter(capacity: 7)
            address.address.encode(into: &writer)
            writer.u8(address.type.isRandom ? 0x01 : 0x00)
            return [ADStructure(unchecked: .leBluetoothDeviceAddress, data: writer.bytes[...])]
        case .other(let type, let data):
            return [try checked(type, Array(data))]
        }
    }

    /// The wire form of a value that fits one structure. Throws `severalStructuresNeeded` for a
    /// UUID list of mixed widths (use `structures(for:)`), and as `structures(for:)` does.
    public init(_ value: ADValue) throws(AdvertisingDataError) {
        let structures = try ADStructure.structures(for: value)
        guard structures.count == 1, let only = structures.first else {
            throw .severalStructuresNeeded(count: structures.count)
        }
        self = only
    }

    /// 2 for a UUID with a 16-bit alias, 4 for one with only a 32-bit alias, else 16.
    static func shortestWidth(_ uuid: BluetoothUUID) -> Int {
        uuid.uuid16 != nil ? 2 : uuid.uuid32 != nil ? 4 : 16
    }

    private static func checked(_ type: ADType, _ data: [UInt8]) throws(AdvertisingDataError)
        -> ADStructure
    {
        if data.count > maximumDataLength {
            throw .structureTooLong(type: type, dataOctets: data.count)
        }
        do {
            try validate(type: type, data: data[...], context: "AD Structure", at: 0)
        } catch {
            throw .invalidStructure(error)
        }
        return ADStructure(unchecked: type, data: data[...])
    }

    private static func uuidLists(_ uuids: [BluetoothUUID], types: [ADType]) throws(AdvertisingDataError)
        -> [ADStructure]
    {
        var result: [ADStructure] = []
        for (index, width) in [2, 4, 16].enumerated() {
            let group = uuids.filter { shortestWidth($0) == width }
            if group.isEmpty { continue }
            var writer = ByteWriter(capacity: group.count * width)
            for uuid in group { uuid.encode(into: &writer, width: width) }
            result.append(try checked(types[index], writer.bytes))
        }
        if result.isEmpty { result.append(ADStructure(unchecked: types[0], data: [])) }
        return result
    }

    private static func addressList(_ addresses: [BluetoothAddress]) -> [UInt8] {
        var writer = ByteWriter(capacity: addresses.count * 6)
        for address in addresses { address.encode(into: &writer) }
        return writer.bytes
    }
}
