import BLEWire

/// LE Secure Connections phase 2 (Core 5.4 Vol 3 Part H §2.3.5.6): public keys, then
/// authentication stage 1 (Just Works / Numeric Comparison, 20 rounds of Passkey Entry, or
/// Out of Band), then the DHKey check (stage 2) with the LTK from f5.
///
/// Flags rather than one state per message: the user's answers and the peer's commands may
/// come in either order, and `advance` sends whatever has become possible.
struct SecureConnectionsKeyGeneration: Sendable {
    var exchange: P256KeyExchange
    var sentPublicKey = false
    var peerKey: SMP.PairingPublicKey?
    var dhKey: [UInt8]?
    /// Na or Nb (of the current round for Passkey Entry).
    var localNonce: SMPKey128
    var peerNonce: SMPKey128?
    var peerConfirm: SMPKey128?
    var sentConfirm = false
    var sentNonce = false
    /// Passkey Entry: the passkey once known, and the round (0..<20, §2.3.5.6.3).
    var passkey: UInt32?
    var round = 0
    /// Out of Band: the peer's data is known (or known to be absent), and its r (0 if none).
    var outOfBandResolved = false
    var peerOutOfBand: (random: SMPKey128, confirm: SMPKey128)?
    /// Numeric Comparison: the user was asked / confirmed.
    var askedUser = false
    var userConfirmed = false
    /// Stage 1 done: the final Na, Nb and the keys f5 gives.
    var macKey: SMPKey128?
    var longTermKey: SMPKey128?
    var peerCheck: SMPKey128?
    var sentCheck = false
}

extension PairingSession {
    mutating func beginSecureConnections(_ negotiation: Negotiation, into actions: inout [PairingAction]) {
        let exchange = configuration.privateKey.map { P256KeyExchange(privateKey: $0) } ?? P256KeyExchange()
        var generation = SecureConnectionsKeyGeneration(exchange: exchange, localNonce: configuration.random.key128())
        switch negotiation.method {
        case .justWorks, .numericComparison:
            break
        case .passkeyEntry(displays: true):
            let passkey = configuration.random.passkey()
            generation.passkey = passkey
            actions.append(.ask(.displayPasskey(passkey)))
        case .passkeyEntry(displays: false):
            actions.append(.ask(.enterPasskey))
        case .outOfBand:
            if ours(negotiation).oobDataFlag == .present {
                actions.append(.ask(.outOfBandData))
            } else {
                generation.outOfBandResolved = true
            }
        }
        advance(negotiation, &generation, into: &actions)
    }

    mutating func secureConnections(
        _ answer: PairingAgentAnswer, _ negotiation: Negotiation, _ generation: inout SecureConnectionsKeyGeneration,
        into actions: inout [PairingAction]
    ) {
        switch (negotiation.method, answer) {
        case (.passkeyEntry(displays: false), .passkey(let passkey)) where generation.passkey == nil:
            guard let passkey, passkey <= 999_999 else { return fail(.passkeyEntryFailed, into: &actions) }
            generation.passkey = passkey
        case (.outOfBand, .outOfBand(let data)) where !generation.outOfBandResolved:
            guard case .secureConnections(let random, let confirm) = data else {
                return fail(.oobNotAvailable, into: &actions)
            }
            generation.peerOutOfBand = (random, confirm)
            generation.outOfBandResolved = true
        case (.numericComparison, .confirmed(let yes)) where generation.askedUser && !generation.userConfirmed:
            guard yes else { return fail(.numericComparisonFailed, into: &actions) }
            generation.userConfirmed = true
        default:
            return
        }
        advance(negotiation, &generation, into: &actions)
    }

    mutating func secureConnections(
        _ command: SMPCommand, _ negotiation: Negotiation, _ generation: inout SecureConnectionsKeyGeneration,
        into actions: inout [PairingAction]
    ) {
        switch command {
        case .pairingPublicKey(let key) where generation.peerKey == nil && (generation.sentPublicKey || !isInitiator):
            switch generation.exchange.dhKey(peer: key) {
            case .success(let dhKey):
                generation.peerKey = key
                generation.dhKey = dhKey
            case .failure:
                // CVE-2018-5383: a key off the curve (or our own) never yields a DHKey.
                return fail(.dhKeyCheckFailed, into: &actions)
            }
        case .pairingConfirm(let confirm) where generation.peerKey != nil && generation.peerConfirm == nil:
            switch negotiation.method {
            case .justWorks, .numericComparison:
                // Only the responder commits in these methods (§2.3.5.6.2).
                guard isInitiator else { return fail(.unspecifiedReason, into: &actions) }
            case .passkeyEntry:
                // The initiator's Cai comes first, the responder's Cbi answers it.
                guard !isInitiator || generation.sentConfirm else { return fail(.unspecifiedReason, into: &actions) }
            case .outOfBand:
                return fail(.unspecifiedReason, into: &actions)
            }
            generation.peerConfirm = confirm.confirmValue
        case .pairingRandom(let random) where generation.peerNonce == nil && generation.macKey == nil:
            guard receivedNonce(random.randomValue, negotiation, &generation, into: &actions) else { return }
        case .pairingDHKeyCheck(let check) where generation.macKey != nil && generation.peerCheck == nil:
            guard isInitiator ? generation.sentCheck : true else { return fail(.unspecifiedReason, into: &actions) }
            generation.peerCheck = check.dhKeyCheck
        case .keypressNotification:
            // This host never sets the Keypress bit; a peer's notifications change nothing.
            break
        default:
            return fail(.unspecifiedReason, into: &actions)
        }
        advance(negotiation, &generation, into: &actions)
    }

    /// Na / Nb (§2.3.5.6.2–§2.3.5.6.4): checks the peer's commitment where it made one; false
    /// when pairing failed.
    private mutating func receivedNonce(
        _ nonce: SMPKey128, _ negotiation: Negotiation, _ generation: inout SecureConnectionsKeyGeneration,
        into actions: inout [PairingAction]
    ) -> Bool {
        guard let peerKey = generation.peerKey else {
            fail(.unspecifiedReason, into: &actions)
            return false
        }
        let localX = P256KeyExchange.bigEndian(generation.exchange.publicKey.x)
        let peerX = P256KeyExchange.bigEndian(peerKey.x)
        switch negotiation.method {
        case .justWorks, .numericComparison:
            if isInitiator {
                // Nb opens Cb = f4(PKbx, PKax, Nb, 0).
                guard generation.sentNonce, let confirm = generation.peerConfirm else {
                    fail(.unspecifiedReason, into: &actions)
                    return false
                }
                guard SecurityFunctions.f4(peerX, localX, key: nonce, 0) == confirm else {
                    fail(.confirmValueFailed, into: &actions)
                    return false
                }
            } else if !generation.sentConfirm {
                fail(.unspecifiedReason, into: &actions)
                return false
            }
        case .passkeyEntry:
            // Each round opens the peer's Cai / Cbi = f4(PKx, PKx', N, 0x80 | bit).
            guard let confirm = generation.peerConfirm, generation.sentConfirm, let passkey = generation.passkey,
                !isInitiator || generation.sentNonce
            else {
                fail(.unspecifiedReason, into: &actions)
                return false
            }
            let bit = UInt8(truncatingIfNeeded: (passkey >> UInt32(generation.round)) & 1) | 0x80
            guard SecurityFunctions.f4(peerX, localX, key: nonce, bit) == confirm else {
                fail(.confirmValueFailed, into: &actions)
                return false
            }
        case .outOfBand:
            // The responder may get Na before the agent gave the OOB data; Nb waits for it.
            guard !isInitiator || generation.sentNonce else {
                fail(.unspecifiedReason, into: &actions)
                return false
            }
        }
        generation.peerNonce = nonce
        return true
    }

    /// Sends whatever the state now allows, in protocol order, and moves on when stage 1 or
    /// stage 2 completes.
    private mutating func advance(
        _ negotiation: Negotiation, _ generation: inout SecureConnectionsKeyGeneration,
        into actions: inout [PairingAction]
    ) {
        var g = generation
        defer { generation = g }
        func send(_ command: SMPCommand) { actions.append(.send(command)) }
        // Public keys: the initiator first, the responder in answer (§2.3.5.6.1).
        if !g.sentPublicKey && (isInitiator || g.peerKey != nil) {
            send(.pairingPublicKey(g.exchange.publicKey))
            g.sentPublicKey = true
        }
        guard let peerKey = g.peerKey, g.sentPublicKey else {
            state = .secureConnections(negotiation, g)
            return
        }
        let localX = P256KeyExchange.bigEndian(g.exchange.publicKey.x)
        let peerX = P256KeyExchange.bigEndian(peerKey.x)
        if g.macKey == nil {
            switch negotiation.method {
            case .justWorks, .numericComparison:
                if !isInitiator && !g.sentConfirm {
                    // Cb = f4(PKbx, PKax, Nb, 0) (§2.3.5.6.2).
                    send(.pairingConfirm(SMP.PairingConfirm(confirmValue: SecurityFunctions.f4(localX, peerX, key: g.localNonce, 0))))
                    g.sentConfirm = true
                }
                if isInitiator && g.peerConfirm != nil && !g.sentNonce {
                    send(.pairingRandom(SMP.PairingRandom(randomValue: g.localNonce)))
                    g.sentNonce = true
                }
                if !isInitiator && g.peerNonce != nil && !g.sentNonce {
                    send(.pairingRandom(SMP.PairingRandom(randomValue: g.localNonce)))
                    g.sentNonce = true
                }
                if g.peerNonce != nil && g.sentNonce { finishStage1(negotiation, &g, localX, peerX) }
            case .passkeyEntry:
                guard let passkey = g.passkey else { break }
                // 20 rounds, one passkey bit each (§2.3.5.6.3).
                while g.round < 20 && g.macKey == nil {
                    let bit = UInt8(truncatingIfNeeded: (passkey >> UInt32(g.round)) & 1) | 0x80
                    if !g.sentConfirm && (isInitiator || g.peerConfirm != nil) {
                        let confirm = SecurityFunctions.f4(localX, peerX, key: g.localNonce, bit)
                        send(.pairingConfirm(SMP.PairingConfirm(confirmValue: confirm)))
                        g.sentConfirm = true
                    }
                    if !g.sentNonce && g.sentConfirm && (isInitiator ? g.peerConfirm != nil : g.peerNonce != nil) {
                        send(.pairingRandom(SMP.PairingRandom(randomValue: g.localNonce)))
                        g.sentNonce = true
                    }
                    guard g.sentNonce, g.peerNonce != nil else { break }
                    if g.round == 19 {
                        finishStage1(negotiation, &g, localX, peerX)
                    } else {
                        g.round += 1
                        g.localNonce = configuration.random.key128()
                        g.peerNonce = nil
                        g.peerConfirm = nil
                        g.sentConfirm = false
                        g.sentNonce = false
                    }
                }
            case .outOfBand:
                guard g.outOfBandResolved else { break }
                if let peer = g.peerOutOfBand, !g.sentConfirm {
                    // The peer's Cx = f4(PKx, PKx, rx, 0) proves the key is the one it gave
                    // out of band (§2.3.5.6.4).
                    guard SecurityFunctions.f4(peerX, peerX, key: peer.random, 0) == peer.confirm else {
                        return fail(.confirmValueFailed, into: &actions)
                    }
                }
                g.sentConfirm = true  // nothing to send: the check is done
                if !g.sentNonce && (isInitiator || g.peerNonce != nil) {
                    send(.pairingRandom(SMP.PairingRandom(randomValue: g.localNonce)))
                    g.sentNonce = true
                }
                if g.peerNonce != nil && g.sentNonce { finishStage1(negotiation, &g, localX, peerX) }
            }
        }
        guard g.macKey != nil else {
            state = .secureConnections(negotiation, g)
            return
        }
        if negotiation.method == .numericComparison && !g.askedUser {
            // Va = Vb = g2(PKax, PKbx, Na, Nb) mod 10⁶ (§2.3.5.6.2).
            let (pkax, pkbx) = isInitiator ? (localX, peerX) : (peerX, localX)
            let (na, nb) = nonces(g)
            actions.append(.ask(.confirmNumber(SecurityFunctions.g2(pkax, pkbx, key: na, nb) % 1_000_000)))
            g.askedUser = true
        }
        if negotiation.method == .numericComparison && !g.userConfirmed {
            state = .secureConnections(negotiation, g)
            return
        }
        stage2(negotiation, &g, into: &actions)
    }

    /// Na and Nb of the last exchange.
    private func nonces(_ g: SecureConnectionsKeyGeneration) -> (SMPKey128, SMPKey128) {
        let peer = g.peerNonce ?? .zero
        return isInitiator ? (g.localNonce, peer) : (peer, g.localNonce)
    }

    /// MacKey and LTK = f5(DHKey, Na, Nb, A, B) (§2.3.5.6.5).
    private func finishStage1(
        _ negotiation: Negotiation, _ g: inout SecureConnectionsKeyGeneration, _ localX: [UInt8], _ peerX: [UInt8]
    ) {
        let (na, nb) = nonces(g)
        let keys = SecurityFunctions.f5(dhKey: g.dhKey ?? [], na, nb, initiatorAddress, responderAddress)
        g.macKey = keys.macKey
        g.longTermKey = keys.longTermKey
    }

    /// The DHKey check (§2.3.5.6.5): Ea = f6(MacKey, Na, Nb, rb, IOcapA, A, B) from the
    /// initiator, Eb = f6(MacKey, Nb, Na, ra, IOcapB, B, A) in answer.
    private mutating func stage2(
        _ negotiation: Negotiation, _ g: inout SecureConnectionsKeyGeneration, into actions: inout [PairingAction]
    ) {
        guard let macKey = g.macKey, let ltk = g.longTermKey else { return }
        let (na, nb) = nonces(g)
        let (ra, rb) = checkRandoms(negotiation, g)
        let ioCapA = ioCap(negotiation.request)
        let ioCapB = ioCap(negotiation.response)
        let ea = SecurityFunctions.f6(key: macKey, na, nb, rb, ioCap: ioCapA, initiatorAddress, responderAddress)
        let eb = SecurityFunctions.f6(key: macKey, nb, na, ra, ioCap: ioCapB, responderAddress, initiatorAddress)
        let key = LongTermKey(key: ltk.masked(toKeySize: negotiation.keySize))
        if isInitiator {
            if !g.sentCheck {
                actions.append(.send(.pairingDHKeyCheck(SMP.PairingDHKeyCheck(dhKeyCheck: ea))))
                g.sentCheck = true
            }
            guard let check = g.peerCheck else {
                state = .secureConnections(negotiation, g)
                return
            }
            guard check == eb else { return fail(.dhKeyCheckFailed, into: &actions) }
            actions.append(.startEncryption(key, negotiation.security))
        } else {
            guard let check = g.peerCheck else {
                state = .secureConnections(negotiation, g)
                return
            }
            guard check == ea else { return fail(.dhKeyCheckFailed, into: &actions) }
            actions.append(.send(.pairingDHKeyCheck(SMP.PairingDHKeyCheck(dhKeyCheck: eb))))
            actions.append(.provideKey(key, negotiation.security))
        }
        state = .awaitingEncryption(negotiation, negotiation.keys(localLTK: key, peerLTK: key), early: [])
    }

    /// ra and rb of the DHKey check: 0 for Just Works and Numeric Comparison, the passkey for
    /// Passkey Entry; for Out of Band each side's r when the other holds it, else 0.
    private func checkRandoms(_ negotiation: Negotiation, _ g: SecureConnectionsKeyGeneration) -> (SMPKey128, SMPKey128) {
        switch negotiation.method {
        case .justWorks, .numericComparison:
            return (.zero, .zero)
        case .passkeyEntry:
            let r = SMPKey128(high: 0, low: UInt64(g.passkey ?? 0))
            return (r, r)
        case .outOfBand:
            let local =
                theirs(negotiation).oobDataFlag == .present ? (configuration.localOutOfBandRandom ?? .zero) : .zero
            let peer = g.peerOutOfBand?.random ?? .zero
            return isInitiator ? (local, peer) : (peer, local)
        }
    }

    /// IOcap = AuthReq ‖ OOB data flag ‖ IO capability (§2.2.8).
    private func ioCap(_ features: SMP.PairingFeatures) -> [UInt8] {
        [features.authReq.rawValue, features.oobDataFlag.rawValue, features.ioCapability.rawValue]
    }
}
