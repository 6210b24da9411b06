import BLEWire

extension PairingSession {
    /// Routes a command by the state (Core 5.4 Vol 3 Part H §3.3): a reserved code, or one
    /// the other role sends, is Command Not Supported; a known command out of sequence is
    /// Unspecified Reason.
    mutating func handle(_ command: SMPCommand, into actions: inout [PairingAction]) {
        if case .pairingFailed(let failed) = command {
            state = .failed
            actions.append(.failed(.failed(failed.reason, byPeer: true)))
            return
        }
        guard let entry = command.code.entry else {
            fail(.commandNotSupported, into: &actions)
            return
        }
        switch (entry.direction, role) {
        case (.initiatorToResponder, .initiator), (.responderToInitiator, .responder):
            fail(.commandNotSupported, into: &actions)
            return
        default: break
        }
        switch (state, command) {
        case (.idle, .pairingRequest(let request)):
            receivedPairingRequest(request.features, into: &actions)
        case (.idle, .securityRequest(let request)):
            actions += start(securityRequest: request.authReq)
        case (_, .securityRequest):
            // A Security Request while pairing is already under way asks for what is being
            // done (§3.6.7): nothing to add.
            break
        case (.awaitingResponse(let request), .pairingResponse(let response)):
            receivedPairingResponse(request: request, response: response.features, into: &actions)
        case (.legacy(let negotiation, var generation), _):
            legacy(command, negotiation, &generation, into: &actions)
        case (.secureConnections(let negotiation, var generation), _):
            secureConnections(command, negotiation, &generation, into: &actions)
        case (.awaitingEncryption(let negotiation, let keys, let early), _) where command.code.entry?.phase == .keyDistribution:
            // The peer's keys may overtake the Encryption Change event in the host: keep them
            // for when encryption is reported (a handful at most, one per key command).
            guard early.count < 5 else {
                fail(.unspecifiedReason, into: &actions)
                return
            }
            state = .awaitingEncryption(negotiation, keys, early: early + [command])
        case (.distributing(let negotiation, var distribution), _):
            distribute(command, negotiation, &distribution, into: &actions)
        default:
            fail(.unspecifiedReason, into: &actions)
        }
    }

    /// Routes an agent answer to what asked it; an answer nothing waits for is ignored.
    mutating func handle(_ answer: PairingAgentAnswer, into actions: inout [PairingAction]) {
        switch (state, answer) {
        case (.authorizing(let negotiation), .authorized(let yes)):
            guard yes else {
                fail(.pairingNotSupported, error: .declined, into: &actions)
                return
            }
            if !isInitiator {
                actions.append(.send(.pairingResponse(SMP.PairingResponse(features: negotiation.response))))
            }
            beginKeyGeneration(negotiation, into: &actions)
        case (.legacy(let negotiation, var generation), _):
            legacy(answer, negotiation, &generation, into: &actions)
        case (.secureConnections(let negotiation, var generation), _):
            secureConnections(answer, negotiation, &generation, into: &actions)
        default:
            break
        }
    }
}
