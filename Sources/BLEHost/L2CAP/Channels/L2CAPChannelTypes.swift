import BLEWire

/// A credit based channel of this host: the link it runs on and this end's CID, from the LE
/// dynamic range 0x0040...0x007F (Core 5.4 Vol 3 Part A §2.1).
public struct L2CAPChannelKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let handle: ConnectionHandle
    public let localCID: UInt16

    public init(handle: ConnectionHandle, localCID: UInt16) {
        self.handle = handle
        self.localCID = localCID
    }

    public static func < (lhs: L2CAPChannelKey, rhs: L2CAPChannelKey) -> Bool {
        (lhs.handle, lhs.localCID) < (rhs.handle, rhs.localCID)
    }

    public var description: String { "channel \(Hex.prefixed(localCID, width: 4)) on \(handle)" }
}

/// Which signalling procedure opened a channel: LE Credit Based Connection (Core 5.4 Vol 3
/// Part A §4.22–§4.23, one channel per request) or Enhanced Credit Based (§4.25–§4.26, up to
/// five, reconfigurable with §4.27). The data path is the same (§3.4.3 K-frames).
public enum L2CAPChannelMode: Sendable, Hashable {
    case leCreditBased
    case enhancedCreditBased
}

/// What a published SPSM asks of the link before it accepts a channel (the security results of
/// Core 5.4 Vol 3 Part A §4.23 and §4.26).
public struct L2CAPChannelSecurity: Sendable, Hashable {
    /// The link must be encrypted (else Insufficient Encryption).
    public var encryption: Bool
    /// The link's key must be authenticated, MITM-protected (else Insufficient Authentication).
    public var authentication: Bool
    /// The app must have authorised the peer (else Insufficient Authorization). This host has
    /// no authorisation step yet: a server that asks for it refuses every peer.
    public var authorization: Bool
    /// The shortest encryption key accepted on an encrypted link (else Encryption Key Size
    /// Too Short), 7...16 octets (Vol 3 Part H §2.3.4).
    public var minimumKeySize: Int

    public init(encryption: Bool = false, authentication: Bool = false, authorization: Bool = false, minimumKeySize: Int = 7) {
        self.encryption = encryption
        self.authentication = authentication
        self.authorization = authorization
        self.minimumKeySize = minimumKeySize
    }

    public static let none = L2CAPChannelSecurity()
    public static let encrypted = L2CAPChannelSecurity(encryption: true)
}

/// The link's security as the host knows it when a channel request arrives.
public struct L2CAPLinkSecurity: Sendable, Hashable {
    public var isEncrypted: Bool
    public var isAuthenticated: Bool
    public var isAuthorized: Bool
    public var keySize: Int

    public init(isEncrypted: Bool = false, isAuthenticated: Bool = false, isAuthorized: Bool = false, keySize: Int = 16) {
        self.isEncrypted = isEncrypted
        self.isAuthenticated = isAuthenticated
        self.isAuthorized = isAuthorized
        self.keySize = keySize
    }

    /// The link's security as the host tracks it (authorization is the app's, per channel).
    public init(_ security: LinkSecurity) {
        switch security {
        case .unencrypted: self.init()
        case .encrypted(let keySize, let authenticated, _):
            self.init(isEncrypted: true, isAuthenticated: authenticated, keySize: keySize)
        }
    }
}

/// Why a peer refused a channel, or why this host refuses one: the refusal results of Core 5.4
/// Vol 3 Part A §4.23 (LE) and §4.26 (enhanced), as one set.
public enum L2CAPRefusal: Sendable, Hashable, CustomStringConvertible {
    case spsmNotSupported
    case noResources
    case insufficientAuthentication
    case insufficientAuthorization
    case encryptionKeySizeTooShort
    case insufficientEncryption
    case invalidSourceCID
    case sourceCIDAlreadyAllocated
    case unacceptableParameters
    /// Enhanced only: 0x000C, invalid parameters (MTU or MPS below 64).
    case invalidParameters
    /// A result code Core 5.4 reserves.
    case other(UInt16)

    public init(_ result: L2CAPSignal.LECreditBasedConnectionResponse.Result) {
        switch result {
        case .spsmNotSupported: self = .spsmNotSupported
        case .noResourcesAvailable: self = .noResources
        case .insufficientAuthentication: self = .insufficientAuthentication
        case .insufficientAuthorization: self = .insufficientAuthorization
        case .encryptionKeySizeTooShort: self = .encryptionKeySizeTooShort
        case .insufficientEncryption: self = .insufficientEncryption
        case .invalidSourceCID: self = .invalidSourceCID
        case .sourceCIDAlreadyAllocated: self = .sourceCIDAlreadyAllocated
        case .unacceptableParameters: self = .unacceptableParameters
        case .success, .reserved: self = .other(result.rawValue)
        }
    }

    public init(_ result: L2CAPSignal.CreditBasedConnectionResponse.Result) {
        switch result {
        case .allRefusedSPSMNotSupported: self = .spsmNotSupported
        case .someRefusedInsufficientResources: self = .noResources
        case .allRefusedInsufficientAuthentication: self = .insufficientAuthentication
        case .allRefusedInsufficientAuthorization: self = .insufficientAuthorization
        case .allRefusedEncryptionKeySizeTooShort: self = .encryptionKeySizeTooShort
        case .allRefusedInsufficientEncryption: self = .insufficientEncryption
        case .someRefusedInvalidSourceCID: self = .invalidSourceCID
        case .someRefusedSourceCIDAlreadyAllocated: self = .sourceCIDAlreadyAllocated
        case .allRefusedUnacceptableParameters: self = .unacceptableParameters
        case .allRefusedInvalidParameters: self = .invalidParameters
        case .allSuccessful, .allPendingNoFurtherInformation, .allPendingAuthentication, .allPendingAuthorization,
            .reserved:
            self = .other(result.rawValue)
        }
    }

    /// The §4.23 result that says this.
    public var leResult: L2CAPSignal.LECreditBasedConnectionResponse.Result {
        switch self {
        case .spsmNotSupported: .spsmNotSupported
        case .noResources: .noResourcesAvailable
        case .insufficientAuthentication: .insufficientAuthentication
        case .insufficientAuthorization: .insufficientAuthorization
        case .encryptionKeySizeTooShort: .encryptionKeySizeTooShort
        case .insufficientEncryption: .insufficientEncryption
        case .invalidSourceCID: .invalidSourceCID
        case .sourceCIDAlreadyAllocated: .sourceCIDAlreadyAllocated
        case .unacceptableParameters, .invalidParameters: .unacceptableParameters
        case .other(let raw): .init(rawValue: raw)
        }
    }

    /// The §4.26 result that says this.
    public var enhancedResult: L2CAPSignal.CreditBasedConnectionResponse.Result {
        switch self {
        case .spsmNotSupported: .allRefusedSPSMNotSupported
        case .noResources: .someRefusedInsufficientResources
        case .insufficientAuthentication: .allRefusedInsufficientAuthentication
        case .insufficientAuthorization: .allRefusedInsufficientAuthorization
        case .encryptionKeySizeTooShort: .allRefusedEncryptionKeySizeTooShort
        case .insufficientEncryption: .allRefusedInsufficientEncryption
        case .invalidSourceCID: .someRefusedInvalidSourceCID
        case .sourceCIDAlreadyAllocated: .someRefusedSourceCIDAlreadyAllocated
        case .unacceptableParameters: .allRefusedUnacceptableParameters
        case .invalidParameters: .allRefusedInvalidParameters
        case .other(let raw): .init(rawValue: raw)
        }
    }

    public var description: String {
        switch self {
        case .spsmNotSupported: "SPSM not supported"
        case .noResources: "no resources available"
        case .insufficientAuthentication: "insufficient authentication"
        case .insufficientAuthorization: "insufficient authorization"
        case .encryptionKeySizeTooShort: "encryption key size too short"
        case .insufficientEncryption: "insufficient encryption"
        case .invalidSourceCID: "invalid Source CID"
        case .sourceCIDAlreadyAllocated: "Source CID already allocated"
        case .unacceptableParameters: "unacceptable parameters"
        case .invalidParameters: "invalid parameters"
        case .other(let raw): "result \(Hex.prefixed(raw, width: 4))"
        }
    }
}

/// A rule of credit based flow control the peer broke (Core 5.4 Vol 3 Part A §3.4.3, §4.24,
/// §10.1): each closes the channel — never the link.
public enum L2CAPChannelViolation: Sendable, Hashable, CustomStringConvertible {
    /// A K-frame arrived when the peer had no credit left (§10.1).
    case kFrameWithoutCredit
    /// A K-frame's information payload exceeds this end's MPS (§3.4.3).
    case pduLongerThanMPS(length: Int, mps: Int)
    /// An SDU Length exceeds this end's MTU (§3.4.3).
    case sduLongerThanMTU(length: Int, mtu: Int)
    /// The K-frames of one SDU carry more than its SDU Length (§3.4.3).
    case sduOverrun(sduLength: Int, received: Int)
    /// The first K-frame of an SDU is shorter than its 2-octet SDU Length field (§3.4.3).
    case missingSDULength
    /// The peer's credits would pass 65535 (§4.24).
    case creditOverflow(total: Int)

    public var description: String {
        switch self {
        case .kFrameWithoutCredit: "a K-frame without credit"
        case .pduLongerThanMPS(let length, let mps): "a K-frame of \(length) octets over the MPS of \(mps)"
        case .sduLongerThanMTU(let length, let mtu): "an SDU of \(length) octets over the MTU of \(mtu)"
        case .sduOverrun(let sduLength, let received): "\(received) octets for an SDU of \(sduLength)"
        case .missingSDULength: "a first K-frame without its SDU Length"
        case .creditOverflow(let total): "credits summing to \(total), over 65535"
        }
    }
}

/// Why a channel could not open, or ended.
public enum L2CAPChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer refused it (Core 5.4 Vol 3 Part A §4.23, §4.26).
    case refused(L2CAPRefusal)
    /// All 64 LE dynamic CIDs of the link are taken here (§2.1).
    case noChannelIdentifiers
    /// No published SPSM is free, or the one asked for is taken or outside 0x0001...0x00FF.
    case psmUnavailable(UInt16?)
    /// The peer did not answer a signalling request within the RTX timeout (§6.2.1).
    case timeout
    /// The peer answered with Command Reject (§4.1).
    case commandRejected
    /// The peer's answer broke the rules (out-of-range parameters, a CID already in use).
    case invalidResponse(String)
    /// This end closed the channel.
    case closedLocally
    /// The peer disconnected the channel (§4.6).
    case closedByPeer
    /// The peer broke flow control; this end disconnected the channel.
    case violation(L2CAPChannelViolation)
    /// The link went down with this HCI reason.
    case linkDown(HCIStatus)
    /// An SDU longer than the peer's MTU: nothing was sent (API misuse).
    case sduTooLong(length: Int, mtu: Int)
    /// Not open (never opened, or already closed).
    case notOpen

    public var description: String {
        switch self {
        case .refused(let refusal): "refused: \(refusal)"
        case .noChannelIdentifiers: "no free channel identifier on the link"
        case .psmUnavailable(let psm): psm.map { "PSM \(Hex.prefixed($0, width: 4)) unavailable" } ?? "no free PSM"
        case .timeout: "no answer within the signalling timeout"
        case .commandRejected: "the peer rejected the command"
        case .invalidResponse(let what): "invalid response: \(what)"
        case .closedLocally: "closed"
        case .closedByPeer: "closed by the peer"
        case .violation(let violation): "the peer sent \(violation); the channel was closed"
        case .linkDown(let reason): "the link went down: \(reason)"
        case .sduTooLong(let length, let mtu): "an SDU of \(length) octets exceeds the peer's MTU of \(mtu)"
        case .notOpen: "the channel is not open"
        }
    }
}
