import BLEHost
import BLEWire

/// What to send the controller for one advertisement: a value computed from the data, the
/// options and what the controller can do, without I/O (`PeripheralManager+Advertising.swift`
/// sends it). Every misuse — data too long, an interval out of range, extended PDUs on a
/// controller without them — is a typed error here, before any command goes out.
struct AdvertisingPlan: Equatable {
    /// The command family (Core 5.4 Vol 4 Part E §3.1.1): once a host has used one, the other
    /// is disallowed until Reset, so a controller that supports extended advertising is always
    /// driven with the extended commands — legacy PDUs included — and never with the legacy ones.
    enum Family: Equatable {
        case legacy
        case extended
    }

    /// The one advertising set used (Advertising_Handle, §7.8.53).
    static let setHandle: UInt8 = 0
    /// Interval limits in 0.625 ms units: §7.8.5 (legacy) and §7.8.53 (extended).
    static let legacyIntervals: ClosedRange<UInt32> = 0x0020...0x4000
    static let extendedIntervals: ClosedRange<UInt32> = 0x0020...0xFF_FFFF
    /// The data one AUX_ADV_IND carries for a connectable set, which cannot chain (Vol 6 Part B
    /// §4.4.2.7): 255 octets of payload less the extended header (§2.3.4) — its length and
    /// AdvMode octet, flags, AdvA and ADI.
    static let connectableExtendedDataLength = 255 - 10

    let family: Family
    /// Extended advertising PDUs rather than legacy ones.
    let extendedPDUs: Bool
    let isConnectable: Bool
    let isScannable: Bool
    let data: AdvertisingData
    let scanResponse: AdvertisingData?
    /// In 0.625 ms units.
    let interval: ClosedRange<UInt32>

    /// - Parameters:
    ///   - extendedCommands: the controller supports LE Extended Advertising.
    ///   - maximumDataLength: its Max_Advertising_Data_Length (§7.8.57).
    init(
        _ advertisement: AdvertisementData, options: AdvertisingOptions, extendedCommands: Bool, maximumDataLength: Int
    ) throws(BLEError) {
        family = extendedCommands ? .extended : .legacy
        let legacy: Result<(AdvertisingData, AdvertisingData?), AdvertisingDataError>
        do throws(AdvertisingDataError) {
            let (data, response) = try advertisement.legacyAdvertisingPayloads()
            legacy = .success((data, response))
        } catch {
            legacy = .failure(error)
        }
        switch options.format {
        case .legacy:
            extendedPDUs = false
        case .automatic:
            if case .failure(let error) = legacy, !extendedCommands { throw .advertisingDataTooLong(error) }
            extendedPDUs = (try? legacy.get()) == nil
        case .extended:
            guard extendedCommands else { throw .featureUnsupported(.extendedAdvertising) }
            extendedPDUs = true
        }
        isConnectable = advertisement.isConnectable
        if extendedPDUs {
            isScannable = !isConnectable && options.isScannable == true
            var limit = min(AdvertisingData.extendedMaximumLength, maximumDataLength)
            if isConnectable { limit = min(limit, Self.connectableExtendedDataLength) }
            let whole: AdvertisingData
            do throws(AdvertisingDataError) {
                whole = try advertisement.payload(limit: .custom(limit))
            } catch {
                throw .advertisingDataTooLong(error)
            }
            // A scannable extended set has no advertising data: it is all in the scan
            // response (§7.8.54).
            (data, scanResponse) = isScannable ? (AdvertisingData(), whole) : (whole, nil)
        } else {
            let (data, response): (AdvertisingData, AdvertisingData?)
            switch legacy {
            case .success(let payloads): (data, response) = payloads
            case .failure(let error): throw .advertisingDataTooLong(error)
            }
            self.data = data
            scanResponse = response
            // ADV_IND is scannable; ADV_SCAN_IND or ADV_NONCONN_IND otherwise (Vol 6 Part B §2.3.1).
            isScannable = isConnectable || (options.isScannable ?? (response != nil))
        }
        let allowed = extendedCommands ? Self.extendedIntervals : Self.legacyIntervals
        guard let minimum = Self.units(options.minimumInterval), let maximum = Self.units(options.maximumInterval),
            allowed.contains(minimum), allowed.contains(maximum), minimum <= maximum
        else {
            throw .advertisingIntervalOutOfRange(
                allowed: Self.duration(allowed.lowerBound)...Self.duration(allowed.upperBound))
        }
        interval = minimum...maximum
    }

    /// A duration in 0.625 ms units, rounded down; nil when negative or beyond 32 bits.
    static func units(_ duration: Duration) -> UInt32? {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0, seconds < 3_000_000 else { return nil }
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return UInt32(exactly: microseconds / 625)
    }

    static func duration(_ units: UInt32) -> Duration { .microseconds(Int64(units) * 625) }

    // MARK: Legacy commands (Vol 4 Part E §7.8.5–§7.8.9)

    func legacyParameters(ownAddressType: HCI.OwnAddressType) -> HCI.LESetAdvertisingParameters {
        let type: HCI.AdvertisingType =
            isConnectable ? .connectableUndirected : isScannable ? .scannableUndirected : .nonConnectableUndirected
        return HCI.LESetAdvertisingParameters(
            advertisingIntervalMin: UInt16(interval.lowerBound), advertisingIntervalMax: UInt16(interval.upperBound),
            advertisingType: type, ownAddressType: ownAddressType)
    }

    // MARK: Extended commands (Vol 4 Part E §7.8.53–§7.8.56)

    /// Advertising_Event_Properties (§7.8.53): legacy PDUs name their legacy type (ADV_IND is
    /// connectable and scannable); extended ones are connectable, scannable or neither.
    var eventProperties: HCI.AdvertisingEventProperties {
        var properties: HCI.AdvertisingEventProperties = extendedPDUs ? [] : .legacy
        if isConnectable { properties.insert(.connectable) }
        if isScannable { properties.insert(.scannable) }
        return properties
    }

    func extendedParameters(ownAddressType: HCI.OwnAddressType) -> HCI.LESetExtendedAdvertisingParameters {
        HCI.LESetExtendedAdvertisingParameters(
            advertisingHandle: Self.setHandle, advertisingEventProperties: eventProperties,
            primaryAdvertisingIntervalMin: interval.lowerBound, primaryAdvertisingIntervalMax: interval.upperBound,
            ownAddressType: ownAddressType)
    }

    /// The data in operations of at most 251 octets (§7.8.54): first, intermediate, last —
    /// or one complete; none when there is no data (a new set has none).
    var extendedDataCommands: [HCI.LESetExtendedAdvertisingData] {
        Self.fragments(of: data.encoded).map {
            HCI.LESetExtendedAdvertisingData(
                advertisingHandle: Self.setHandle, operation: $0.operation, advertisingData: $0.octets)
        }
    }

    /// The scan response likewise (§7.8.55).
    var extendedScanResponseCommands: [HCI.LESetExtendedScanResponseData] {
        Self.fragments(of: scanResponse?.encoded ?? []).map {
            HCI.LESetExtendedScanResponseData(
                advertisingHandle: Self.setHandle, operation: $0.operation, scanResponseData: $0.octets)
        }
    }

    static func fragments(of octets: [UInt8]) -> [(operation: HCI.AdvertisingDataOperation, octets: ArraySlice<UInt8>)]
    {
        let size = HCI.LESetExtendedAdvertisingData.maximumFragmentLength
        guard octets.count > size else { return octets.isEmpty ? [] : [(.completeData, octets[...])] }
        let starts = Array(stride(from: 0, to: octets.count, by: size))
        return starts.enumerated().map { index, start in
            let operation: HCI.AdvertisingDataOperation =
                index == 0 ? .firstFragment : index == starts.count - 1 ? .lastFragment : .intermediateFragment
            return (operation, octets[start..<min(start + size, octets.count)])
        }
    }
}
