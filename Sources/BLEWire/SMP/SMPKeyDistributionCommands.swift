extension SMP {
    /// Encryption Information (Core 5.4 Vol 3 Part H §3.6.2): the LTK distributed in LE legacy
    /// pairing (Secure Connections derives it instead).
    public struct EncryptionInformation: SMPSingleFieldCommand {
        public static let code = SMPCode.encryptionInformation
        public static var names: SMPFieldNames { ("SMP Encryption Information", "Long Term Key") }
        public var longTermKey: SMPKey128

        public init(longTermKey: SMPKey128) { self.longTermKey = longTermKey }
        public init(_ field: SMPKey128) { longTermKey = field }
        public var field: SMPKey128 { longTermKey }
        public var command: SMPCommand { .encryptionInformation(self) }
    }

    /// Central Identification (Core 5.4 Vol 3 Part H §3.6.3): EDIV and Rand, which identify the
    /// LTK distributed with Encryption Information.
    public struct CentralIdentification: SMPCommandParameters {
        public static let code = SMPCode.centralIdentification
        public var ediv: UInt16
        public var rand: UInt64

        public init(ediv: UInt16, rand: UInt64) {
            self.ediv = ediv
            self.rand = rand
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "SMP Central Identification"
            ediv = try reader.u16("EDIV")
            rand = try reader.u64("Rand")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(ediv)
            writer.u64(rand)
        }

        public var command: SMPCommand { .centralIdentification(self) }
    }

    /// Identity Information (Core 5.4 Vol 3 Part H §3.6.4): the Identity Resolving Key.
    public struct IdentityInformation: SMPSingleFieldCommand {
        public static let code = SMPCode.identityInformation
        public static var names: SMPFieldNames { ("SMP Identity Information", "Identity Resolving Key") }
        public var identityResolvingKey: SMPKey128

        public init(identityResolvingKey: SMPKey128) { self.identityResolvingKey = identityResolvingKey }
        public init(_ field: SMPKey128) { identityResolvingKey = field }
        public var field: SMPKey128 { identityResolvingKey }
        public var command: SMPCommand { .identityInformation(self) }
    }

    /// Identity Address Information (Core 5.4 Vol 3 Part H §3.6.5): the sender's public or
    /// static random identity address.
    public struct IdentityAddressInformation: SMPCommandParameters {
        public static let code = SMPCode.identityAddressInformation
        public var addressType: IdentityAddressType
        public var address: BluetoothAddress

        public init(addressType: IdentityAddressType, address: BluetoothAddress) {
            self.addressType = addressType
            self.address = address
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "SMP Identity Address Information"
            addressType = IdentityAddressType(rawValue: try reader.u8("AddrType"))
            address = try BluetoothAddress(from: &reader, field: "BD_ADDR")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(addressType.rawValue)
            address.encode(into: &writer)
        }

        /// The identity address with its HCI address type, or nil for a reserved AddrType.
        public var identityAddress: LEAddress? {
            switch addressType {
            case .public: LEAddress(address, type: .public)
            case .staticRandom: LEAddress(address, type: .random)
            case .reserved: nil
            }
        }

        public var command: SMPCommand { .identityAddressInformation(self) }
    }

    /// Signing Information (Core 5.4 Vol 3 Part H §3.6.6): the Connection Signature Resolving
    /// Key used for signed ATT writes.
    public struct SigningInformation: SMPSingleFieldCommand {
        public static let code = SMPCode.signingInformation
        public static var names: SMPFieldNames { ("SMP Signing Information", "Signature Key") }
        public var signatureKey: SMPKey128

        public init(signatureKey: SMPKey128) { self.signatureKey = signatureKey }
        public init(_ field: SMPKey128) { signatureKey = field }
        public var field: SMPKey128 { signatureKey }
        public var command: SMPCommand { .signingInformation(self) }
    }

    /// Security Request (Core 5.4 Vol 3 Part H §3.6.7): the peripheral asks the central to pair
    /// or to encrypt with a stored key, stating the security it needs.
    public struct SecurityRequest: SMPSingleFieldCommand {
        public static let code = SMPCode.securityRequest
        public static var names: SMPFieldNames { ("SMP Security Request", "AuthReq") }
        public var authReq: AuthReq

        public init(authReq: AuthReq) { self.authReq = authReq }
        public init(_ field: AuthReq) { authReq = field }
        public var field: AuthReq { authReq }
        public var command: SMPCommand { .securityRequest(self) }
    }
}
