import BLEWire

/// The security of the link a client uses (Core 5.4 Vol 3 Part C §10.2; Part H §2.3): what the
/// server checks attribute permissions against.
public enum LinkSecurity: Hashable, Sendable {
    /// Not encrypted. `keyAvailable`: a long-term key is known for the peer (bonded), so
    /// the client can start encryption rather than pair (Part C §10.3.1 picks the error).
    case unencrypted(keyAvailable: Bool)
    /// Encrypted with a key of `keySize` octets (7–16); `authenticated` when the pairing was
    /// MITM-protected (LE security mode 1 level 3), `secureConnections` when the key came from
    /// LE Secure Connections (level 4 with an authenticated 16-octet key; Part C §10.2.1).
    case encrypted(keySize: Int, authenticated: Bool, secureConnections: Bool = false)

    /// No encryption, no key.
    public static let none = LinkSecurity.unencrypted(keyAvailable: false)

    public var isEncrypted: Bool {
        if case .encrypted = self { return true }
        return false
    }
}

/// The direction of an access, for permission checks.
enum AttributeAccess {
    case read
    case write
}

/// The security an access needs (strongest flag present wins).
enum SecurityRequirement: Comparable {
    case none
    case encryption
    case authentication
}

extension AttributePermissions {
    /// Whether the access is permitted at all (some flag of its direction is present).
    func permits(_ access: AttributeAccess) -> Bool {
        !isDisjoint(with: access == .read ? .anyRead : .anyWrite)
    }

    /// The link security `access` needs.
    func requirement(for access: AttributeAccess) -> SecurityRequirement {
        switch access {
        case .read:
            if contains(.readAuthenticationRequired) { return .authentication }
            if contains(.readEncryptionRequired) { return .encryption }
        case .write:
            if contains(.writeAuthenticationRequired) { return .authentication }
            if contains(.writeEncryptionRequired) { return .encryption }
        }
        return .none
    }

    func requiresAuthorization(for access: AttributeAccess) -> Bool {
        contains(access == .read ? .readAuthorizationRequired : .writeAuthorizationRequired)
    }
}

extension LinkSecurity {
    /// The error a request meets on this link for `requirement` (Core 5.4 Vol 3 Part C
    /// §10.3.1; Part F §3.4.4.3 …), nil when the link is good enough:
    /// - unencrypted, a key known: Insufficient Encryption (the client should encrypt);
    /// - unencrypted, no key: Insufficient Authentication (the client should pair);
    /// - encrypted with an unauthenticated key where authentication is needed: Insufficient
    ///   Authentication;
    /// - encrypted with a key shorter than `minimumKeySize`: Encryption Key Size Too Short.
    func error(for requirement: SecurityRequirement, minimumKeySize: Int) -> ATTErrorCode? {
        guard requirement != .none else { return nil }
        switch self {
        case .unencrypted(let keyAvailable):
            return keyAvailable ? .insufficientEncryption : .insufficientAuthentication
        case .encrypted(let keySize, let authenticated, _):
            if requirement == .authentication && !authenticated { return .insufficientAuthentication }
            if keySize < minimumKeySize { return .encryptionKeySizeTooShort }
            return nil
        }
    }
}
