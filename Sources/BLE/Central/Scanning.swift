import BLEWire

/// One advertiser found by a scan: Core Bluetooth's `didDiscover(_:advertisementData:rssi:)`.
public struct Discovery: Sendable {
    public let peripheral: Peripheral
    public let advertisementData: AdvertisementData
    /// dBm, as the controller measured the last PDU (Core 5.4 Vol 4 Part E §7.7.65.2); 127
    /// when it could not.
    public let rssi: Int
}

/// How to scan (Core Bluetooth's scan options).
public struct ScanOptions: Sendable, Hashable {
    /// Report every advertisement (`CBCentralManagerScanOptionAllowDuplicatesKey`). Off, each
    /// peripheral is reported once per scan: the host filters, as Core Bluetooth does, so that
    /// the first report can still carry the scan response.
    public var allowDuplicates: Bool
    /// Active scanning (Core 5.4 Vol 6 Part B §4.4.3.2): scan requests fetch the scan
    /// responses of scannable advertisers, as Core Bluetooth does in the foreground.
    public var active: Bool

    public init(allowDuplicates: Bool = false, active: Bool = true) {
        self.allowDuplicates = allowDuplicates
        self.active = active
    }
}

/// The host's side of a scan: pairs each scannable advertisement with its scan response,
/// applies the service filter and, unless duplicates are allowed, reports each advertiser once.
///
/// A value fed the controller's advertising reports (Core 5.4 Vol 4 Part E §7.7.65.2) in
/// order; it returns what to report.
struct ScanSession {
    struct Found: Equatable {
        var address: LEAddress
        var advertisement: AdvertisementData
        var rssi: Int8
    }

    /// Reported only when advertising one of these (nil or empty: everything).
    let services: [BluetoothUUID]?
    let options: ScanOptions
    /// Scannable advertisements waiting for their scan response, by advertiser.
    private var held: [LEAddress: (data: AdvertisingData, connectable: Bool, rssi: Int8)] = [:]
    /// Extended advertising data received so far, by advertiser, while more is to come.
    private var fragments: [LEAddress: [UInt8]] = [:]
    /// Advertisers already reported (when duplicates are filtered).
    private var reported: Set<LEAddress> = []
    /// The last report dropped because its advertising data did not decode, until the manager
    /// has logged it.
    var undecodable: (address: LEAddress, reason: String)?

    init(services: [BluetoothUUID]?, options: ScanOptions) {
        self.services = services
        self.options = options
    }

    /// What a report says about its PDU, for pairing advertisements with scan responses.
    enum ReportKind: Equatable {
        /// A scannable advertisement: a scan response may follow.
        case scannable(connectable: Bool)
        /// An advertisement no scan response follows.
        case unscannable(connectable: Bool)
        case scanResponse
    }

    /// What one advertising report adds to the scan's results. A report whose data does not
    /// decode as AD structures (CSS Part A) is dropped.
    mutating func receive(_ report: LEMetaEvent.AdvertisingReport.Report) -> [Found] {
        let kind: ReportKind
        switch report.eventType {
        case .advInd: kind = .scannable(connectable: true)
        case .advScanInd: kind = .scannable(connectable: false)
        case .scanRsp: kind = .scanResponse
        case .advDirectInd: kind = .unscannable(connectable: true)
        case .advNonconnInd, .other: kind = .unscannable(connectable: false)
        }
        return receive(kind, address: report.address, data: report.data, rssi: report.rssi)
    }

    /// An extended advertising report (Core 5.4 Vol 4 Part E §7.7.65.13). Some controllers send
    /// these even to a host that scans with the legacy commands (Bumble's virtual controller
    /// does). A legacy PDU's event type maps to its legacy report; an extended advertisement's
    /// data may come in fragments (Data_Status "more to come"), joined here before the
    /// advertisement is reported.
    mutating func receive(_ report: LEMetaEvent.ExtendedAdvertisingReport.Report) -> [Found] {
        let type = report.eventType
        let address = report.address
        var data = Array(report.data)
        if let earlier = fragments.removeValue(forKey: address) { data = earlier + data }
        switch type.dataStatus {
        case .incompleteMoreToCome:
            // Bounded: an extended advertisement carries at most 1650 octets (§7.8.54).
            if data.count <= Self.maximumExtendedDataLength { fragments[address] = data }
            return []
        case .complete, .incompleteTruncated, .reserved:
            break
        }
        let connectable = type.contains(.connectable)
        let kind: ReportKind
        if type.contains(.scanResponse) {
            kind = .scanResponse
        } else if type.contains(.scannable) {
            kind = .scannable(connectable: connectable)
        } else {
            kind = .unscannable(connectable: connectable)
        }
        return receive(kind, address: address, data: data[...], rssi: report.rssi)
    }

    /// The longest extended advertising data (Core 5.4 Vol 4 Part E §7.8.54).
    static let maximumExtendedDataLength = 1650

    private mutating func receive(_ kind: ReportKind, address: LEAddress, data bytes: ArraySlice<UInt8>, rssi: Int8)
        -> [Found]
    {
        let data: AdvertisingData
        do {
            data = try AdvertisingData(decoding: bytes)
        } catch {
            undecodable = (address, "\(error)")
            return []
        }
        switch kind {
        case .scannable(let connectable):
            guard options.active else {
                let advertisement = AdvertisementData(advertising: data, scanResponse: nil, isConnectable: connectable)
                return admit(Found(address: address, advertisement: advertisement, rssi: rssi))
            }
            // A scan request follows; its response completes the advertisement. One still held
            // means its response was lost: it is reported as it was.
            var results: [Found] = []
            if let previous = held.removeValue(forKey: address) {
                results = admit(
                    Found(
                        address: address,
                        advertisement: .init(
                            advertising: previous.data, scanResponse: nil, isConnectable: previous.connectable),
                        rssi: previous.rssi))
            }
            held[address] = (data, connectable, rssi)
            return results
        case .scanResponse:
            guard let advertisement = held.removeValue(forKey: address) else { return [] }
            return admit(
                Found(
                    address: address,
                    advertisement: .init(
                        advertising: advertisement.data, scanResponse: data, isConnectable: advertisement.connectable),
                    rssi: rssi))
        case .unscannable(let connectable):
            return admit(
                Found(
                    address: address,
                    advertisement: .init(advertising: data, scanResponse: nil, isConnectable: connectable),
                    rssi: rssi))
        }
    }

    /// Applies the service filter and duplicate filtering.
    private mutating func admit(_ found: Found) -> [Found] {
        if let services, !services.isEmpty,
            !found.advertisement.serviceUUIDs.contains(where: { services.contains($0) })
        {
            return []
        }
        if !options.allowDuplicates, !reported.insert(found.address).inserted { return [] }
        return [found]
    }
}
