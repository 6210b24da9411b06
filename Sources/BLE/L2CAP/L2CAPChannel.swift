import BLEHost
import BLEWire
import Foundation

/// An LE Protocol/Service Multiplexer: what a peer opens a credit based channel to (Core 5.4
/// Vol 3 Part A §4.22; Core Bluetooth's `CBL2CAPPSM`). Published ones are dynamic,
/// 0x0080...0x00FF.
public typealias L2CAPPSM = UInt16

/// An open L2CAP connection-oriented channel (Core Bluetooth's `CBL2CAPChannel`): an LE credit
/// based channel (Core 5.4 Vol 3 Part A §4.22–§4.24) or an enhanced one (§4.25–§4.27), with
/// credit based flow control (§10.1). SDUs come in on `incoming` in order; `write` sends one,
/// cut into K-frames of the peer's MPS and paced by the peer's credits.
///
/// A peer that breaks flow control (a K-frame without credit, over the MPS, an SDU over the
/// MTU, credits over 65535) gets the channel disconnected — the link stays; `incoming` ends and
/// `closeReason` says why.
public final class L2CAPChannel: Sendable, CustomStringConvertible {
    /// The PSM the channel was opened to.
    public let psm: L2CAPPSM
    /// The peer: the peripheral's or the central's identifier.
    public let peerIdentifier: UUID
    /// The peer's address on the link.
    public let peerAddress: LEAddress
    /// The longest SDU `write` may send (the peer's MTU) and the longest it receives (ours).
    public let outgoingMTU: Int
    public let incomingMTU: Int
    /// The longest K-frame payload the peer takes (its MPS, Core 5.4 Vol 3 Part A §4.22): an
    /// SDU of n × MPS − 2 octets fills n K-frames exactly.
    public let outgoingMPS: Int
    /// The peer's SDUs, in order; the stream ends when the channel does. One listener. Reading
    /// is the receiver's flow control: while 8 SDUs wait unread the peer gets no more credits.
    public let incoming: L2CAPSDUStream

    package let info: L2CAPChannelInfo
    package let host: BLEHost.Host

    init(_ info: L2CAPChannelInfo, host: BLEHost.Host, peerIdentifier: UUID) {
        self.info = info
        self.host = host
        self.psm = info.psm
        self.peerIdentifier = peerIdentifier
        self.peerAddress = info.peer
        self.outgoingMTU = info.peerMTU
        self.incomingMTU = info.localMTU
        self.outgoingMPS = info.peerMPS
        self.incoming = L2CAPSDUStream(info: info, host: host)
    }

    /// Whether it was opened as an enhanced credit based channel (§4.25).
    public var isEnhanced: Bool { info.mode == .enhancedCreditBased }

    /// Sends `bytes` as one SDU; returns once its last K-frame went to the controller, waiting
    /// while the peer has given no credits. Longer than `outgoingMTU` throws at once. Once
    /// called, the SDU is queued whole: cancelling the calling task does not take it back (the
    /// wait ends when it is sent or the channel closes).
    public func write(_ bytes: [UInt8]) async throws(BLEError) {
        do throws(L2CAPChannelError) {
            try await host.writeL2CAP(bytes, on: info.key, serial: info.serial)
        } catch {
            throw .l2cap(error)
        }
    }

    /// Closes the channel (Disconnection Request, §4.6); `incoming` ends.
    public func close() async {
        await host.closeL2CAPChannel(info.key, serial: info.serial)
    }

    /// Why the channel ended; nil while it is open.
    public var closeReason: BLEError? {
        get async { await host.l2capChannelEnding(info.serial).map { BLEError.l2cap($0) } }
    }

    public var description: String {
        "L2CAP channel to PSM \(Hex.prefixed(psm, width: 4)) with \(peerAddress) (CID \(Hex.prefixed(info.key.localCID, width: 4)))"
    }
}

/// The SDUs of a channel, in order (`L2CAPChannel.incoming`). Each one read counts toward the
/// channel's backlog: the host gives the peer credits again once the reader catches up
/// (Core 5.4 Vol 3 Part A §10.1).
public struct L2CAPSDUStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = Never

    let stream: EventStream<[UInt8]>
    let backlog: L2CAPChannelBacklog
    let host: BLEHost.Host
    let key: L2CAPChannelKey
    let serial: UInt64

    init(info: L2CAPChannelInfo, host: BLEHost.Host) {
        stream = info.incoming
        backlog = info.backlog
        self.host = host
        key = info.key
        serial = info.serial
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(inner: stream.makeAsyncIterator(), sequence: self)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var inner: EventStream<[UInt8]>.Iterator
        let sequence: L2CAPSDUStream

        /// The next SDU, waiting in the caller's isolation; nil once the channel ended and every
        /// SDU was read.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> [UInt8]? {
            guard let sdu = await inner.next(isolation: actor) else { return nil }
            if sequence.backlog.consumed() { sequence.host.l2capSDUConsumed(sequence.key, serial: sequence.serial) }
            return sdu
        }

        public nonisolated(nonsending) mutating func next() async -> [UInt8]? {
            await next(isolation: #isolation)
        }
    }
}
