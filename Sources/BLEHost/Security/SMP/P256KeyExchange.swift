import BLEWire
import Crypto

/// The P-256 Diffie-Hellman of LE Secure Connections (Core 5.4 Vol 3 Part H §2.3.5.6.1), with
/// swift-crypto. SMP carries each coordinate as 32 octets least significant first (§3.5.6);
/// the functions f4, f5 and g2 take them most significant first.
struct P256KeyExchange: Sendable {
    let privateKey: P256.KeyAgreement.PrivateKey

    init(privateKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()) {
        self.privateKey = privateKey
    }

    /// This side's public key as Pairing Public Key carries it.
    var publicKey: SMP.PairingPublicKey { Self.command(privateKey.publicKey) }

    static func command(_ key: P256.KeyAgreement.PublicKey) -> SMP.PairingPublicKey {
        let raw = Array(key.rawRepresentation)  // X ‖ Y, each 32 octets most significant first
        // Both coordinates of a valid key are exactly 32 octets, so these never fall back.
        return SMP.PairingPublicKey(
            x: SMPKey256(littleEndian: raw[0..<32].reversed()) ?? .zero,
            y: SMPKey256(littleEndian: raw[32..<64].reversed()) ?? .zero)
    }

    /// Why a peer's public key gives no DHKey.
    enum Refusal: Error, Equatable {
        /// Not a point of P-256 (the invalid-curve attack, CVE-2018-5383): swift-crypto
        /// refuses to decode it.
        case notOnCurve
        /// Our own X coordinate sent back: our key reflected, or its negation (X, p − Y), which
        /// is on the curve. An honest peer's key pair is its own (§2.3.5.6.1), so it never
        /// shares our X.
        case reflected
    }

    /// The DHKey (the shared X coordinate, most significant first) with the peer's key, or
    /// why there is none. The whole point is checked — both coordinates — so a key with our X
    /// and another Y, or Y = 0, is refused rather than silently yielding a weak secret.
    func dhKey(peer: SMP.PairingPublicKey) -> Result<[UInt8], Refusal> {
        if peer.x == publicKey.x { return .failure(.reflected) }
        let x963 = [0x04] + Self.bigEndian(peer.x) + Self.bigEndian(peer.y)
        guard let key = try? P256.KeyAgreement.PublicKey(x963Representation: x963),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: key)
        else { return .failure(.notOnCurve) }
        return .success(secret.withUnsafeBytes { Array($0) })
    }

    static func bigEndian(_ coordinate: SMPKey256) -> [UInt8] { coordinate.littleEndianBytes.reversed() }
}
