import BLEWire

/// What a pairing session needs from the user, through the app's `PairingAgent` (Core 5.4
/// Vol 3 Part H §2.3.5). Each is answered with `PairingSession.answered(_:)`.
package enum PairingAgentQuestion: Sendable, Hashable {
    /// Whether to pair with this method (`PairingAgent.authorizePairing`).
    case authorize(PairingMethod)
    /// Show this passkey (`PairingAgent.displayPasskey`); the session does not wait for it.
    case displayPasskey(UInt32)
    /// Ask the user for the passkey the peer shows (`PairingAgent.requestPasskey`).
    case enterPasskey
    /// Ask whether both devices show this six-digit value (`PairingAgent.confirmNumericComparison`).
    case confirmNumber(UInt32)
    /// The out of band data received from the peer (`PairingAgent.outOfBandData`).
    case outOfBandData
}

/// The app's answer to a `PairingAgentQuestion`.
package enum PairingAgentAnswer: Sendable, Hashable {
    case authorized(Bool)
    /// nil: the user cancelled (Passkey Entry Failed).
    case passkey(UInt32?)
    case confirmed(Bool)
    /// nil: there is none (OOB Not Available).
    case outOfBand(OutOfBandData?)
    /// The passkey was shown (nothing waits for this).
    case displayed
}

/// What the host does for a pairing session: every side effect of SMP, in order.
package enum PairingAction: Sendable, Hashable {
    /// Send this command on the SMP channel.
    case send(SMPCommand)
    case ask(PairingAgentQuestion)
    /// Initiator: start encryption (LE Enable Encryption) with the STK (legacy) or the LTK
    /// (Secure Connections); the link will have this security.
    case startEncryption(LongTermKey, LinkSecurity)
    /// Responder: answer the coming LE Long Term Key Request with this key.
    case provideKey(LongTermKey, LinkSecurity)
    /// (Re)start the SMP timer (30 s, §3.4): on every command sent or received.
    case startTimer
    case stopTimer
    case methodChosen(PairingMethod)
    /// Pairing succeeded and key distribution ended (§3.6.1).
    case completed(PairingKeys)
    /// After sending or receiving Pairing Failed, or a timeout. Nothing more follows.
    case failed(PairingError)
}

/// Everything pairing produced: what a `Bond` is made of (Core 5.4 Vol 3 Part H §3.6.1).
package struct PairingKeys: Sendable, Hashable {
    /// The key to encrypt with as central: the peer's distributed LTK with its EDIV and Rand
    /// (legacy) or the Secure Connections LTK.
    package var peerLongTermKey: LongTermKey?
    /// The key to answer LE Long Term Key Request with as peripheral: the LTK this host
    /// distributed (legacy) or the Secure Connections LTK.
    package var localLongTermKey: LongTermKey?
    package var peerIRK: SMPKey128?
    /// The peer's identity address (Identity Address Information, §3.6.5).
    package var peerIdentityAddress: LEAddress?
    package var peerCSRK: SMPKey128?
    package var localCSRK: SMPKey128?
    package var authenticated: Bool
    package var secureConnections: Bool
    package var keySize: Int
    /// Both sides asked for bonding (Bonding_Flags, §3.5.1): the keys are to be kept.
    package var bonded: Bool
    package var method: PairingMethod

    /// The bond these keys make between this host's identity `local` and the peer, which
    /// paired from `peerAddress` (kept when it distributed no identity address).
    package func bond(local: LEAddress, peerAddress: LEAddress) -> Bond {
        Bond(
            local: local, peer: peerIdentityAddress ?? peerAddress, peerLongTermKey: peerLongTermKey,
            localLongTermKey: localLongTermKey, peerIRK: peerIRK, peerCSRK: peerCSRK,
            localCSRK: localCSRK, authenticated: authenticated,
            secureConnections: secureConnections, keySize: keySize)
    }

    /// The security encryption with these keys gives.
    package var security: LinkSecurity {
        .encrypted(keySize: keySize, authenticated: authenticated, secureConnections: secureConnections)
    }
}

/// Where a pairing session takes its random numbers (nonces, passkeys, keys): the system's
/// generator by default; tests inject a deterministic one.
package struct PairingRandomSource: Sendable {
    private let next: @Sendable () -> UInt64

    package init(_ next: @escaping @Sendable () -> UInt64) { self.next = next }

    package static var system: PairingRandomSource {
        PairingRandomSource {
            var generator = SystemRandomNumberGenerator()
            return generator.next()
        }
    }

    package func uint64() -> UInt64 { next() }
    package func key128() -> SMPKey128 { SMPKey128(high: next(), low: next()) }
    /// A passkey, 000000–999999 (§2.3.5.3).
    package func passkey() -> UInt32 { UInt32(next() % 1_000_000) }
}
