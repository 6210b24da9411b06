/// The parameters of one SMP command, without the code octet (Core 5.4 Vol 3 Part H §3.3).
///
/// `init(from:)` / `encode(into:)` read and write the parameters only; `SMPCommand` adds the
/// code. Every SMP command has a fixed length (`SMPCode.Entry.pduLength`).
public protocol SMPCommandParameters: WireCodable, WireRenderable, Hashable {
    static var code: SMPCode { get }
    /// This command wrapped as an `SMPCommand` (for encoding a whole PDU).
    var command: SMPCommand { get }
}

/// An SMP command whose parameters are one field: a 128-bit value (Pairing Confirm, Random,
/// DHKey Check, Encryption, Identity and Signing Information) or a one-octet code (Pairing
/// Failed, Security Request, Keypress Notification). The codec is written once here; each type
/// keeps its own property name (what renders) and states its decoding context and field name.
public protocol SMPSingleFieldCommand: SMPCommandParameters {
    associatedtype Field: SMPSingleField
    /// Decoding context and field name, e.g. ("SMP Pairing Confirm", "Confirm Value").
    static var names: SMPFieldNames { get }
    init(_ field: Field)
    var field: Field { get }
}

extension SMPSingleFieldCommand {
    @inlinable
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = Self.names.context
        self.init(try Field(from: &reader, field: Self.names.field))
    }

    @inlinable
    public func encode(into writer: inout ByteWriter) { field.encode(into: &writer) }
}

/// The names a decode error gives: the command (context) and its one field.
public typealias SMPFieldNames = (context: StaticString, field: StaticString)

/// A field that is a whole SMP command's parameters (see `SMPSingleFieldCommand`).
public protocol SMPSingleField: Hashable, Sendable {
    init(from reader: inout ByteReader, field: StaticString) throws(DecodeError)
    func encode(into writer: inout ByteWriter)
}

extension SMPKey128: SMPSingleField {}

/// A one-octet SMP field whose every value is kept (reserved ones too).
public protocol SMPOctetField: SMPSingleField {
    init(rawValue: UInt8)
    var rawValue: UInt8 { get }
}

extension SMPOctetField {
    @inlinable
    public init(from reader: inout ByteReader, field: StaticString) throws(DecodeError) {
        self.init(rawValue: try reader.u8(field))
    }

    @inlinable
    public func encode(into writer: inout ByteWriter) { writer.u8(rawValue) }
}

extension SMP.AuthReq: SMPOctetField {}
extension SMP.PairingFailedReason: SMPOctetField {}
extension SMP.KeypressNotificationType: SMPOctetField {}

/// Pairing Request and Pairing Response carry the same six fields (Core 5.4 Vol 3 Part H
/// §3.5.1, §3.5.2); they differ only in their code and in who sends them. The fields live in
/// `SMP.PairingFeatures` and are reachable directly (`request.authReq`).
@dynamicMemberLookup
public protocol SMPPairingFeatureCommand: SMPCommandParameters, CustomRendering {
    var features: SMP.PairingFeatures { get set }
    init(features: SMP.PairingFeatures)
    /// Decoding context, e.g. "SMP Pairing Request".
    static var context: StaticString { get }
}

extension SMPPairingFeatureCommand {
    public init(
        ioCapability: SMP.IOCapability, oobDataFlag: SMP.OOBDataFlag = .notPresent, authReq: SMP.AuthReq,
        maximumEncryptionKeySize: UInt8 = 16, initiatorKeyDistribution: SMP.KeyDistribution,
        responderKeyDistribution: SMP.KeyDistribution
    ) {
        self.init(
            features: SMP.PairingFeatures(
                ioCapability: ioCapability, oobDataFlag: oobDataFlag, authReq: authReq,
                maximumEncryptionKeySize: maximumEncryptionKeySize,
                initiatorKeyDistribution: initiatorKeyDistribution,
                responderKeyDistribution: responderKeyDistribution))
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = Self.context
        self.init(features: try SMP.PairingFeatures(from: &reader))
    }

    public func encode(into writer: inout ByteWriter) { features.encode(into: &writer) }

    /// Renders the six fields directly, as on the wire.
    public var rendered: RenderedValue { Rendering.render(features) }

    public subscript<Value>(dynamicMember field: WritableKeyPath<SMP.PairingFeatures, Value>) -> Value {
        get { features[keyPath: field] }
        set { features[keyPath: field] = newValue }
    }
}

extension SMP {
    /// Pairing Request (Core 5.4 Vol 3 Part H §3.5.1): the initiator's pairing features.
    public struct PairingRequest: SMPPairingFeatureCommand {
        public static let code = SMPCode.pairingRequest
        public static let context: StaticString = "SMP Pairing Request"
        public var features: PairingFeatures

        public init(features: PairingFeatures) { self.features = features }
        public var command: SMPCommand { .pairingRequest(self) }
    }

    /// Pairing Response (Core 5.4 Vol 3 Part H §3.5.2): the responder's pairing features. The
    /// key distribution fields are the responder's answer to what the initiator offered.
    public struct PairingResponse: SMPPairingFeatureCommand {
        public static let code = SMPCode.pairingResponse
        public static let context: StaticString = "SMP Pairing Response"
        public var features: PairingFeatures

        public init(features: PairingFeatures) { self.features = features }
        public var command: SMPCommand { .pairingResponse(self) }
    }

    /// The six parameter octets Pairing Request and Pairing Response share (§3.5.1, §3.5.2).
    public struct PairingFeatures: Hashable, Sendable, WireCodable, WireRenderable {
        /// Core 5.4 Vol 3 Part H §3.5.1: "shall be in the range 7 to 16 octets".
        public static let keySizeRange: ClosedRange<Int> = 7...16

        public var ioCapability: IOCapability
        public var oobDataFlag: OOBDataFlag
        public var authReq: AuthReq
        /// Maximum Encryption Key Size in octets, 7...16 (a decode error otherwise).
        public var maximumEncryptionKeySize: UInt8
        public var initiatorKeyDistribution: KeyDistribution
        public var responderKeyDistribution: KeyDistribution

        public init(
            ioCapability: IOCapability, oobDataFlag: OOBDataFlag = .notPresent, authReq: AuthReq,
            maximumEncryptionKeySize: UInt8 = 16, initiatorKeyDistribution: KeyDistribution,
            responderKeyDistribution: KeyDistribution
        ) {
            self.ioCapability = ioCapability
            self.oobDataFlag = oobDataFlag
            self.authReq = authReq
            self.maximumEncryptionKeySize = maximumEncryptionKeySize
            self.initiatorKeyDistribution = initiatorKeyDistribution
            self.responderKeyDistribution = responderKeyDistribution
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            ioCapability = IOCapability(rawValue: try reader.u8("IO Capability"))
            oobDataFlag = OOBDataFlag(rawValue: try reader.u8("OOB Data Flag"))
            authReq = AuthReq(rawValue: try reader.u8("AuthReq"))
            let keySizeOffset = reader.offset
            maximumEncryptionKeySize = try reader.u8("Maximum Encryption Key Size")
            if !Self.keySizeRange.contains(Int(maximumEncryptionKeySize)) {
                throw reader.error(
                    "Maximum Encryption Key Size",
                    .outOfRange(value: Int(maximumEncryptionKeySize), allowed: Self.keySizeRange),
                    at: keySizeOffset)
            }
            initiatorKeyDistribution = KeyDistribution(rawValue: try reader.u8("Initiator Key Distribution"))
            responderKeyDistribution = KeyDistribution(rawValue: try reader.u8("Responder Key Distribution"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(ioCapability.rawValue)
            writer.u8(oobDataFlag.rawValue)
            writer.u8(authReq.rawValue)
            writer.u8(maximumEncryptionKeySize)
            writer.u8(initiatorKeyDistribution.rawValue)
            writer.u8(responderKeyDistribution.rawValue)
        }
    }

    /// Pairing Confirm (Core 5.4 Vol 3 Part H §3.5.3): Mconfirm / Sconfirm, from c1 (legacy) or
    /// f4 (Secure Connections).
    public struct PairingConfirm: SMPSingleFieldCommand {
        public static let code = SMPCode.pairingConfirm
        public static var names: SMPFieldNames { ("SMP Pairing Confirm", "Confirm Value") }
        public var confirmValue: SMPKey128

        public init(confirmValue: SMPKey128) { self.confirmValue = confirmValue }
        public init(_ field: SMPKey128) { confirmValue = field }
        public var field: SMPKey128 { confirmValue }
        public var command: SMPCommand { .pairingConfirm(self) }
    }

    /// Pairing Random (Core 5.4 Vol 3 Part H §3.5.4): Mrand / Srand (legacy) or Na / Nb
    /// (Secure Connections).
    public struct PairingRandom: SMPSingleFieldCommand {
        public static let code = SMPCode.pairingRandom
        public static var names: SMPFieldNames { ("SMP Pairing Random", "Random Value") }
        public var randomValue: SMPKey128

        public init(randomValue: SMPKey128) { self.randomValue = randomValue }
        public init(_ field: SMPKey128) { randomValue = field }
        public var field: SMPKey128 { randomValue }
        public var command: SMPCommand { .pairingRandom(self) }
    }

    /// Pairing Failed (Core 5.4 Vol 3 Part H §3.5.5).
    public struct PairingFailed: SMPSingleFieldCommand {
        public static let code = SMPCode.pairingFailed
        public static var names: SMPFieldNames { ("SMP Pairing Failed", "Reason") }
        public var reason: PairingFailedReason

        public init(reason: PairingFailedReason) { self.reason = reason }
        public init(_ field: PairingFailedReason) { reason = field }
        public var field: PairingFailedReason { reason }
        public var command: SMPCommand { .pairingFailed(self) }
    }

    /// Pairing Public Key (Core 5.4 Vol 3 Part H §3.5.6): the P-256 public key, X then Y, each
    /// 32 octets least significant first. Held inline (64 octets, no heap storage).
    public struct PairingPublicKey: SMPCommandParameters {
        public static let code = SMPCode.pairingPublicKey
        public var x: SMPKey256
        public var y: SMPKey256

        public init(x: SMPKey256, y: SMPKey256) {
            self.x = x
            self.y = y
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "SMP Pairing Public Key"
            x = try SMPKey256(from: &reader, field: "Public Key X")
            y = try SMPKey256(from: &reader, field: "Public Key Y")
        }

        public func encode(into writer: inout ByteWriter) {
            x.encode(into: &writer)
            y.encode(into: &writer)
        }

        public var command: SMPCommand { .pairingPublicKey(self) }
    }

    /// Pairing DHKey Check (Core 5.4 Vol 3 Part H §3.5.7): Ea / Eb from f6.
    public struct PairingDHKeyCheck: SMPSingleFieldCommand {
        public static let code = SMPCode.pairingDHKeyCheck
        public static var names: SMPFieldNames { ("SMP Pairing DHKey Check", "DHKey Check") }
        public var dhKeyCheck: SMPKey128

        public init(dhKeyCheck: SMPKey128) { self.dhKeyCheck = dhKeyCheck }
        public init(_ field: SMPKey128) { dhKeyCheck = field }
        public var field: SMPKey128 { dhKeyCheck }
        public var command: SMPCommand { .pairingDHKeyCheck(self) }
    }

    /// Keypress Notification (Core 5.4 Vol 3 Part H §3.5.8), sent during Passkey Entry when
    /// both sides set the Keypress bit.
    public struct KeypressNotification: SMPSingleFieldCommand {
        public static let code = SMPCode.keypressNotification
        public static var names: SMPFieldNames { ("SMP Keypress Notification", "Notification Type") }
        public var notificationType: KeypressNotificationType

        public init(notificationType: KeypressNotificationType) { self.notificationType = notificationType }
        public init(_ field: KeypressNotificationType) { notificationType = field }
        public var field: KeypressNotificationType { notificationType }
        public var command: SMPCommand { .keypressNotification(self) }
    }
}
