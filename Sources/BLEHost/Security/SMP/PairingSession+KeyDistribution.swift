import BLEWire

/// Phase 3 (Core 5.4 Vol 3 Part H §3.6.1): over the encrypted link the responder distributes
/// its keys first, then the initiator, each in the order Encryption Information, Central
/// Identification (legacy only), Identity Information, Identity Address Information, Signing
/// Information.
struct KeyDistribution: Sendable {
    var keys: PairingKeys
    /// The peer's key commands still to come, in order.
    var expected: [SMPCode]
    /// The peer's LTK until its EDIV and Rand arrive.
    var peerKey: SMPKey128?
}

extension PairingSession {
    /// The commands a side distributing `set` sends, in order.
    static func codes(_ set: SMP.KeyDistribution, secureConnections: Bool) -> [SMPCode] {
        var codes: [SMPCode] = []
        if set.contains(.encKey) && !secureConnections { codes += [.encryptionInformation, .centralIdentification] }
        if set.contains(.idKey) { codes += [.identityInformation, .identityAddressInformation] }
        if set.contains(.signKey) { codes.append(.signingInformation) }
        return codes
    }

    mutating func startDistribution(
        _ negotiation: Negotiation, _ keys: PairingKeys, early: [SMPCommand], into actions: inout [PairingAction]
    ) {
        var keys = keys
        let peerSet = isInitiator ? negotiation.responderKeys : negotiation.initiatorKeys
        var distribution = KeyDistribution(
            keys: keys, expected: Self.codes(peerSet, secureConnections: negotiation.secureConnections))
        if !isInitiator {
            // The responder goes first.
            sendKeys(negotiation, &keys, into: &actions)
            distribution.keys = keys
        }
        state = .distributing(negotiation, distribution)
        if distribution.expected.isEmpty {
            finishDistribution(negotiation, &distribution, into: &actions)
            return
        }
        for command in early {
            guard case .distributing(_, var current) = state else { return }
            distribute(command, negotiation, &current, into: &actions)
        }
    }

    mutating func distribute(
        _ command: SMPCommand, _ negotiation: Negotiation, _ distribution: inout KeyDistribution,
        into actions: inout [PairingAction]
    ) {
        guard let next = distribution.expected.first, next == command.code else {
            return fail(.unspecifiedReason, into: &actions)
        }
        switch command {
        case .encryptionInformation(let info):
            distribution.peerKey = info.longTermKey
        case .centralIdentification(let identification):
            distribution.keys.peerLongTermKey = LongTermKey(
                key: distribution.peerKey ?? .zero, ediv: identification.ediv, rand: identification.rand)
        case .identityInformation(let info):
            distribution.keys.peerIRK = info.identityResolvingKey
        case .identityAddressInformation(let info):
            guard let address = info.identityAddress else { return fail(.invalidParameters, into: &actions) }
            distribution.keys.peerIdentityAddress = address
        case .signingInformation(let info):
            distribution.keys.peerCSRK = info.signatureKey
        default:
            return fail(.unspecifiedReason, into: &actions)
        }
        distribution.expected.removeFirst()
        state = .distributing(negotiation, distribution)
        if distribution.expected.isEmpty { finishDistribution(negotiation, &distribution, into: &actions) }
    }

    /// The peer's keys are all in: the initiator now sends its own, and pairing completes.
    private mutating func finishDistribution(
        _ negotiation: Negotiation, _ distribution: inout KeyDistribution, into actions: inout [PairingAction]
    ) {
        if isInitiator { sendKeys(negotiation, &distribution.keys, into: &actions) }
        state = .completed
        actions.append(.completed(distribution.keys))
    }

    /// Generates and sends this side's keys (§3.6.2–§3.6.6): a random LTK of the key size with
    /// random EDIV and Rand (legacy), this host's IRK and identity address, a random CSRK.
    private func sendKeys(_ negotiation: Negotiation, _ keys: inout PairingKeys, into actions: inout [PairingAction]) {
        let set = isInitiator ? negotiation.initiatorKeys : negotiation.responderKeys
        let random = configuration.random
        if set.contains(.encKey) && !negotiation.secureConnections {
            let ltk = LongTermKey(
                key: random.key128().masked(toKeySize: negotiation.keySize),
                ediv: UInt16(truncatingIfNeeded: random.uint64()), rand: random.uint64())
            keys.localLongTermKey = ltk
            actions.append(.send(.encryptionInformation(SMP.EncryptionInformation(longTermKey: ltk.key))))
            actions.append(.send(.centralIdentification(SMP.CentralIdentification(ediv: ltk.ediv, rand: ltk.rand))))
        }
        if set.contains(.idKey) {
            let identity = configuration.localIdentityAddress
            actions.append(
                .send(.identityInformation(SMP.IdentityInformation(identityResolvingKey: configuration.localIRK))))
            actions.append(
                .send(
                    .identityAddressInformation(
                        SMP.IdentityAddressInformation(
                            addressType: identity.type.isRandom ? .staticRandom : .public, address: identity.address))))
        }
        if set.contains(.signKey) {
            let csrk = random.key128()
            keys.localCSRK = csrk
            actions.append(.send(.signingInformation(SMP.SigningInformation(signatureKey: csrk))))
        }
    }
}
