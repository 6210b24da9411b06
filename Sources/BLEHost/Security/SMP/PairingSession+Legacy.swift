import BLEWire

/// LE legacy pairing phase 2 (Core 5.4 Vol 3 Part H §2.3.5.2–§2.3.5.5): both sides commit to
/// a random with c1 under the TK, reveal it, and derive the STK with s1.
struct LegacyKeyGeneration: Sendable {
    /// The Temporary Key: 0 for Just Works, the passkey, or the OOB key; nil until known.
    var temporaryKey: SMPKey128?
    /// Mrand (initiator) or Srand (responder).
    var localRandom: SMPKey128
    var peerConfirm: SMPKey128?
    var sentConfirm = false
}

extension PairingSession {
    mutating func beginLegacy(_ negotiation: Negotiation, into actions: inout [PairingAction]) {
        var generation = LegacyKeyGeneration(localRandom: configuration.random.key128())
        switch negotiation.method {
        case .justWorks, .numericComparison:
            generation.temporaryKey = .zero
        case .passkeyEntry(displays: true):
            let passkey = configuration.random.passkey()
            generation.temporaryKey = SMPKey128(high: 0, low: UInt64(passkey))
            actions.append(.ask(.displayPasskey(passkey)))
        case .passkeyEntry(displays: false):
            actions.append(.ask(.enterPasskey))
        case .outOfBand:
            actions.append(.ask(.outOfBandData))
        }
        advanceLegacy(negotiation, &generation, into: &actions)
    }

    mutating func legacy(
        _ answer: PairingAgentAnswer, _ negotiation: Negotiation, _ generation: inout LegacyKeyGeneration,
        into actions: inout [PairingAction]
    ) {
        guard generation.temporaryKey == nil else { return }
        switch (negotiation.method, answer) {
        case (.passkeyEntry(displays: false), .passkey(let passkey)):
            guard let passkey, passkey <= 999_999 else { return fail(.passkeyEntryFailed, into: &actions) }
            generation.temporaryKey = SMPKey128(high: 0, low: UInt64(passkey))
        case (.outOfBand, .outOfBand(let data)):
            guard case .legacy(let key) = data else { return fail(.oobNotAvailable, into: &actions) }
            generation.temporaryKey = key
        default:
            return
        }
        advanceLegacy(negotiation, &generation, into: &actions)
    }

    mutating func legacy(
        _ command: SMPCommand, _ negotiation: Negotiation, _ generation: inout LegacyKeyGeneration,
        into actions: inout [PairingAction]
    ) {
        switch command {
        case .pairingConfirm(let confirm) where generation.peerConfirm == nil && (!isInitiator || generation.sentConfirm):
            generation.peerConfirm = confirm.confirmValue
            if isInitiator {
                // Sconfirm received: reveal Mrand (§2.3.5.5).
                actions.append(.send(.pairingRandom(SMP.PairingRandom(randomValue: generation.localRandom))))
                state = .legacy(negotiation, generation)
            } else {
                advanceLegacy(negotiation, &generation, into: &actions)
            }
        case .pairingRandom(let random) where generation.sentConfirm && generation.peerConfirm != nil:
            guard let tk = generation.temporaryKey, let peerConfirm = generation.peerConfirm else {
                return fail(.unspecifiedReason, into: &actions)
            }
            guard confirmValue(tk, random.randomValue, negotiation) == peerConfirm else {
                return fail(.confirmValueFailed, into: &actions)
            }
            // STK = s1(TK, Srand, Mrand), reduced to the key size (§2.3.5.5, §2.3.4).
            let (srand, mrand) =
                isInitiator ? (random.randomValue, generation.localRandom) : (generation.localRandom, random.randomValue)
            let stk = LongTermKey(key: SecurityFunctions.s1(key: tk, srand, mrand).masked(toKeySize: negotiation.keySize))
            let security = LinkSecurity.encrypted(
                keySize: negotiation.keySize, authenticated: negotiation.authenticated, secureConnections: false)
            if isInitiator {
                actions.append(.startEncryption(stk, security))
            } else {
                actions.append(.send(.pairingRandom(SMP.PairingRandom(randomValue: generation.localRandom))))
                actions.append(.provideKey(stk, security))
            }
            state = .awaitingEncryption(negotiation, negotiation.keys(), early: [])
        default:
            fail(.unspecifiedReason, into: &actions)
        }
    }

    /// Sends this side's confirm value once it can: the initiator as soon as the TK is known,
    /// the responder once it also has Mconfirm.
    private mutating func advanceLegacy(
        _ negotiation: Negotiation, _ generation: inout LegacyKeyGeneration, into actions: inout [PairingAction]
    ) {
        if let tk = generation.temporaryKey, !generation.sentConfirm,
            isInitiator || generation.peerConfirm != nil
        {
            let confirm = confirmValue(tk, generation.localRandom, negotiation)
            actions.append(.send(.pairingConfirm(SMP.PairingConfirm(confirmValue: confirm))))
            generation.sentConfirm = true
        }
        state = .legacy(negotiation, generation)
    }

    /// c1 over this pairing's commands and addresses (§2.3.5.5).
    private func confirmValue(_ tk: SMPKey128, _ random: SMPKey128, _ negotiation: Negotiation) -> SMPKey128 {
        SecurityFunctions.c1(
            key: tk, random: random,
            pairingRequest: SMPCommand.pairingRequest(SMP.PairingRequest(features: negotiation.request)).encoded,
            pairingResponse: SMPCommand.pairingResponse(SMP.PairingResponse(features: negotiation.response)).encoded,
            initiatorAddress: initiatorAddress, responderAddress: responderAddress)
    }
}
