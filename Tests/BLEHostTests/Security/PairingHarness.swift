import BLELocking
import BLEWire

@testable import BLEHost

/// An initiator and a responder `PairingSession` wired to each other: each `.send` goes
/// through the SMP codec to the other side, agent questions are answered as the test says, and
/// encryption is simulated by checking both sides made the same key.
struct PairingHarness {
    enum Side: Hashable { case initiator, responder }

    static let centralAddress = LEAddress(BluetoothAddress(0x00_1122_3344_55), type: .public)
    static let peripheralAddress = LEAddress(BluetoothAddress(0xC0_FFEE_0000_01), type: .random)
    static let centralIRK = SMPKey128(high: 0x1111, low: 0x2222)
    static let peripheralIRK = SMPKey128(high: 0x3333, low: 0x4444)

    static func configuration(_ side: Side, _ policy: SecurityPolicy) -> PairingSession.Configuration {
        let (local, peer) =
            side == .initiator ? (centralAddress, peripheralAddress) : (peripheralAddress, centralAddress)
        return PairingSession.Configuration(
            policy: policy, localAddress: local, peerAddress: peer, localIdentityAddress: local,
            localIRK: side == .initiator ? centralIRK : peripheralIRK)
    }

    var initiator: PairingSession
    var responder: PairingSession
    /// How each side's agent answers; nil leaves the question unanswered.
    var answer: (Side, PairingAgentQuestion, PairingHarness) -> PairingAgentAnswer? = Self.defaultAnswer
    /// Mutates a command on its way (a tampering man in the middle); nil passes it on.
    var tamper: (Side, SMPCommand) -> SMPCommand? = { _, _ in nil }
    /// Encryption Change reaches the responder first (its keys may overtake the initiator's event).
    var responderEncryptsFirst = false
    /// The controllers report the encryption failed.
    var encryptionFails = false

    // What happened.
    var actions: [Side: [PairingAction]] = [.initiator: [], .responder: []]
    var sent: [Side: [SMPCommand]] = [.initiator: [], .responder: []]
    var displayedPasskey: UInt32?
    var comparedNumbers: [Side: UInt32] = [:]
    var encryptionKey: [Side: (LongTermKey, LinkSecurity)] = [:]
    var keys: [Side: PairingKeys] = [:]
    var errors: [Side: PairingError] = [:]
    var methods: [Side: PairingMethod] = [:]

    init(
        initiator: SecurityPolicy = .default, responder: SecurityPolicy = .default,
        configure: (inout PairingSession.Configuration, Side) -> Void = { _, _ in }
    ) {
        var i = Self.configuration(.initiator, initiator)
        var r = Self.configuration(.responder, responder)
        configure(&i, .initiator)
        configure(&r, .responder)
        self.initiator = PairingSession(role: .initiator, configuration: i)
        self.responder = PairingSession(role: .responder, configuration: r)
    }

    /// Authorizes, confirms, types what the other side displays.
    static func defaultAnswer(_ side: Side, _ question: PairingAgentQuestion, _ harness: PairingHarness)
        -> PairingAgentAnswer?
    {
        switch question {
        case .authorize: .authorized(true)
        case .displayPasskey: .displayed
        case .enterPasskey: harness.displayedPasskey.map { .passkey($0) }
        case .confirmNumber: .confirmed(true)
        case .outOfBandData: .outOfBand(nil)
        }
    }

    private enum Event {
        case deliver(Side, SMPCommand)
        case answer(Side, PairingAgentAnswer)
    }

    private var queue: [Event] = []
    private var unanswered: [(Side, PairingAgentQuestion)] = []

    /// Starts pairing at the initiator and runs both sides until nothing more happens.
    mutating func run(securityRequest: SMP.AuthReq? = nil) {
        let first = initiator.start(securityRequest: securityRequest)
        process(.initiator, first)
        drain()
    }

    /// Feeds `command` to `side` (as if the peer sent it) and runs on.
    mutating func inject(_ command: SMPCommand, to side: Side) {
        queue.append(.deliver(side, command))
        drain()
    }

    private mutating func drain() {
        var steps = 0
        while steps < 10_000 {
            steps += 1
            if !queue.isEmpty {
                let event = queue.removeFirst()
                switch event {
                case .deliver(let side, let command):
                    let out = side == .initiator ? initiator.received(command) : responder.received(command)
                    process(side, out)
                case .answer(let side, let answer):
                    let out = side == .initiator ? initiator.answered(answer) : responder.answered(answer)
                    process(side, out)
                }
                continue
            }
            // Questions that can be answered now (a passkey once the other side showed it).
            let pending = unanswered
            unanswered = []
            var progressed = false
            for (side, question) in pending {
                if let reply = answer(side, question, self) {
                    queue.append(.answer(side, reply))
                    progressed = true
                } else {
                    unanswered.append((side, question))
                }
            }
            if !progressed { break }
        }
    }

    private mutating func process(_ side: Side, _ out: [PairingAction]) {
        actions[side, default: []] += out
        let other: Side = side == .initiator ? .responder : .initiator
        for action in out {
            switch action {
            case .send(let command):
                sent[side, default: []].append(command)
                let onTheWire = tamper(side, command) ?? command
                // Through the codec, as the host would carry it.
                let decoded = try! SMPCommand(decoding: onTheWire.encoded)
                queue.append(.deliver(other, decoded))
            case .ask(let question):
                if case .displayPasskey(let passkey) = question { displayedPasskey = passkey }
                if case .confirmNumber(let value) = question { comparedNumbers[side] = value }
                unanswered.append((side, question))
            case .startEncryption(let key, let security), .provideKey(let key, let security):
                encryptionKey[side] = (key, security)
                encryptIfBothReady()
            case .methodChosen(let method):
                methods[side] = method
            case .completed(let result):
                keys[side] = result
            case .failed(let error):
                errors[side] = error
            case .startTimer, .stopTimer:
                break
            }
        }
    }

    /// The controllers encrypt when the initiator's key matches the one the responder gives
    /// for the LE Long Term Key Request (a mismatch would end in a MIC failure).
    private mutating func encryptIfBothReady() {
        guard let (iKey, iSecurity) = encryptionKey[.initiator], let (rKey, _) = encryptionKey[.responder] else { return }
        let security: LinkSecurity? = iKey == rKey && !encryptionFails ? iSecurity : nil
        if responderEncryptsFirst {
            process(.responder, responder.encryptionStarted(security))
            process(.initiator, initiator.encryptionStarted(security))
        } else {
            process(.initiator, initiator.encryptionStarted(security))
            process(.responder, responder.encryptionStarted(security))
        }
    }

    /// The Pairing Failed reasons each side sent.
    func failures(sentBy side: Side) -> [SMP.PairingFailedReason] {
        sent[side, default: []].compactMap { if case .pairingFailed(let f) = $0 { f.reason } else { nil } }
    }

    var anyEncryption: Bool {
        actions.values.joined().contains {
            switch $0 {
            case .startEncryption, .provideKey: true
            default: false
            }
        }
    }
}

/// A deterministic random source for tests (SplitMix64).
func seededRandom(_ seed: UInt64) -> PairingRandomSource {
    let state = Locked(seed)
    return PairingRandomSource {
        state.withLock { value in
            value &+= 0x9E37_79B9_7F4A_7C15
            var z = value
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
