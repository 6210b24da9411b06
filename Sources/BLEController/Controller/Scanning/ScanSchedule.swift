import BLESimulation
import BLEWire

/// When a scanner or initiator listens on the primary channels (Core 5.4 Vol 6 Part B §4.4.3):
/// for `window` at the start of every `interval`, on a different advertising channel each
/// interval (37, 38, 39, 37, …).
struct ScanSchedule {
    let interval: Duration
    let window: Duration
    let start: VirtualInstant
    /// The primary PHY listened on (LE 1M, or LE Coded of either coding).
    let coded: Bool

    init(interval units: UInt16, window windowUnits: UInt16, start: VirtualInstant, coded: Bool = false) {
        interval = .microseconds(Int64(units) * 625)
        window = .microseconds(Int64(min(windowUnits, units)) * 625)
        self.start = start
        self.coded = coded
    }

    /// Whether a packet starting at `time` on `channel` with `phy` is heard.
    func listens(at time: VirtualInstant, channel: UInt8, phy: PHY) -> Bool {
        guard phy.isCoded == coded, (37...39).contains(channel), time >= start else { return false }
        let elapsed = start.duration(to: time).nanosecondsClamped
        let period = interval.nanosecondsClamped
        guard period > 0 else { return false }
        let index = elapsed / period
        let position = elapsed % period
        return position < window.nanosecondsClamped && channel == 37 + UInt8(index % 3)
    }
}

/// A packet a scanner or initiator waits for at a known time on a known channel: a SCAN_RSP
/// after its SCAN_REQ, the next PDU of an auxiliary chain (AuxPtr, §2.3.4.5), AUX_SCAN_RSP or
/// AUX_CONNECT_RSP.
struct AirExpectation {
    let id: Int
    let sender: AirRadioID
    let channel: UInt8
    let phy: PHY
    let start: VirtualInstant
    var timeout: EventQueue.Token?

    /// How far a packet's start may be from the expected one.
    static let tolerance = Duration.microseconds(10)

    /// When to give up: the longest PDU that could have started in time has ended by then.
    var deadline: VirtualInstant {
        start.advanced(by: Self.tolerance * 2 + phy.airTime(payloadOctets: ExtendedAdvertisingPDU.maximumPayload))
    }

    func matches(_ transmission: AirTransmission) -> Bool {
        transmission.sender == sender && transmission.channel == channel && transmission.phy == phy
            && transmission.start >= start.advanced(by: .zero - Self.tolerance)
            && transmission.start <= start.advanced(by: Self.tolerance)
    }
}

/// An extended advertising train a scanner follows from ADV_EXT_IND through its auxiliary PDUs
/// (Core 5.4 Vol 6 Part B §4.4.3.5).
struct FollowedTrain {
    enum Stage: Hashable {
        /// ADV_EXT_IND received; AUX_ADV_IND due.
        case awaitingAuxiliary
        /// Advertising data chain under way.
        case advertisingChain
        /// AUX_SCAN_REQ sent; AUX_SCAN_RSP due.
        case awaitingScanResponse
        /// Scan response chain under way.
        case scanResponseChain
    }

    var stage: Stage
    var primaryPHY: PHY
    var secondaryPHY: PHY
    var mode: ExtendedAdvertisingMode
    var dataInfo: ExtendedAdvertisingPDU.DataInfo?
    /// AdvA as on air (what AUX_SCAN_REQ names).
    var advertiser: LEAddress?
    /// AdvA resolved: what the reports name.
    var peer: ReceivedAddress?
    var target: LEAddress?
    var txPower: Int8?
    /// Some of the train's data was reported: losing the rest is reported as truncated.
    var reportedPart = false

    /// The advertiser as reported: its identity when its RPA was resolved.
    var reportedAdvertiser: LEAddress? { peer?.reported ?? advertiser }

    /// Event_Type bits 0–3 of the reports of this train (§7.7.65.13).
    var eventTypeBits: LEMetaEvent.ExtendedAdvertisingReport.EventType {
        var bits: LEMetaEvent.ExtendedAdvertisingReport.EventType = []
        if mode == .connectable { bits.insert(.connectable) }
        if mode == .scannable { bits.insert(.scannable) }
        if target != nil { bits.insert(.directed) }
        if stage == .awaitingScanResponse || stage == .scanResponseChain { bits.insert(.scanResponse) }
        return bits
    }
}

/// What makes two advertising reports duplicates (Core 5.4 Vol 4 Part E §7.8.11, §7.8.65):
/// the same advertiser and kind of PDU, and for extended advertising the same SID and DID.
struct DuplicateKey: Hashable {
    let address: LEAddress?
    let kind: UInt16
    let sid: UInt8
    let did: UInt16
}
