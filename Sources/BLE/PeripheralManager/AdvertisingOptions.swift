/// How a peripheral manager advertises, besides what (`AdvertisementData`, which also says
/// whether it is connectable): the interval, whether scanners may ask for a scan response, and
/// legacy or extended advertising PDUs.
public struct AdvertisingOptions: Sendable, Hashable {
    /// Which advertising PDUs carry the data (Core 5.4 Vol 6 Part B §2.3).
    public enum Format: Sendable, Hashable {
        /// Legacy PDUs when the data fits their 31 octets; extended ones when it does not and the
        /// controller supports LE Extended Advertising.
        case automatic
        /// Legacy PDUs only: ADV_IND, ADV_SCAN_IND, ADV_NONCONN_IND (31 octets of data each,
        /// seen by every scanner).
        case legacy
        /// Extended PDUs (ADV_EXT_IND pointing at AUX_ADV_IND, chained by AUX_CHAIN_IND): up to
        /// 1,650 octets, or what the controller takes (Vol 4 Part E §7.8.57), seen only by
        /// scanners using the extended scanning commands. Needs `.extendedAdvertising`.
        case extended
    }

    /// The shortest and longest time between advertising events (Advertising_Interval_Min/Max,
    /// Vol 4 Part E §7.8.5; Primary_Advertising_Interval_Min/Max, §7.8.53), in 0.625 ms steps:
    /// 20 ms through 10.24 s with the legacy commands, through about 2.9 hours with the extended
    /// ones. Default 100 ms.
    public var minimumInterval: Duration
    public var maximumInterval: Duration
    /// Whether scanners may send a scan request: nil (the default) makes a legacy advertisement
    /// scannable when it is connectable (ADV_IND always is) or has a scan response
    /// (`localNameInScanResponse`), and an extended one not scannable. An extended
    /// advertisement is connectable or scannable, never both (Vol 4 Part E §7.8.53): a
    /// connectable one ignores this; a scannable one carries its data in the scan response
    /// (AUX_SCAN_RSP).
    public var isScannable: Bool?
    public var format: Format

    /// Options with one interval (minimum and maximum alike).
    public init(interval: Duration = .milliseconds(100), isScannable: Bool? = nil, format: Format = .automatic) {
        self.init(minimumInterval: interval, maximumInterval: interval, isScannable: isScannable, format: format)
    }

    public init(
        minimumInterval: Duration, maximumInterval: Duration, isScannable: Bool? = nil, format: Format = .automatic
    ) {
        self.minimumInterval = minimumInterval
        self.maximumInterval = maximumInterval
        self.isScannable = isScannable
        self.format = format
    }
}
