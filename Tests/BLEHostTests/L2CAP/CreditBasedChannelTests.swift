import BLEWire
import Testing

@testable import BLEHost

/// One channel's data path, without a host (Core 5.4 Vol 3 Part A §3.4.3 K-frames, §10.1
/// credit based flow control).
@Suite("Credit based channel data path (Core 5.4 Vol 3 Part A §3.4.3, §10.1)")
struct CreditBasedChannelTests {
    private func channel(
        localMTU: Int = 100, localMPS: Int = 23, peerMTU: Int = 100, peerMPS: Int = 23, tx: Int = 0, rx: Int = 4
    ) -> CreditBasedChannel {
        CreditBasedChannel(
            mode: .leCreditBased, psm: 0x80, localCID: 0x40, peerCID: 0x41, localMTU: localMTU, localMPS: localMPS,
            peerMTU: peerMTU, peerMPS: peerMPS, txCredits: tx, rxCredits: rx)
    }

    /// The information payloads of `frames` (basic header checked and dropped).
    private func payloads(_ frames: [[UInt8]], cid: UInt16 = 0x41) -> [[UInt8]] {
        frames.map { frame in
            #expect(Int(frame[0]) | Int(frame[1]) << 8 == frame.count - 4)
            #expect(UInt16(frame[2]) | UInt16(frame[3]) << 8 == cid)
            return Array(frame.dropFirst(4))
        }
    }

    private func drain(_ channel: inout CreditBasedChannel) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        while let frame = channel.nextFrame() { frames.append(frame) }
        return frames
    }

    @Test("§3.4.3 segmentation: the first K-frame carries the SDU Length, each payload at most the peer's MPS")
    func segmentation() throws {
        var channel = channel(tx: 10)
        let sdu = (0..<50).map { UInt8($0) }
        let target = try channel.enqueue(sdu).get()
        #expect(target == 3)
        let sent = payloads(drain(&channel))
        // 2 + 21, then 23, then 6.
        #expect(sent.map(\.count) == [23, 23, 6])
        #expect(sent[0].prefix(2) == [50, 0])
        #expect(Array(sent.joined().dropFirst(2)) == sdu)
        #expect(channel.sentFrames == 3)
        #expect(channel.txCredits == 7)
    }

    @Test("§3.4.3 an empty SDU is one K-frame holding only its SDU Length")
    func emptySDU() throws {
        var channel = channel(tx: 1)
        _ = try channel.enqueue([]).get()
        #expect(payloads(drain(&channel)) == [[0, 0]])
    }

    @Test("§10.1 K-frames stop at 0 credits and resume when an LE Flow Control Credit arrives")
    func creditsPaceSending() throws {
        var channel = channel(tx: 1)
        _ = try channel.enqueue(Array(repeating: 7, count: 60)).get()
        #expect(drain(&channel).count == 1)
        #expect(channel.txCredits == 0)
        #expect(channel.waitingFrames == 2)
        #expect(channel.nextFrame() == nil)
        #expect(channel.addCredits(1) == nil)
        #expect(drain(&channel).count == 1)
        #expect(channel.addCredits(5) == nil)
        #expect(drain(&channel).count == 1)
        #expect(channel.txCredits == 4)
    }

    @Test("§3.4.3 an SDU longer than the peer's MTU is refused, nothing queued")
    func sduOverPeerMTU() {
        var channel = channel(peerMTU: 30, tx: 5)
        #expect(channel.enqueue(Array(repeating: 0, count: 31)) == .failure(.sduTooLong(length: 31, mtu: 30)))
        #expect(channel.waitingFrames == 0)
    }

    @Test("§3.4.3 reassembly across MPS-sized K-frames delivers the SDU whole")
    func reassembly() {
        var receiver = channel(rx: 8)
        var sender = channel(tx: 8)
        let sdu = (0..<70).map { UInt8($0 &* 3) }
        _ = sender.enqueue(sdu)
        let frames = payloads(drain(&sender))
        #expect(frames.count == 4)
        for frame in frames.dropLast() { #expect(receiver.receive(frame[...]) == .partial) }
        #expect(receiver.receive(frames.last![...]) == .sdu(sdu))
        #expect(receiver.rxCredits == 4)
    }

    @Test("§4.24 credits are given back once the peer has used half of them")
    func creditGrant() {
        var channel = channel(rx: 4)
        #expect(channel.receive([1, 0, 9][...]) == .sdu([9]))
        #expect(channel.takeCreditGrant() == nil)
        #expect(channel.receive([1, 0, 9][...]) == .sdu([9]))
        #expect(channel.takeCreditGrant() == 2)
        #expect(channel.rxCredits == 4)
    }

    @Test("§10.1 a K-frame beyond the credits given is a violation")
    func kFrameWithoutCredit() {
        var channel = channel(rx: 1)
        #expect(channel.receive([1, 0, 9][...]) == .sdu([9]))
        #expect(channel.receive([1, 0, 9][...]) == .violation(.kFrameWithoutCredit))
    }

    @Test("§3.4.3 a K-frame over this end's MPS is a violation")
    func pduOverMPS() {
        var channel = channel(localMPS: 23)
        let frame = [22, 0] + Array(repeating: UInt8(1), count: 22)
        #expect(channel.receive(frame[...]) == .violation(.pduLongerThanMPS(length: 24, mps: 23)))
    }

    @Test("§3.4.3 an SDU Length over this end's MTU is a violation")
    func sduOverMTU() {
        var channel = channel(localMTU: 100)
        #expect(channel.receive([101, 0, 1][...]) == .violation(.sduLongerThanMTU(length: 101, mtu: 100)))
    }

    @Test("§3.4.3 K-frames carrying more than the SDU Length, or a first K-frame without it, are violations")
    func overrunAndMissingLength() {
        var channel = channel(rx: 4)
        #expect(channel.receive([3, 0, 1, 2][...]) == .partial)
        #expect(channel.receive([3, 4][...]) == .violation(.sduOverrun(sduLength: 3, received: 4)))
        var other = self.channel()
        #expect(other.receive([7][...]) == .violation(.missingSDULength))
    }

    @Test("§4.24 credits summing past 65535 are a violation")
    func creditOverflow() {
        var channel = channel(tx: 65000)
        #expect(channel.addCredits(535) == nil)
        #expect(channel.addCredits(1) == .creditOverflow(total: 65536))
        #expect(channel.txCredits == 65535)
    }

    @Test("A disconnecting channel sends nothing and discards what arrives")
    func disconnecting() {
        var channel = channel(tx: 3)
        _ = channel.enqueue([1, 2, 3])
        channel.beginDisconnecting()
        #expect(channel.nextFrame() == nil)
        #expect(channel.receive([1, 0, 1][...]) == .discarded)
        #expect(channel.enqueue([1]) == .failure(.notOpen))
    }
}
