import BLESimulation
import BLEWire

/// One connection event a controller led as central, run or skipped (Core 5.4 Vol 6 Part B
/// §4.5.1), for measurements and tests.
struct ConnectionEventRecord: Hashable {
    let handle: ConnectionHandle
    let counter: UInt16
    let anchor: VirtualInstant
    /// When its last packet ended; the anchor itself for a skipped event.
    let end: VirtualInstant
    let skipped: Bool
}

// One radio, several connections (Core 5.4 Vol 6 Part B §4.5.1): a controller is in at most one
// connection event at a time, and the specification leaves it to the controller to choose
// which event gives way. The rule here, for the connections a controller leads as central:
//
// 1. Placement. A new connection's first anchor is put, by its WinOffset (§2.3.3.1), in the
//    middle of the widest gap between the upcoming anchors of the connections the controller
//    already leads; with equal intervals every connection then has the same room.
// 2. Shortening. An event ends at least T_IFS before the next anchor of every other connection
//    it leads (its CE_Length is cut to that room), so events take turns instead of overlapping.
// 3. Skipping. An event that cannot send even its first packet pair in that room, or whose
//    anchor falls before the end of another connection's event, is skipped: nothing is sent at
//    that anchor and its event counter moves on (the peripheral hears nothing; supervision
//    keeps counting). A connection skipped at its previous anchor has priority: the next event
//    of a connection that was not skipped does not shorten itself for it — it runs, and that
//    one is skipped instead — so two anchors that coincide take turns and neither connection is
//    skipped twice in a row.
//
// A controller's events as peripheral, and advertising or scanning beside connections, are not
// arbitrated: only the events it leads share its radio here.
extension VirtualController {
    /// The gap kept between two events on the one radio.
    static let radioTurnaround = RadioTiming.interFrameSpace

    /// The links of the other connections this controller leads.
    private func otherCentralLinks(than link: ConnectionLink?) -> [ConnectionLink] {
        connections.values.compactMap { c in
            c.role == .central && c.link.central === c && c.link !== link ? c.link : nil
        }
    }

    /// How long the event of `link` at `anchor` may last on the shared radio (rules 2 and 3),
    /// or nil when it is skipped. `eventLength` is its CE_Length, `firstPair` the air time of
    /// its first packet pair with room for a full-length reply.
    func allottedEventLength(
        _ link: ConnectionLink, at anchor: VirtualInstant, eventLength: Duration, firstPair: Duration
    ) -> Duration? {
        if let last = lastCentralEvent, last.link != ObjectIdentifier(link),
            anchor < last.end.advanced(by: Self.radioTurnaround)
        {
            return nil
        }
        var length = eventLength
        var shortened = false
        for other in otherCentralLinks(than: link) {
            let next = other.nextAnchor
            guard next >= anchor, anchor.duration(to: next) < eventLength + Self.radioTurnaround else { continue }
            if link.skippedLastEvent && !other.skippedLastEvent { continue }
            length = min(length, anchor.duration(to: next) - Self.radioTurnaround)
            shortened = true
        }
        if shortened && length < firstPair { return nil }
        return length
    }

    /// WinOffset, in 1.25 ms units, of a connection whose first anchor may come at `earliest`
    /// (rule 1): 0 when this controller leads no other connection, else the offset that puts
    /// the first anchor nearest the middle of the widest gap between the others' anchors.
    func firstAnchorOffset(earliest: VirtualInstant, interval: Duration) -> UInt16 {
        let period = interval.nanosecondsClamped
        let unit: Int64 = 1_250_000
        guard period >= unit else { return 0 }
        var phases: [Int64] = []
        for link in otherCentralLinks(than: nil) {
            let step = link.timing.intervalDuration.nanosecondsClamped
            guard step > 0 else { continue }
            var phase = earliest.duration(to: link.nextAnchor).nanosecondsClamped % step
            if phase < 0 { phase += step }
            while phase < period {
                phases.append(phase)
                phase += step
            }
        }
        guard let first = phases.min(), let last = phases.max() else { return 0 }
        phases.sort()
        var gapStart = last
        var gap = first + period - last
        for (a, b) in zip(phases, phases.dropFirst()) where b - a > gap {
            gapStart = a
            gap = b - a
        }
        let target = (gapStart + gap / 2) % period
        let units = ((target + unit / 2) / unit) % (period / unit)
        return UInt16(clamping: units)
    }
}
