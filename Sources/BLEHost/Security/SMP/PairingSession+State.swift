import BLEWire

extension PairingSession {
    /// Where the procedure is.
    enum State: Sendable {
        case idle
        /// Initiator: Pairing Request sent (these features).
        case awaitingResponse(SMP.PairingFeatures)
        /// Features exchanged (the responder has not sent its response yet); the agent is
        /// asked to authorize the method.
        case authorizing(Negotiation)
        /// Phase 2, LE legacy (§2.3.5.2–§2.3.5.5).
        case legacy(Negotiation, LegacyKeyGeneration)
        /// Phase 2, LE Secure Connections (§2.3.5.6).
        case secureConnections(Negotiation, SecureConnectionsKeyGeneration)
        /// The key is made; the host encrypts the link with it. Key distribution commands the
        /// peer sent before this side learned of the encryption are kept in order.
        case awaitingEncryption(Negotiation, PairingKeys, early: [SMPCommand])
        /// Phase 3 (§3.6.1).
        case distributing(Negotiation, KeyDistribution)
        case completed
        case failed

        var negotiation: Negotiation? {
            switch self {
            case .authorizing(let n), .legacy(let n, _), .secureConnections(let n, _), .awaitingEncryption(let n, _, _),
                .distributing(let n, _):
                n
            case .idle, .awaitingResponse, .completed, .failed: nil
            }
        }
    }

    /// What Pairing Feature Exchange settled (§2.3, §3.5.1–§3.5.2).
    struct Negotiation: Sendable {
        var request: SMP.PairingFeatures
        var response: SMP.PairingFeatures
        var method: PairingMethod
        var secureConnections: Bool
        var keySize: Int
        /// Both sides set Bonding_Flags to Bonding.
        var bonding: Bool
        /// The keys each side distributes (the responder's answer, within the request).
        var initiatorKeys: SMP.KeyDistribution
        var responderKeys: SMP.KeyDistribution

        var authenticated: Bool { method != .justWorks }

        var security: LinkSecurity {
            .encrypted(keySize: keySize, authenticated: authenticated, secureConnections: secureConnections)
        }

        func keys(localLTK: LongTermKey? = nil, peerLTK: LongTermKey? = nil) -> PairingKeys {
            PairingKeys(
                peerLongTermKey: peerLTK, localLongTermKey: localLTK, authenticated: authenticated,
                secureConnections: secureConnections, keySize: keySize, bonded: bonding, method: method)
        }
    }

    /// The Pairing Request / Response features this host sends.
    func localFeatures(extraMITM: Bool = false) -> SMP.PairingFeatures {
        let policy = configuration.policy
        // Keys this host gives; it asks the peer for every key it can use.
        var mine: SMP.KeyDistribution = [.encKey]
        if policy.distributesIdentity { mine.insert(.idKey) }
        if policy.distributesSigningKey { mine.insert(.signKey) }
        let theirs: SMP.KeyDistribution = configuration.bondable ? [.encKey, .idKey, .signKey] : []
        if !configuration.bondable { mine = [] }
        return SMP.PairingFeatures(
            ioCapability: policy.ioCapability, oobDataFlag: configuration.hasPeerOutOfBandData ? .present : .notPresent,
            authReq: Self.authReq(
                policy: policy, bondable: configuration.bondable, extraMITM: extraMITM,
                secureConnections: configuration.supportsSecureConnections),
            maximumEncryptionKeySize: UInt8(clamping: min(16, max(7, policy.maximumKeySize))),
            initiatorKeyDistribution: isInitiator ? mine : theirs,
            responderKeyDistribution: isInitiator ? theirs : mine)
    }

    /// This side's and the peer's features.
    func ours(_ n: Negotiation) -> SMP.PairingFeatures { isInitiator ? n.request : n.response }
    func theirs(_ n: Negotiation) -> SMP.PairingFeatures { isInitiator ? n.response : n.request }

    /// The initiator's and responder's addresses (for c1, f5, f6).
    var initiatorAddress: LEAddress { isInitiator ? configuration.localAddress : configuration.peerAddress }
    var responderAddress: LEAddress { isInitiator ? configuration.peerAddress : configuration.localAddress }
}
