import BLEWire

/// Manufacturer Specific Data (Core Specification Supplement Part A §1.4): a company
/// identifier from the Assigned Numbers and the octets after it.
public struct ManufacturerData: Sendable, Hashable {
    public var companyIdentifier: UInt16
    public var data: [UInt8]

    public init(companyIdentifier: UInt16, data: [UInt8]) {
        self.companyIdentifier = companyIdentifier
        self.data = data
    }
}

/// Advertising data with Core Bluetooth's keys (`CBAdvertisementData…Key`), decoded from the
/// AD structures of an advertising PDU and its scan response (Core 5.4 Vol 3 Part C §11; CSS
/// Part A §1), or given to `PeripheralManager.startAdvertising(_:)`.
public struct AdvertisementData: Sendable, Hashable {
    /// Complete or Shortened Local Name (CSS Part A §1.2).
    public var localName: String?
    /// Service UUIDs, complete and incomplete lists of every width (CSS Part A §1.1).
    public var serviceUUIDs: [BluetoothUUID]
    /// Service Solicitation UUIDs (CSS Part A §1.10).
    public var solicitedServiceUUIDs: [BluetoothUUID]
    /// Manufacturer Specific Data (CSS Part A §1.4); the first such structure.
    public var manufacturerData: ManufacturerData?
    /// Service Data by service UUID (CSS Part A §1.11).
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// Tx Power Level in dBm (CSS Part A §1.5).
    public var txPowerLevel: Int8?
    /// Whether the advertising is connectable: ADV_IND or ADV_DIRECT_IND when discovered
    /// (Vol 6 Part B §2.3.1); what `startAdvertising` sends.
    public var isConnectable: Bool
    /// Send the local name in the scan response instead of the advertising PDU, leaving the
    /// PDU's 31 octets to the other keys (what Core Bluetooth does when they fill it).
    public var localNameInScanResponse = false
    /// The advertising PDU's data as received, every structure (empty for data to advertise).
    public internal(set) var advertisingData: AdvertisingData
    /// The scan response's data as received, when there was one.
    public internal(set) var scanResponseData: AdvertisingData?

    public init(
        localName: String? = nil, serviceUUIDs: [BluetoothUUID] = [], solicitedServiceUUIDs: [BluetoothUUID] = [],
        manufacturerData: ManufacturerData? = nil, serviceData: [BluetoothUUID: [UInt8]] = [:],
        txPowerLevel: Int8? = nil, isConnectable: Bool = true
    ) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.solicitedServiceUUIDs = solicitedServiceUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.txPowerLevel = txPowerLevel
        self.isConnectable = isConnectable
        advertisingData = AdvertisingData()
        scanResponseData = nil
    }

    /// Decodes the keys from an advertising PDU's data and its scan response's: the values of
    /// both, the advertising PDU's first (a Complete Local Name wins over a Shortened one).
    init(advertising: AdvertisingData, scanResponse: AdvertisingData?, isConnectable: Bool) {
        self.init(isConnectable: isConnectable)
        advertisingData = advertising
        scanResponseData = scanResponse
        var completeName: String?
        var shortenedName: String?
        for value in advertising.values + (scanResponse?.values ?? []) {
            switch value {
            case .localName(let complete, let name):
                if complete { completeName = completeName ?? name } else { shortenedName = shortenedName ?? name }
            case .serviceUUIDs(_, let uuids):
                for uuid in uuids where !serviceUUIDs.contains(uuid) { serviceUUIDs.append(uuid) }
            case .solicitedServiceUUIDs(let uuids):
                for uuid in uuids where !solicitedServiceUUIDs.contains(uuid) { solicitedServiceUUIDs.append(uuid) }
            case .manufacturerData(let company, let data):
                if manufacturerData == nil {
                    manufacturerData = ManufacturerData(companyIdentifier: company, data: Array(data))
                }
            case .serviceData(let uuid, let data):
                if serviceData[uuid] == nil { serviceData[uuid] = Array(data) }
            case .txPowerLevel(let level):
                txPowerLevel = txPowerLevel ?? level
            default:
                continue
            }
        }
        localName = completeName ?? shortenedName
    }

    /// The legacy advertising PDU's data for these keys (Vol 3 Part C §11): Flags (LE General
    /// Discoverable, BR/EDR Not Supported, CSS Part A §1.3), the service UUIDs, solicited
    /// services, service data (in UUID order), manufacturer data, Tx Power Level, and the local
    /// name as a Complete Local Name — within 31 octets, or the builder's error naming the
    /// overflow.
    func legacyAdvertisingData(includingName: Bool = true) throws(AdvertisingDataError) -> AdvertisingData {
        try payload(includingName: includingName, limit: .legacy)
    }

    /// The same structures within `limit` (extended advertising: up to 1,650 octets, Vol 4
    /// Part E §7.8.54).
    func payload(includingName: Bool = true, limit: AdvertisingDataBuilder.Limit)
        throws(AdvertisingDataError) -> AdvertisingData
    {
        var builder = AdvertisingDataBuilder()
        try builder.append(.flags(.leOnlyGeneralDiscoverable))
        if !serviceUUIDs.isEmpty { try builder.append(.serviceUUIDs(complete: true, serviceUUIDs)) }
        if !solicitedServiceUUIDs.isEmpty { try builder.append(.solicitedServiceUUIDs(solicitedServiceUUIDs)) }
        for (uuid, data) in serviceData.sorted(by: { $0.key < $1.key }) {
            try builder.append(.serviceData(uuid, data: data[...]))
        }
        if let manufacturerData {
            try builder.append(
                .manufacturerData(companyID: manufacturerData.companyIdentifier, data: manufacturerData.data[...]))
        }
        if let txPowerLevel { try builder.append(.txPowerLevel(txPowerLevel)) }
        if includingName, let localName { try builder.append(.localName(complete: true, localName)) }
        return try builder.build(limit: limit)
    }

    /// The advertising PDU's data and, with `localNameInScanResponse`, the scan response
    /// carrying the local name (a scanner asks for it with a SCAN_REQ, Vol 6 Part B §2.3.2).
    package func legacyAdvertisingPayloads() throws(AdvertisingDataError) -> (AdvertisingData, scanResponse: AdvertisingData?) {
        guard localNameInScanResponse, let localName else { return (try legacyAdvertisingData(), nil) }
        let advertising = try legacyAdvertisingData(includingName: false)
        var response = AdvertisingDataBuilder()
        try response.append(.localName(complete: true, localName))
        return (advertising, try response.build(limit: .legacy))
    }
}
