import BLEWire
import DequeModule

/// The data path of one open credit based channel (Core 5.4 Vol 3 Part A §3.4.3 K-frames,
/// §10.1 credit based flow control) as a value: it segments SDUs into K-frames, sends them as
/// the peer's credits allow, reassembles the peer's K-frames into SDUs and grants the peer
/// credits back. No I/O: the host performs what it returns.
///
/// The first K-frame of an SDU carries the 2-octet SDU Length; the peer's MPS bounds every
/// K-frame's information payload, its MTU every SDU. What the peer sends is checked against
/// this end's MPS, MTU and the credits it was given; a breach is a `violation`, after which
/// the channel is disconnected (never the link).
package struct CreditBasedChannel {
    package enum State: Equatable {
        case open
        /// A Disconnection Request is out (ours, §4.6): nothing more is sent or delivered.
        case disconnecting
    }

    /// What a K-frame from the peer amounts to.
    package enum Inbound: Equatable {
        /// Part of an SDU; more K-frames follow.
        case partial
        /// A whole SDU.
        case sdu([UInt8])
        /// The peer broke flow control: disconnect the channel.
        case violation(L2CAPChannelViolation)
        /// The channel is disconnecting: the frame is discarded.
        case discarded
    }

    package let mode: L2CAPChannelMode
    package let psm: UInt16
    package let localCID: UInt16
    package let peerCID: UInt16
    /// Largest SDU and K-frame payload this end takes (sent in its request or response).
    package private(set) var localMTU: Int
    package private(set) var localMPS: Int
    /// Largest SDU and K-frame payload the peer takes.
    package private(set) var peerMTU: Int
    package private(set) var peerMPS: Int
    /// K-frames this end may still send.
    package private(set) var txCredits: Int
    /// K-frames the peer may still send.
    package private(set) var rxCredits: Int
    /// The credits this end keeps the peer topped up to.
    package let creditTarget: Int
    package private(set) var state = State.open

    /// The SDU being reassembled: its announced length and the octets so far.
    private var reassemblyLength: Int?
    private var reassembly: [UInt8] = []
    /// Whole basic frames (header included), waiting for credits.
    private var outgoing: Deque<[UInt8]> = []
    /// K-frames queued and sent since the channel opened: a write is done when `sentFrames`
    /// reaches the count its last frame took.
    package private(set) var queuedFrames: UInt64 = 0
    package private(set) var sentFrames: UInt64 = 0

    package init(
        mode: L2CAPChannelMode, psm: UInt16, localCID: UInt16, peerCID: UInt16, localMTU: Int, localMPS: Int,
        peerMTU: Int, peerMPS: Int, txCredits: Int, rxCredits: Int
    ) {
        self.mode = mode
        self.psm = psm
        self.localCID = localCID
        self.peerCID = peerCID
        self.localMTU = localMTU
        self.localMPS = localMPS
        self.peerMTU = peerMTU
        self.peerMPS = peerMPS
        self.txCredits = txCredits
        self.rxCredits = rxCredits
        self.creditTarget = max(1, rxCredits)
    }

    /// The most credits a channel can hold (§4.24, §10.1).
    package static let maximumCredits = 65535

    // MARK: Receiving

    /// A K-frame's information payload from the peer (§3.4.3).
    package mutating func receive(_ payload: ArraySlice<UInt8>) -> Inbound {
        guard state == .open else { return .discarded }
        guard rxCredits > 0 else { return .violation(.kFrameWithoutCredit) }
        guard payload.count <= localMPS else { return .violation(.pduLongerThanMPS(length: payload.count, mps: localMPS)) }
        rxCredits -= 1
        var data = payload
        let length: Int
        if let expected = reassemblyLength {
            length = expected
        } else {
            guard data.count >= 2 else { return .violation(.missingSDULength) }
            length = Int(data[data.startIndex]) | Int(data[data.startIndex + 1]) << 8
            data = data.dropFirst(2)
            guard length <= localMTU else { return .violation(.sduLongerThanMTU(length: length, mtu: localMTU)) }
            if data.count == length { return .sdu(Array(data)) }
            reassemblyLength = length
            reassembly.reserveCapacity(length)
        }
        guard reassembly.count + data.count <= length else {
            return .violation(.sduOverrun(sduLength: length, received: reassembly.count + data.count))
        }
        reassembly.append(contentsOf: data)
        guard reassembly.count == length else { return .partial }
        defer {
            reassembly = []
            reassemblyLength = nil
        }
        return .sdu(reassembly)
    }

    /// Credits to give the peer now: once it has used half of them, enough to top it up to
    /// `creditTarget` again (§4.24); nil otherwise.
    package mutating func takeCreditGrant() -> UInt16? {
        guard state == .open, rxCredits <= creditTarget / 2 else { return nil }
        let grant = creditTarget - rxCredits
        guard grant > 0 else { return nil }
        rxCredits += grant
        return UInt16(grant)
    }

    /// L2CAP_FLOW_CONTROL_CREDIT_IND from the peer (§4.24): more K-frames this end may send;
    /// a sum over 65535 is a violation.
    package mutating func addCredits(_ credits: UInt16) -> L2CAPChannelViolation? {
        let total = txCredits + Int(credits)
        guard total <= Self.maximumCredits else { return .creditOverflow(total: total) }
        txCredits = total
        return nil
    }

    // MARK: Sending

    /// Segments `sdu` into K-frames (the first with the SDU Length, each payload at most the
    /// peer's MPS) and queues them; returns the frame count that ends it (`sentFrames` reaches
    /// it once all went out), or `sduTooLong` when the peer's MTU is shorter (nothing queued).
    package mutating func enqueue(_ sdu: [UInt8]) -> Result<UInt64, L2CAPChannelError> {
        guard state == .open else { return .failure(.notOpen) }
        guard sdu.count <= peerMTU else { return .failure(.sduTooLong(length: sdu.count, mtu: peerMTU)) }
        var offset = 0
        var first = true
        repeat {
            let room = first ? peerMPS - 2 : peerMPS
            let take = min(room, sdu.count - offset)
            let payloadLength = take + (first ? 2 : 0)
            var writer = ByteWriter(capacity: 4 + payloadLength)
            writer.u16(UInt16(payloadLength))
            writer.u16(peerCID)
            if first { writer.u16(UInt16(sdu.count)) }
            writer.append(sdu[offset..<(offset + take)])
            outgoing.append(writer.bytes)
            queuedFrames += 1
            offset += take
            first = false
        } while offset < sdu.count
        return .success(queuedFrames)
    }

    /// The next K-frame (a whole basic frame) a credit allows, taking the credit; nil when
    /// nothing waits or no credit is left.
    package mutating func nextFrame() -> [UInt8]? {
        guard state == .open, txCredits > 0, let frame = outgoing.popFirst() else { return nil }
        txCredits -= 1
        sentFrames += 1
        return frame
    }

    /// K-frames waiting for credits.
    package var waitingFrames: Int { outgoing.count }

    // MARK: Lifecycle

    /// Our Disconnection Request goes out: queued frames are dropped, nothing more is sent.
    package mutating func beginDisconnecting() {
        state = .disconnecting
        outgoing.removeAll()
        reassembly = []
        reassemblyLength = nil
    }

    /// The peer accepted new receive parameters of ours (§4.27).
    package mutating func reconfiguredLocal(mtu: Int, mps: Int) {
        localMTU = mtu
        localMPS = mps
    }

    /// The peer reconfigured its receive parameters (§4.27): later SDUs are cut to them.
    package mutating func reconfiguredPeer(mtu: Int, mps: Int) {
        peerMTU = mtu
        peerMPS = mps
    }
}
