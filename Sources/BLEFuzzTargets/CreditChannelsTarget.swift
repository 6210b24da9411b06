import BLEHost
import BLEWire

/// The credit based channel machine (`CreditBasedChannels`, `CreditBasedChannel`) fed
/// signalling commands and K-frames from a peer, with our own requests, closes, writes and
/// clock readings between them as the input chooses.
///
/// Promises checked (Core 5.4 Vol 3 Part A §4.22–§4.27, §10.1): every command it sends encodes
/// and decodes to itself; every channel's local CID is in the LE dynamic range and its credits
/// stay within 0...65535; every SDU delivered fits this end's MTU; every K-frame sent fits the
/// peer's MPS.
enum CreditChannelsTarget {
    static let link: ConnectionHandle = 0x0040

    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var input = FuzzInput(bytes)
        var configuration = CreditBasedChannels.Configuration()
        configuration.mtu = 23 + input.below(200)
        configuration.mps = 23 + input.below(100)
        configuration.initialCredits = 1 + input.below(8)
        var machine = CreditBasedChannels(configuration: configuration)
        _ = machine.publish(psm: 0x80, security: .none, maximumChannels: 1 + input.below(4))
        _ = machine.publish(psm: 0x81, security: .encrypted)
        var now = Duration.zero
        var steps = 0
        while !input.isEmpty, steps < 256 {
            steps += 1
            var actions: [CreditBasedChannels.Action] = []
            switch input.u8() {
            case 0xF0:
                actions = machine.connect(psm: UInt16(input.u8()), on: link, mode: .leCreditBased, at: now).actions
            case 0xF1:
                actions = machine.connect(psm: 0x80, on: link, mode: .enhancedCreditBased, count: input.below(6), at: now).actions
            case 0xF2:
                if let key = machine.channels.keys.sorted().first { actions = machine.disconnect(key, at: now) }
            case 0xF3:
                now += .seconds(Int(input.u8()))
                actions = machine.timeout(at: now)
            case 0xF4:
                actions = machine.linkDown(link, reason: .connectionTimeout)
            case 0xF5:
                // Our SDU out, as the credits allow.
                guard let key = machine.channels.keys.sorted().first else { continue }
                _ = machine.channels[key]?.enqueue(input.chunk())
                while let frame = machine.channels[key]?.nextFrame() {
                    let mps = machine.channels[key]?.peerMPS ?? 0
                    try require(frame.count - 4 <= mps, "a K-frame of \(frame.count - 4) octets over the peer's MPS \(mps)")
                }
            case 0xF6:
                // A K-frame from the peer on a channel.
                guard let key = machine.channels.keys.sorted().first, let mtu = machine.channels[key]?.localMTU else {
                    continue
                }
                switch machine.channels[key]?.receive(input.chunk()[...]) {
                case .sdu(let sdu)?: try require(sdu.count <= mtu, "an SDU of \(sdu.count) octets over the MTU \(mtu)")
                case .violation(let violation)?: actions = machine.violated(key, violation, at: now)
                default: break
                }
                _ = machine.channels[key]?.takeCreditGrant()
            default:
                let payload = input.chunk()
                guard let signal = try? L2CAPSignal(decoding: payload[...]) else { continue }
                let security = L2CAPLinkSecurity(isEncrypted: input.u8() & 1 == 0)
                actions = machine.received(signal, on: link, security: security, at: now) ?? []
            }
            try check(actions, machine)
        }
    }

    private static func check(_ actions: [CreditBasedChannels.Action], _ machine: CreditBasedChannels) throws(FuzzFailure) {
        for case .send(let signal, _) in actions {
            let decoded = try? L2CAPSignal(decoding: signal.encoded[...])
            try require(decoded == signal, "a command sent does not round-trip: \(signal)")
        }
        for (key, channel) in machine.channels {
            try require(L2CAPSignal.leDynamicCIDs.contains(key.localCID), "local CID \(key.localCID) outside 0x40...0x7F")
            try require((0...65535).contains(channel.txCredits), "tx credits \(channel.txCredits)")
            try require((0...65535).contains(channel.rxCredits), "rx credits \(channel.rxCredits)")
        }
    }
}
