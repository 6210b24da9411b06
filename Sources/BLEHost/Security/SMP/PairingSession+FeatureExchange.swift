import BLEWire

// Phase 1, Pairing Feature Exchange (Core 5.4 Vol 3 Part H §2.3, §3.5.1–§3.5.2).
extension PairingSession {
    /// Responder: checks the request, settles the method and asks the agent to authorize it
    /// (the Pairing Response goes out once it does).
    mutating func receivedPairingRequest(_ request: SMP.PairingFeatures, into actions: inout [PairingAction]) {
        if configuration.refusesAsRepeatedAttempts {
            fail(.repeatedAttempts, into: &actions)
            return
        }
        var response = localFeatures()
        // The responder distributes and receives only keys the initiator asked for (§3.6.1).
        response.initiatorKeyDistribution.formIntersection(request.initiatorKeyDistribution.subtracting(.linkKey))
        response.responderKeyDistribution.formIntersection(request.responderKeyDistribution.subtracting(.linkKey))
        negotiate(request: request, response: response, into: &actions)
    }

    /// Initiator: checks the response against the request and settles the method.
    mutating func receivedPairingResponse(
        request: SMP.PairingFeatures, response: SMP.PairingFeatures, into actions: inout [PairingAction]
    ) {
        var response = response
        // Keys the responder names beyond the request are not distributed (§3.6.1).
        response.initiatorKeyDistribution.formIntersection(request.initiatorKeyDistribution)
        response.responderKeyDistribution.formIntersection(request.responderKeyDistribution)
        negotiate(request: request, response: response, into: &actions)
    }

    private mutating func negotiate(
        request: SMP.PairingFeatures, response: SMP.PairingFeatures, into actions: inout [PairingAction]
    ) {
        let policy = configuration.policy
        let peer = isInitiator ? response : request
        if case .reserved = peer.ioCapability { return fail(.invalidParameters, into: &actions) }
        if case .reserved = peer.oobDataFlag { return fail(.invalidParameters, into: &actions) }
        guard SMP.PairingFeatures.keySizeRange.contains(Int(peer.maximumEncryptionKeySize)) else {
            return fail(.invalidParameters, into: &actions)
        }
        // Secure Connections when both set the SC bit (§2.3.5.6), legacy otherwise — refused
        // as the policy says (Secure Connections Only mode, Part C §10.2.4).
        let secureConnections =
            request.authReq.contains(.secureConnections) && response.authReq.contains(.secureConnections)
        let legacyAllowed = isInitiator ? policy.allowsLegacyPairingAsCentral : policy.allowsLegacyPairingAsPeripheral
        if !secureConnections && (policy.secureConnectionsOnly || !legacyAllowed) {
            return fail(.authenticationRequirements, into: &actions)
        }
        // The key size is the smaller maximum (§2.3.4).
        let keySize = Int(min(request.maximumEncryptionKeySize, response.maximumEncryptionKeySize))
        // Secure Connections Only mode also requires a 128-bit key (Part C §10.2.4).
        if keySize < policy.minimumKeySize || (policy.secureConnectionsOnly && keySize < 16) {
            return fail(.encryptionKeySize, into: &actions)
        }
        let local = isInitiator ? request : response
        let method = PairingMethodTable.method(
            local: local, peer: peer, secureConnections: secureConnections, isInitiator: isInitiator)
        if policy.requiresMITM && method == .justWorks {
            return fail(.authenticationRequirements, into: &actions)
        }
        if method == .outOfBand && secureConnections && peer.oobDataFlag == .present
            && configuration.localOutOfBandRandom == nil
        {
            // The peer says it holds our OOB data, but this host gave none.
            return fail(.oobNotAvailable, into: &actions)
        }
        var initiatorKeys = response.initiatorKeyDistribution
        var responderKeys = response.responderKeyDistribution
        if secureConnections {
            // The LTK is not distributed with Secure Connections: both derive it (§3.6.1).
            initiatorKeys.remove(.encKey)
            responderKeys.remove(.encKey)
        }
        initiatorKeys.subtract([.linkKey])
        responderKeys.subtract([.linkKey])
        let bonding = request.authReq.bondingFlags == .bonding && response.authReq.bondingFlags == .bonding
        if !bonding {
            // Keys that will not be kept are not distributed (as Zephyr and BlueZ do): both
            // sides read the same flags, so both skip the phase.
            initiatorKeys = []
            responderKeys = []
        }
        let negotiation = Negotiation(
            request: request, response: response, method: method, secureConnections: secureConnections,
            keySize: keySize, bonding: bonding, initiatorKeys: initiatorKeys, responderKeys: responderKeys)
        state = .authorizing(negotiation)
        actions.append(.methodChosen(method))
        actions.append(.ask(.authorize(method)))
    }

    /// Phase 2 begins once the agent authorized the method: the questions the method needs,
    /// and this side's first command.
    mutating func beginKeyGeneration(_ negotiation: Negotiation, into actions: inout [PairingAction]) {
        if negotiation.secureConnections {
            beginSecureConnections(negotiation, into: &actions)
        } else {
            beginLegacy(negotiation, into: &actions)
        }
    }
}
