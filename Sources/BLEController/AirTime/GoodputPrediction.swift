/// The analytic goodput of a saturated link: application octets per second for one kind of ATT
/// traffic, under rule A and rule B, and the air-time ceiling.
///
/// An ATT PDU of `a` octets (a = ATT_MTU for a full Write Command / Notification, Core 5.4 Vol 3
/// Part F §3.4.5.3, §3.4.7.1) is an L2CAP PDU of a + 4 octets (Core 5.4 Vol 3 Part A §3), cut
/// into LL payloads of at most Lmax (§7.2). With data one way and empty PDUs back:
/// ```
/// T_pair = T(L) + T_IFS + T(0) + T_IFS
/// rule A: N = floor(ceLength / T_pair)
/// rule B: N = 1 + floor((ceLength − (T(L_c) + 2·T_IFS + T_maxRx)) / T_pair)
/// N = min(N, maxPacketsPerEvent)
/// goodput = SDUs delivered per event · (MTU − 3) · 8 / connInterval
/// ceiling = (MTU − 3) · 8 / Σ_fragments T_pair(L_i)
/// acknowledged: (MTU − 3) · 8 / ((events to send the PDU + 1) · connInterval)
/// ```
/// When an ATT PDU takes several LL packets of different lengths, packing continues across
/// events; SDUs per event is then the steady-state average of the rule applied packet by packet
/// (for equal fragments it is exactly N / fragments). As in the planner, the first pair of an
/// event is always made. Figures are in kbit/s (1000 bit/s).
public struct GoodputPrediction: Sendable, Hashable {
    /// The ATT traffic whose goodput is predicted.
    public enum Traffic: Sendable, Hashable, CaseIterable {
        /// ATT_WRITE_CMD, central → peripheral, unacknowledged.
        case writeWithoutResponse
        /// ATT_HANDLE_VALUE_NTF, peripheral → central, unacknowledged.
        case notification
        /// ATT_WRITE_REQ, central → peripheral; the response comes in the next event.
        case writeRequest
        /// ATT_HANDLE_VALUE_IND, peripheral → central; the confirmation comes in the next event.
        case indication

        /// The side whose packets carry the data.
        public var sender: LinkSide {
            switch self {
            case .writeWithoutResponse, .writeRequest: .central
            case .notification, .indication: .peripheral
            }
        }

        /// Whether each PDU waits for an answer before the next is sent (Core 5.4 Vol 3 Part F
        /// §3.3.2: one request, one indication outstanding).
        public var isAcknowledged: Bool {
            switch self {
            case .writeWithoutResponse, .notification: false
            case .writeRequest, .indication: true
            }
        }
    }

    public let link: LinkTiming
    public let attMTU: Int
    public let traffic: Traffic
    /// LL payload lengths of one full ATT PDU.
    public let fragments: [Int]
    /// T_pair of a full-length fragment, in microseconds.
    public let pairMicroseconds: Int
    /// N of the reference's formulas for a full-length fragment, capped.
    public let packetsPerEventA: Int
    public let packetsPerEventB: Int
    /// Full ATT PDUs delivered per event, on average.
    public let sdusPerEventA: Double
    public let sdusPerEventB: Double
    /// Goodput of application payload (ATT_MTU − 3 per PDU), kbit/s.
    public let goodputA: Double
    public let goodputB: Double
    /// Application payload over the air time of its pairs alone (no event boundaries), kbit/s.
    public let ceiling: Double

    public init(link: LinkTiming, attMTU: Int, traffic: Traffic) {
        self.link = link
        self.attMTU = attMTU
        self.traffic = traffic
        let model = PairModel(link: link, sender: traffic.sender)
        let fragments = LLFragment.lengths(l2capLength: attMTU + 4, maxPayload: model.largestPayload)
        self.fragments = fragments
        guard !fragments.isEmpty else {
            // Lmax is 0: the direction carries no data at all.
            (pairMicroseconds, packetsPerEventA, packetsPerEventB) = (0, 0, 0)
            (sdusPerEventA, sdusPerEventB, goodputA, goodputB, ceiling) = (0, 0, 0, 0, 0)
            return
        }
        pairMicroseconds = model.pairTime(fragments[0])
        packetsPerEventA = model.packetsPerEvent(length: fragments[0], rule: .ruleA)
        packetsPerEventB = model.packetsPerEvent(length: fragments[0], rule: .ruleB)
        let applicationBits = Double((attMTU - 3) * 8)
        let interval = Double(link.interval.wholeMicroseconds)
        ceiling = applicationBits / Double(fragments.reduce(0) { $0 + model.pairTime($1) }) * 1_000
        if traffic.isAcknowledged {
            let eventsA = model.eventsToSend(fragments, rule: .ruleA)
            let eventsB = model.eventsToSend(fragments, rule: .ruleB)
            sdusPerEventA = 1 / Double(eventsA + 1)
            sdusPerEventB = 1 / Double(eventsB + 1)
        } else {
            sdusPerEventA = model.sdusPerEvent(fragments, rule: .ruleA)
            sdusPerEventB = model.sdusPerEvent(fragments, rule: .ruleB)
        }
        goodputA = sdusPerEventA * applicationBits / interval * 1_000
        goodputB = sdusPerEventB * applicationBits / interval * 1_000
    }

    /// The prediction for a named profile at its own ATT MTU.
    public init(profile: AirTimeProfile, traffic: Traffic, encrypted: Bool = false) {
        self.init(link: profile.linkTiming(encrypted: encrypted), attMTU: profile.attMTU, traffic: traffic)
    }

    /// Goodput under `rule`, kbit/s.
    public func goodput(_ rule: LinkTiming.EndRule) -> Double {
        switch rule {
        case .ruleA: goodputA
        case .ruleB: goodputB
        }
    }

    /// Goodput under the link's own end rule, kbit/s.
    public var goodput: Double { goodput(link.endRule) }

    /// Packets per event under `rule` for a full-length fragment.
    public func packetsPerEvent(_ rule: LinkTiming.EndRule) -> Int {
        switch rule {
        case .ruleA: packetsPerEventA
        case .ruleB: packetsPerEventB
        }
    }
}

/// Pair timings of one-way traffic (data from `sender`, empty PDUs back), in microseconds.
private struct PairModel {
    let link: LinkTiming
    let sender: LinkSide
    let largestPayload: Int
    let eventLength: Int
    let longestReply: Int
    let cap: Int
    let ifs = RadioTiming.interFrameSpaceMicroseconds

    init(link: LinkTiming, sender: LinkSide) {
        self.link = link
        self.sender = sender
        largestPayload = link.largestPayload(sentBy: sender)
        eventLength = link.effectiveEventLength.wholeMicroseconds
        longestReply = AirTime.packetMicroseconds(
            phy: link.peripheralToCentral.phy, payloadLength: link.largestPayload(sentBy: .peripheral),
            encrypted: link.encrypted)
        cap = max(1, link.maxPacketsPerEvent ?? .max)
    }

    private func time(_ side: LinkSide, _ length: Int) -> Int {
        AirTime.packetMicroseconds(phy: link.transmitting(side).phy, payloadLength: length, encrypted: link.encrypted)
    }

    /// T(L_c): the central's packet when the data fragment is `length` octets.
    private func centralPacket(_ length: Int) -> Int { time(.central, sender == .central ? length : 0) }

    /// T_pair = T(L_c) + T_IFS + T(L_p) + T_IFS.
    func pairTime(_ length: Int) -> Int {
        time(.central, sender == .central ? length : 0) + ifs + time(.peripheral, sender == .peripheral ? length : 0)
            + ifs
    }

    /// The reference's closed forms, capped (and at least the anchor pair).
    func packetsPerEvent(length: Int, rule: LinkTiming.EndRule) -> Int {
        let pair = pairTime(length)
        let n: Int
        switch rule {
        case .ruleA:
            n = eventLength / pair
        case .ruleB:
            let first = centralPacket(length) + 2 * ifs + longestReply
            n = eventLength >= first ? 1 + (eventLength - first) / pair : 0
        }
        return max(1, min(n, cap))
    }

    /// Whether a pair carrying a `length`-octet fragment may start `start` µs after the anchor.
    private func fits(start: Int, length: Int, rule: LinkTiming.EndRule) -> Bool {
        switch rule {
        case .ruleA: start + pairTime(length) <= eventLength
        case .ruleB: start + centralPacket(length) + 2 * ifs + longestReply <= eventLength
        }
    }

    /// Fragments sent in one event starting with fragment `first` of the cycle.
    private func packetsInEvent(_ fragments: [Int], from first: Int, rule: LinkTiming.EndRule) -> Int {
        var start = 0
        var sent = 0
        while sent < cap {
            let length = fragments[(first + sent) % fragments.count]
            if sent > 0, !fits(start: start, length: length, rule: rule) { break }
            start += pairTime(length)
            sent += 1
        }
        return sent
    }

    /// Steady-state full PDUs per event: events are played from fragment 0 until the fragment
    /// an event starts with repeats; the average over that cycle is exact.
    func sdusPerEvent(_ fragments: [Int], rule: LinkTiming.EndRule) -> Double {
        var firstEventStartingAt = Array(repeating: -1, count: fragments.count)
        var sentBeforeEvent: [Int] = []
        var index = 0
        var sent = 0
        while firstEventStartingAt[index] < 0 {
            firstEventStartingAt[index] = sentBeforeEvent.count
            sentBeforeEvent.append(sent)
            let packets = packetsInEvent(fragments, from: index, rule: rule)
            sent += packets
            index = (index + packets) % fragments.count
        }
        let cycleStart = firstEventStartingAt[index]
        let cycleEvents = sentBeforeEvent.count - cycleStart
        let cycleFragments = sent - sentBeforeEvent[cycleStart]
        return Double(cycleFragments) / Double(fragments.count) / Double(cycleEvents)
    }

    /// Events needed to send one PDU starting at an anchor, when nothing else is queued.
    func eventsToSend(_ fragments: [Int], rule: LinkTiming.EndRule) -> Int {
        var events = 0
        var index = 0
        while index < fragments.count {
            var start = 0
            var sent = 0
            while index < fragments.count, sent < cap {
                if sent > 0, !fits(start: start, length: fragments[index], rule: rule) { break }
                start += pairTime(fragments[index])
                sent += 1
                index += 1
            }
            events += 1
        }
        return events
    }
}
