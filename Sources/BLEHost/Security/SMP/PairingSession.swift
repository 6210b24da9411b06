import BLEWire
import Crypto

/// One pairing procedure on one link, in either role (Core 5.4 Vol 3 Part H §2.3–§2.4, §3):
/// Pairing Feature Exchange, then LE Secure Connections or LE legacy key generation, then
/// encryption and key distribution.
///
/// A value that does no I/O: each input (`start`, `received`, `answered`, `encryptionStarted`,
/// `timedOut`) returns the actions the host performs, in order. On LE the initiator is the
/// central. A failure (sent or received Pairing Failed, or the SMP timeout) ends the session:
/// it answers nothing afterwards.
package struct PairingSession: Sendable {
    package enum Role: Sendable, Hashable {
        /// The central: sends Pairing Request.
        case initiator
        /// The peripheral: answers Pairing Request (and may ask for it with Security Request).
        case responder
    }

    package struct Configuration: Sendable {
        package var policy: SecurityPolicy
        /// The address this host uses on the link (the one the peer sees).
        package var localAddress: LEAddress
        /// The peer's address on the link.
        package var peerAddress: LEAddress
        /// This host's identity address, distributed in Identity Address Information (§3.6.5).
        package var localIdentityAddress: LEAddress
        /// This host's IRK, distributed in Identity Information (§3.6.4).
        package var localIRK: SMPKey128
        /// Bonding_Flags (§3.5.1): keys are asked for and kept. `policy.bondable` by default.
        package var bondable: Bool
        /// This host holds out of band data from the peer: the OOB Data Flag it sends
        /// (§3.5.1). The data itself is asked of the agent when the method is Out of Band.
        package var hasPeerOutOfBandData = false
        /// This host's own LE Secure Connections OOB random r, given to the peer out of band
        /// with `PairingSession.localOutOfBandData` (§2.3.5.6.4); needs `privateKey` to be the
        /// key the confirm value was computed with.
        package var localOutOfBandRandom: SMPKey128?
        /// The P-256 key pair for Secure Connections; nil generates a new one for this pairing
        /// (§2.3.5.6.1).
        package var privateKey: P256.KeyAgreement.PrivateKey?
        /// The repeated-attempts rule (§2.3.6) holds this peer back: refuse with Repeated
        /// Attempts.
        package var refusesAsRepeatedAttempts = false
        /// Whether this side offers LE Secure Connections (the AuthReq SC bit). Always, except
        /// to act as a legacy-only device (tests, interoperability checks).
        package var supportsSecureConnections = true
        /// Nonces, passkeys and distributed keys come from here.
        package var random: PairingRandomSource = .system

        package init(
            policy: SecurityPolicy, localAddress: LEAddress, peerAddress: LEAddress, localIdentityAddress: LEAddress,
            localIRK: SMPKey128
        ) {
            self.policy = policy
            self.localAddress = localAddress
            self.peerAddress = peerAddress
            self.localIdentityAddress = localIdentityAddress
            self.localIRK = localIRK
            bondable = policy.bondable
        }
    }

    package let role: Role
    package let configuration: Configuration
    var state: State = .idle

    package init(role: Role, configuration: Configuration) {
        self.role = role
        self.configuration = configuration
    }

    var isInitiator: Bool { role == .initiator }

    /// Pairing ended: completed, failed or timed out.
    package var isFinished: Bool {
        switch state {
        case .completed, .failed: true
        default: false
        }
    }

    /// The method Pairing Feature Exchange chose, once it did.
    package var method: PairingMethod? { state.negotiation?.method }

    /// The out of band data this host gives the peer for LE Secure Connections OOB pairing
    /// (§2.3.5.6.4): its random r and Ca = f4(PKx, PKx, r, 0).
    package static func localOutOfBandData(
        random: SMPKey128, privateKey: P256.KeyAgreement.PrivateKey
    ) -> OutOfBandData {
        let x = P256KeyExchange.bigEndian(P256KeyExchange.command(privateKey.publicKey).x)
        return .secureConnections(random: random, confirm: SecurityFunctions.f4(x, x, key: random, 0))
    }

    /// What a responder sends to ask the initiator to pair (Security Request, §3.6.7), with
    /// the AuthReq of its policy.
    package static func securityRequest(policy: SecurityPolicy) -> SMPCommand {
        .securityRequest(SMP.SecurityRequest(authReq: authReq(policy: policy, bondable: policy.bondable)))
    }

    /// The AuthReq this host sends: bonding as configured, Secure Connections always, and
    /// MITM when the policy requires it or the IO capability can give it (so two devices with
    /// displays compare numbers rather than fall back to Just Works).
    static func authReq(
        policy: SecurityPolicy, bondable: Bool, extraMITM: Bool = false, secureConnections: Bool = true
    ) -> SMP.AuthReq {
        var flags: SMP.AuthReq = secureConnections ? [.secureConnections] : []
        if policy.requiresMITM || policy.ioCapability != .noInputNoOutput || extraMITM { flags.insert(.mitm) }
        return SMP.AuthReq(bondingFlags: bondable ? .bonding : .noBonding, flags)
    }

    // MARK: Inputs

    /// Initiator: sends Pairing Request (§3.5.1), after a Security Request (`securityRequest`,
    /// its AuthReq) or on this host's own initiative.
    package mutating func start(securityRequest: SMP.AuthReq? = nil) -> [PairingAction] {
        guard role == .initiator, case .idle = state else { return [] }
        if configuration.refusesAsRepeatedAttempts {
            state = .failed
            return [.failed(.failed(.repeatedAttempts, byPeer: false))]
        }
        let request = localFeatures(extraMITM: securityRequest?.contains(.mitm) ?? false)
        state = .awaitingResponse(request)
        return [.send(.pairingRequest(SMP.PairingRequest(features: request))), .startTimer]
    }

    /// An SMP command from the peer.
    package mutating func received(_ command: SMPCommand) -> [PairingAction] {
        guard !isFinished else { return [] }
        var actions: [PairingAction] = []
        handle(command, into: &actions)
        return finish(actions, received: true)
    }

    /// The app's answer to the last question of this kind.
    package mutating func answered(_ answer: PairingAgentAnswer) -> [PairingAction] {
        guard !isFinished else { return [] }
        var actions: [PairingAction] = []
        handle(answer, into: &actions)
        return finish(actions, received: false)
    }

    /// The link is encrypted with the key pairing made (`security`), or encryption failed
    /// (nil). Starts key distribution (§3.6.1).
    package mutating func encryptionStarted(_ security: LinkSecurity?) -> [PairingAction] {
        guard case .awaitingEncryption(let negotiation, let keys, let early) = state else { return [] }
        var actions: [PairingAction] = []
        guard security?.isEncrypted == true else {
            fail(.unspecifiedReason, into: &actions)
            return finish(actions, received: false)
        }
        startDistribution(negotiation, keys, early: early, into: &actions)
        return finish(actions, received: false)
    }

    /// The SMP timer expired (§3.4): pairing fails and no further SMP runs on the link.
    package mutating func timedOut() -> [PairingAction] {
        guard !isFinished, !isIdle else { return [] }
        state = .failed
        return [.failed(.timeout)]
    }

    private var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// Adds the timer actions: restarted on each command sent or received (§3.4), stopped
    /// when pairing ends.
    private func finish(_ actions: [PairingAction], received: Bool) -> [PairingAction] {
        if isFinished {
            // A session refused before it began has no timer running.
            return actions + [.stopTimer]
        }
        let sent = actions.contains { if case .send = $0 { true } else { false } }
        guard sent || received, !actions.contains(.startTimer) else { return actions }
        return actions + [.startTimer]
    }

    // MARK: Failure

    /// Sends Pairing Failed with `reason` and ends the session (§3.5.5).
    mutating func fail(_ reason: SMP.PairingFailedReason, error: PairingError? = nil, into actions: inout [PairingAction]) {
        actions.append(.send(.pairingFailed(SMP.PairingFailed(reason: reason))))
        actions.append(.failed(error ?? .failed(reason, byPeer: false)))
        state = .failed
    }
}
