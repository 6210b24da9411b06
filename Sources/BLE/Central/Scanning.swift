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
    /// Advertisers already reported (when duplicates are filtered).
    private var reported: Set<LEAddress> = []

    init(services: [BluetoothUUID]?, options: ScanOptions) {
        self.services = services
        self.options = options
    }

    /// What one advertising report adds to the scan's results. A report whose data does not
    /// decode as AD structures (CSS Part A) is dropped.
    mutating func receive(_ report: LEMetaEvent.AdvertisingReport.Report) -> [Found] {
        guard let data = try? AdvertisingData(decoding: report.data) else { return [] }
        let address = report.address
        switch report.eventType {
        case .advInd, .advScanInd:
            let connectable = report.eventType == .advInd
            guard options.active else {
                let advertisement = AdvertisementData(advertising: data, scanResponse: nil, isConnectable: connectable)
                return admit(Found(address: address, advertisement: advertisement, rssi: report.rssi))
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
            held[address] = (data, connectable, report.rssi)
            return results
        case .scanRsp:
            guard let advertisement = held.removeValue(forKey: address) else { return [] }
            return admit(
                Found(
                    address: address,
                    advertisement: .init(
                        advertising: advertisement.data, scanResponse: data, isConnectable: advertisement.connectable),
                    rssi: report.rssi))
        case .advDirectInd, .advNonconnInd, .other:
            let connectable = report.eventType == .advDirectInd
            return admit(
                Found(
                    address: address,
                    advertisement: .init(advertising: data, scanResponse: nil, isConnectable: connectable),
                    rssi: report.rssi))
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
