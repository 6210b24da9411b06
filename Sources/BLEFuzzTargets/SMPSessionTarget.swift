import BLEHost
import BLEWire

/// A responder and an initiator `PairingSession` (Core 5.4 Vol 3 Part H) fed arbitrary SMP
/// octets (decoded with `SMPCommand`; undecodable ones counted), each other's commands, the
/// agent's answers, encryption reports and timeouts, in the order the input chooses.
///
/// Promises checked: neither session traps; every command a session sends decodes back to
/// itself; a session emits nothing after `.failed` or `.completed`, and at most one of them;
/// only the initiator starts encryption and only the responder provides a key; a finished
/// session answers every input with nothing.
enum SMPSessionTarget {
    static let initiatorAddress = LEAddress(BluetoothAddress(0x00_1122_3344_55), type: .public)
    static let responderAddress = LEAddress(BluetoothAddress(0xC0_FFEE_0000_01), type: .random)

    /// One session and what it produced.
    struct Side {
        var session: PairingSession
        var outbox: [SMPCommand] = []
        var questions: [PairingAgentQuestion] = []
        var ended = false
        var displayed: UInt32?

        mutating func take(_ actions: [PairingAction], finishedBefore: Bool) throws(FuzzFailure) {
            if finishedBefore && !actions.isEmpty {
                throw FuzzFailure("a finished session acted: \(actions)")
            }
            for action in actions {
                if ended && action != .stopTimer { throw FuzzFailure("an action after the end: \(action)") }
                switch action {
                case .send(let command):
                    guard let again = try? SMPCommand(decoding: command.encoded), again == command else {
                        throw FuzzFailure("a sent command does not round-trip: \(command)")
                    }
                    outbox.append(command)
                case .ask(let question):
                    if case .displayPasskey(let passkey) = question { displayed = passkey }
                    questions.append(question)
                case .startEncryption:
                    if session.role != .initiator { throw FuzzFailure("a responder started encryption") }
                case .provideKey:
                    if session.role != .responder { throw FuzzFailure("an initiator provided a key") }
                case .completed, .failed:
                    ended = true
                case .startTimer, .stopTimer, .methodChosen:
                    break
                }
            }
            if ended != session.isFinished { throw FuzzFailure("isFinished disagrees with the actions") }
        }

        mutating func received(_ command: SMPCommand) throws(FuzzFailure) {
            let before = session.isFinished
            try take(session.received(command), finishedBefore: before)
        }

        mutating func answered(_ answer: PairingAgentAnswer) throws(FuzzFailure) {
            let before = session.isFinished
            try take(session.answered(answer), finishedBefore: before)
        }
    }

    static func configuration(
        _ role: PairingSession.Role, _ policy: SecurityPolicy, oob: Bool, legacyOnly: Bool
    ) -> PairingSession.Configuration {
        let local = role == .initiator ? initiatorAddress : responderAddress
        let peer = role == .initiator ? responderAddress : initiatorAddress
        var configuration = PairingSession.Configuration(
            policy: policy, localAddress: local, peerAddress: peer, localIdentityAddress: local,
            localIRK: SMPKey128(high: 1, low: role == .initiator ? 2 : 3))
        configuration.hasPeerOutOfBandData = oob
        configuration.localOutOfBandRandom = oob ? SMPKey128(high: 4, low: 5) : nil
        configuration.supportsSecureConnections = !legacyOnly
        return configuration
    }

    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var input = FuzzInput(bytes)
        let first = input.u8()
        let second = input.u8()
        var initiatorPolicy = SecurityPolicy()
        initiatorPolicy.ioCapability = SMP.IOCapability(rawValue: first % 5)
        initiatorPolicy.allowsLegacyPairingAsCentral = first & 0x40 != 0
        initiatorPolicy.requiresMITM = second & 0x04 != 0
        initiatorPolicy.minimumKeySize = 7 + Int(second >> 4) % 10
        var responderPolicy = SecurityPolicy()
        responderPolicy.ioCapability = SMP.IOCapability(rawValue: (first >> 3) % 5)
        responderPolicy.maximumKeySize = 7 + Int(second >> 4) % 10
        responderPolicy.minimumKeySize = 7
        var sides = [
            Side(
                session: PairingSession(
                    role: .initiator,
                    configuration: configuration(.initiator, initiatorPolicy, oob: second & 1 != 0, legacyOnly: false))),
            Side(
                session: PairingSession(
                    role: .responder,
                    configuration: configuration(
                        .responder, responderPolicy, oob: second & 2 != 0, legacyOnly: first & 0x80 != 0))),
        ]
        try sides[0].take(sides[0].session.start(), finishedBefore: false)
        var undecodable = 0
        var decoded = 0
        var steps = 0
        while !input.isEmpty, steps < 512 {
            steps += 1
            let choice = input.u8()
            switch choice {
            case 0xF0, 0xF1:
                try relay(from: Int(choice & 1), &sides)
            case 0xF2:
                let index = input.below(2)
                let answer = answer(kind: input.u8(), value: input.u16(), displayed: sides[1 - index].displayed)
                try sides[index].answered(answer)
            case 0xF3:
                let index = input.below(2)
                let before = sides[index].session.isFinished
                try sides[index].take(sides[index].session.timedOut(), finishedBefore: before)
            case 0xF4:
                let security: LinkSecurity? = input.u8() & 1 == 0 ? .encrypted(keySize: 16, authenticated: false) : nil
                for index in 0..<2 {
                    let before = sides[index].session.isFinished
                    let actions = sides[index].session.encryptionStarted(security)
                    try sides[index].take(actions, finishedBefore: before)
                }
            case 0xF5:
                // An honest link: relay both ways until quiet.
                var rounds = 0
                while rounds < 128, !(sides[0].outbox.isEmpty && sides[1].outbox.isEmpty) {
                    rounds += 1
                    try relay(from: 0, &sides)
                    try relay(from: 1, &sides)
                }
            case 0xF6:
                // An agent that says yes to everything, as `JustWorksPairingAgent` would, with the
                // passkey the other side shows.
                for index in 0..<2 {
                    let questions = sides[index].questions
                    sides[index].questions = []
                    for question in questions {
                        let reply: PairingAgentAnswer =
                            switch question {
                            case .authorize: .authorized(true)
                            case .displayPasskey: .displayed
                            case .enterPasskey: .passkey(sides[1 - index].displayed ?? 0)
                            case .confirmNumber: .confirmed(true)
                            case .outOfBandData: .outOfBand(nil)
                            }
                        try sides[index].answered(reply)
                    }
                }
            default:
                // Hostile octets to one side, as the peer would send them.
                let index = Int(choice & 1)
                let payload = input.chunk()
                guard let command = try? SMPCommand(decoding: payload) else {
                    undecodable += 1
                    continue
                }
                decoded += 1
                try sides[index].received(command)
            }
        }
        if decoded + undecodable > steps { throw FuzzFailure("more PDUs counted than fed") }
    }

    /// Delivers the oldest command `from` sent to the other side.
    private static func relay(from index: Int, _ sides: inout [Side]) throws(FuzzFailure) {
        guard !sides[index].outbox.isEmpty else { return }
        let command = sides[index].outbox.removeFirst()
        try sides[1 - index].received(command)
    }

    private static func answer(kind: UInt8, value: UInt16, displayed: UInt32?) -> PairingAgentAnswer {
        switch kind % 6 {
        case 0: .authorized(value & 1 == 0)
        case 1: .passkey(value == 0xFFFF ? nil : displayed ?? UInt32(value) * 16)
        case 2: .confirmed(value & 1 == 0)
        case 3: .outOfBand(nil)
        case 4: .outOfBand(.legacy(temporaryKey: SMPKey128(high: 0, low: UInt64(value))))
        default: .displayed
        }
    }
}
