// Field types shared by SMP commands. Reserved values are kept, not decode errors: how to answer
// them (typically Pairing Failed with Invalid Parameters) is the host's decision, and keeping them
// lets a decoded PDU re-encode to the same octets.

extension SMP {
    /// IO Capability (Core 5.4 Vol 3 Part H §3.5.1).
    public enum IOCapability: Hashable, Sendable, CustomRendering {
        case displayOnly
        case displayYesNo
        case keyboardOnly
        case noInputNoOutput
        case keyboardDisplay
        /// 0x05...0xFF, reserved for future use.
        case reserved(UInt8)

        @inlinable
        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .displayOnly
            case 0x01: self = .displayYesNo
            case 0x02: self = .keyboardOnly
            case 0x03: self = .noInputNoOutput
            case 0x04: self = .keyboardDisplay
            default: self = .reserved(rawValue)
            }
        }

        @inlinable
        public var rawValue: UInt8 {
            switch self {
            case .displayOnly: 0x00
            case .displayYesNo: 0x01
            case .keyboardOnly: 0x02
            case .noInputNoOutput: 0x03
            case .keyboardDisplay: 0x04
            case .reserved(let value): value
            }
        }

        public var rendered: RenderedValue { smpRender(self, rawValue) }
    }

    /// OOB Data Flag (Core 5.4 Vol 3 Part H §3.5.1).
    public enum OOBDataFlag: Hashable, Sendable, CustomRendering {
        case notPresent
        case present
        /// 0x02...0xFF, reserved for future use.
        case reserved(UInt8)

        @inlinable
        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .notPresent
            case 0x01: self = .present
            default: self = .reserved(rawValue)
            }
        }

        @inlinable
        public var rawValue: UInt8 {
            switch self {
            case .notPresent: 0x00
            case .present: 0x01
            case .reserved(let value): value
            }
        }

        public var rendered: RenderedValue { smpRender(self, rawValue) }
    }

    /// The two-bit Bonding_Flags field of AuthReq (Core 5.4 Vol 3 Part H §3.5.1).
    public enum BondingFlags: Hashable, Sendable {
        case noBonding
        case bonding
        /// 0b10 or 0b11, reserved for future use.
        case reserved(UInt8)

        @inlinable
        public init(rawValue: UInt8) {
            switch rawValue & 0x03 {
            case 0b00: self = .noBonding
            case 0b01: self = .bonding
            default: self = .reserved(rawValue & 0x03)
            }
        }

        @inlinable
        public var rawValue: UInt8 {
            switch self {
            case .noBonding: 0b00
            case .bonding: 0b01
            case .reserved(let value): value & 0x03
            }
        }
    }

    /// The AuthReq field of Pairing Request, Pairing Response and Security Request
    /// (Core 5.4 Vol 3 Part H §3.5.1): Bonding_Flags (bits 0–1), MITM (2), SC (3),
    /// Keypress (4), CT2 (5) and two RFU bits (6–7), which are kept as received.
    public struct AuthReq: OptionSet, Hashable, Sendable, CustomRendering {
        public var rawValue: UInt8

        @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Bonding_Flags = 0b01. Read `bondingFlags` to tell 0b01 from the reserved 0b11.
        public static let bonding = AuthReq(rawValue: 0x01)
        /// Man-in-the-middle protection requested.
        public static let mitm = AuthReq(rawValue: 0x04)
        /// LE Secure Connections pairing supported.
        public static let secureConnections = AuthReq(rawValue: 0x08)
        /// Keypress notifications wanted during Passkey Entry (Secure Connections only).
        public static let keypress = AuthReq(rawValue: 0x10)
        /// Support for the h7 function in cross-transport key derivation (§2.4.2.4).
        public static let ct2 = AuthReq(rawValue: 0x20)

        /// Bits 6–7, reserved for future use.
        public static let rfuMask: UInt8 = 0xC0

        /// AuthReq with the given Bonding_Flags and the other bits of `flags`.
        @inlinable
        public init(bondingFlags: BondingFlags, _ flags: AuthReq = []) {
            rawValue = flags.rawValue & ~0x03 | bondingFlags.rawValue
        }

        /// The two-bit Bonding_Flags field.
        @inlinable
        public var bondingFlags: BondingFlags {
            get { BondingFlags(rawValue: rawValue) }
            set { rawValue = rawValue & ~0x03 | newValue.rawValue }
        }

        /// The reserved bits 6–7 as received.
        @inlinable public var rfuBits: UInt8 { rawValue & Self.rfuMask }

        public var rendered: RenderedValue {
            var fields: [(String, RenderedValue)] = [
                ("bondingFlags", Rendering.render(bondingFlags)),
                ("mitm", .bool(contains(.mitm))),
                ("secureConnections", .bool(contains(.secureConnections))),
                ("keypress", .bool(contains(.keypress))),
                ("ct2", .bool(contains(.ct2))),
            ]
            if rfuBits != 0 { fields.append(("rfu", .symbol(Hex.prefixed(rfuBits, width: 2)))) }
            return .object(name: nil, fields: fields)
        }
    }

    /// Initiator / Responder Key Distribution (Core 5.4 Vol 3 Part H §3.6.1):
    /// EncKey (bit 0), IdKey (1), SignKey (2), LinkKey (3); bits 4–7 are RFU and kept.
    public struct KeyDistribution: OptionSet, Hashable, Sendable, CustomRendering {
        public var rawValue: UInt8

        @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// LE legacy: LTK with EDIV and Rand; Secure Connections: ignored (§3.6.1).
        public static let encKey = KeyDistribution(rawValue: 0x01)
        /// IRK and identity address.
        public static let idKey = KeyDistribution(rawValue: 0x02)
        /// CSRK.
        public static let signKey = KeyDistribution(rawValue: 0x04)
        /// Derive the BR/EDR link key from the LTK (cross-transport key derivation).
        public static let linkKey = KeyDistribution(rawValue: 0x08)

        /// Bits 4–7, reserved for future use.
        public static let rfuMask: UInt8 = 0xF0
        @inlinable public var rfuBits: UInt8 { rawValue & Self.rfuMask }

        public var rendered: RenderedValue {
            var names: [RenderedValue] = []
            if contains(.encKey) { names.append(.symbol("encKey")) }
            if contains(.idKey) { names.append(.symbol("idKey")) }
            if contains(.signKey) { names.append(.symbol("signKey")) }
            if contains(.linkKey) { names.append(.symbol("linkKey")) }
            if rfuBits != 0 { names.append(.symbol("rfu(\(Hex.prefixed(rfuBits, width: 2)))")) }
            return .array(names)
        }
    }

    /// Pairing Failed reason codes (Core 5.4 Vol 3 Part H §3.5.5). Unknown values
    /// are kept.
    public struct PairingFailedReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
        CustomRendering
    {
        public let rawValue: UInt8

        @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
        @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

        public static let passkeyEntryFailed = PairingFailedReason(0x01)
        public static let oobNotAvailable = PairingFailedReason(0x02)
        public static let authenticationRequirements = PairingFailedReason(0x03)
        public static let confirmValueFailed = PairingFailedReason(0x04)
        public static let pairingNotSupported = PairingFailedReason(0x05)
        public static let encryptionKeySize = PairingFailedReason(0x06)
        public static let commandNotSupported = PairingFailedReason(0x07)
        public static let unspecifiedReason = PairingFailedReason(0x08)
        public static let repeatedAttempts = PairingFailedReason(0x09)
        public static let invalidParameters = PairingFailedReason(0x0A)
        public static let dhKeyCheckFailed = PairingFailedReason(0x0B)
        public static let numericComparisonFailed = PairingFailedReason(0x0C)
        public static let brEdrPairingInProgress = PairingFailedReason(0x0D)
        public static let crossTransportKeyDerivationNotAllowed = PairingFailedReason(0x0E)
        public static let keyRejected = PairingFailedReason(0x0F)

        /// Every reason Core 5.4 defines.
        public static let allDefined: [PairingFailedReason] = (0x01...0x0F).map { Self(UInt8($0)) }

        /// The specification's name, or nil for a reserved value.
        public var name: String? {
            switch rawValue {
            case 0x01: "Passkey Entry Failed"
            case 0x02: "OOB Not Available"
            case 0x03: "Authentication Requirements"
            case 0x04: "Confirm Value Failed"
            case 0x05: "Pairing Not Supported"
            case 0x06: "Encryption Key Size"
            case 0x07: "Command Not Supported"
            case 0x08: "Unspecified Reason"
            case 0x09: "Repeated Attempts"
            case 0x0A: "Invalid Parameters"
            case 0x0B: "DHKey Check Failed"
            case 0x0C: "Numeric Comparison Failed"
            case 0x0D: "BR/EDR pairing in progress"
            case 0x0E: "Cross-transport Key Derivation/Generation not allowed"
            case 0x0F: "Key Rejected"
            default: nil
            }
        }

        public var description: String {
            "\(name ?? "Reserved") (\(Hex.prefixed(rawValue, width: 2)))"
        }

        public var rendered: RenderedValue { .symbol(description) }
    }

    /// Keypress Notification Type (Core 5.4 Vol 3 Part H §3.5.8).
    public enum KeypressNotificationType: Hashable, Sendable, CustomRendering {
        case passkeyEntryStarted
        case passkeyDigitEntered
        case passkeyDigitErased
        case passkeyCleared
        case passkeyEntryCompleted
        /// 0x05...0xFF, reserved for future use.
        case reserved(UInt8)

        @inlinable
        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .passkeyEntryStarted
            case 0x01: self = .passkeyDigitEntered
            case 0x02: self = .passkeyDigitErased
            case 0x03: self = .passkeyCleared
            case 0x04: self = .passkeyEntryCompleted
            default: self = .reserved(rawValue)
            }
        }

        @inlinable
        public var rawValue: UInt8 {
            switch self {
            case .passkeyEntryStarted: 0x00
            case .passkeyDigitEntered: 0x01
            case .passkeyDigitErased: 0x02
            case .passkeyCleared: 0x03
            case .passkeyEntryCompleted: 0x04
            case .reserved(let value): value
            }
        }

        public var rendered: RenderedValue { smpRender(self, rawValue) }
    }

    /// AddrType of Identity Address Information (Core 5.4 Vol 3 Part H §3.6.5): an identity
    /// address is public or static random.
    public enum IdentityAddressType: Hashable, Sendable, CustomRendering {
        case `public`
        case staticRandom
        /// 0x02...0xFF, reserved for future use.
        case reserved(UInt8)

        @inlinable
        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .public
            case 0x01: self = .staticRandom
            default: self = .reserved(rawValue)
            }
        }

        @inlinable
        public var rawValue: UInt8 {
            switch self {
            case .public: 0x00
            case .staticRandom: 0x01
            case .reserved(let value): value
            }
        }

        public var rendered: RenderedValue { smpRender(self, rawValue) }
    }
}

/// `name` for a defined case, `reserved(0xNN)` otherwise.
private func smpRender(_ value: Any, _ raw: UInt8) -> RenderedValue {
    let text = String(describing: value)
    if text.hasPrefix("reserved") { return .symbol("reserved(\(Hex.prefixed(raw, width: 2)))") }
    return .symbol(text)
}
