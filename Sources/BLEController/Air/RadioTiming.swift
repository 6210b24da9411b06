import BLEWire

/// Fixed link-layer timings (Core 5.4 Vol 6 Part B §4.1).
public enum RadioTiming {
    /// T_IFS: between consecutive packets on the same channel (§4.1.1) — of a connection event,
    /// and of a scan or connect request and its answer on an advertising channel.
    public static let interFrameSpace: Duration = .microseconds(interFrameSpaceMicroseconds)
    /// T_IFS in whole microseconds, the air-time model's unit.
    public static let interFrameSpaceMicroseconds = 150
    /// T_MAFS: the least time between packets of an auxiliary chain (§4.1.3).
    public static let minimumAuxFrameSpace = Duration.microseconds(300)
    /// transmitWindowDelay after a CONNECT_IND (§4.5.3).
    public static let transmitWindowDelayLegacy = Duration.microseconds(1250)
    /// transmitWindowDelay after an AUX_CONNECT_REQ on LE 1M or 2M (§4.5.3).
    public static let transmitWindowDelayAuxiliary = Duration.microseconds(2500)
}
