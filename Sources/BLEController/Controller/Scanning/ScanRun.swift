import BLESimulation
import BLEWire

/// An enabled scanner (Core 5.4 Vol 6 Part B §4.4.3): where it listens, how it reports, what it
/// has already reported, and the responses and chains it waits for.
final class ScanRun {
    /// Legacy commands get LE Advertising Reports of legacy PDUs only; extended commands get
    /// LE Extended Advertising Reports of everything (Core 5.4 Vol 4 Part E §3.1.1).
    enum ReportFormat {
        case legacy
        case extended
    }

    /// One scanning PHY (LE 1M or LE Coded) and its parameters (Core 5.4 Vol 4 Part E §7.8.64).
    struct PHYScan {
        let schedule: ScanSchedule
        let active: Bool
    }

    let format: ReportFormat
    /// Own_Address_Type: 0x02 / 0x03 send an RPA toward a listed advertiser (Vol 6 Part B §6.3).
    let ownAddressType: HCI.OwnAddressType
    /// The public or random address used toward an advertiser without an RPA.
    let ownAddress: LEAddress
    let filterPolicy: HCI.ScanningFilterPolicy
    var phys: [PHYScan]
    var filterDuplicates: HCI.LESetExtendedScanEnable.DuplicateFilter
    /// False between the Duration and the next Period of extended scanning (§7.8.65).
    var active = true
    var reported: Set<DuplicateKey> = []
    /// Advertisers whose scan response was reported: with duplicate filtering on, they get no
    /// more scan requests.
    var answered: Set<LEAddress> = []
    /// Expected SCAN_RSP, with the legacy PDU type it answers.
    var pendingScanResponses: [(expectation: AirExpectation, answering: LEMetaEvent.AdvertisingReport.EventType)] = []
    var followed: [(expectation: AirExpectation, train: FollowedTrain)] = []
    var durationToken: EventQueue.Token?
    var periodToken: EventQueue.Token?
    var nextExpectationID = 0

    init(
        format: ReportFormat, ownAddressType: HCI.OwnAddressType, ownAddress: LEAddress,
        filterPolicy: HCI.ScanningFilterPolicy, phys: [PHYScan],
        filterDuplicates: HCI.LESetExtendedScanEnable.DuplicateFilter
    ) {
        self.format = format
        self.ownAddressType = ownAddressType
        self.ownAddress = ownAddress
        self.filterPolicy = filterPolicy
        self.phys = phys
        self.filterDuplicates = filterDuplicates
    }

    var filtersDuplicates: Bool { filterDuplicates != .disabled }

    /// The PHY scan that hears a primary-channel packet, if any.
    func scan(hearing transmission: AirTransmission) -> PHYScan? {
        guard active else { return nil }
        return phys.first {
            $0.schedule.listens(at: transmission.start, channel: transmission.channel, phy: transmission.phy)
        }
    }

    func makeExpectationID() -> Int {
        nextExpectationID += 1
        return nextExpectationID
    }

    func cancel(on queue: EventQueue) {
        for pending in pendingScanResponses { if let token = pending.expectation.timeout { queue.cancel(token) } }
        for follow in followed { if let token = follow.expectation.timeout { queue.cancel(token) } }
        pendingScanResponses = []
        followed = []
        if let durationToken { queue.cancel(durationToken) }
        if let periodToken { queue.cancel(periodToken) }
    }
}
