/// One Security Manager Protocol PDU: the code octet and its parameters (Core 5.4 Vol 3 Part H
/// §3.3), as carried in the information payload of a B-frame on CID 0x0006.
///
/// Decode a whole PDU with `SMPCommand(decoding:)`: SMP commands have fixed lengths, so fewer
/// octets than the code's length is `.truncated` (naming the missing field) and more is
/// `.trailingBytes`. A Maximum Encryption Key Size outside 7...16 is `.outOfRange`. Reserved
/// codes are kept as `.unknown` (the host decides the answer, typically Pairing Failed with
/// Command Not Supported); reserved values inside known fields are kept too. Decoding a known
/// command allocates nothing.
public enum SMPCommand: WireCodable, Hashable, WireRenderable {
    case pairingRequest(SMP.PairingRequest)
    case pairingResponse(SMP.PairingResponse)
    case pairingConfirm(SMP.PairingConfirm)
    case pairingRandom(SMP.PairingRandom)
    case pairingFailed(SMP.PairingFailed)
    case encryptionInformation(SMP.EncryptionInformation)
    case centralIdentification(SMP.CentralIdentification)
    case identityInformation(SMP.IdentityInformation)
    case identityAddressInformation(SMP.IdentityAddressInformation)
    case signingInformation(SMP.SigningInformation)
    case securityRequest(SMP.SecurityRequest)
    case pairingPublicKey(SMP.PairingPublicKey)
    case pairingDHKeyCheck(SMP.PairingDHKeyCheck)
    case keypressNotification(SMP.KeypressNotification)
    /// A reserved code (0x00, 0x0F...0xFF), with its parameters as received. Encoding writes
    /// them back verbatim; giving it a known code produces that command's octets instead.
    case unknown(code: UInt8, parameters: ArraySlice<UInt8>)

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "SMP command"
        let code = try reader.u8("Code")
        switch code {
        case 0x01: self = .pairingRequest(try SMP.PairingRequest(from: &reader))
        case 0x02: self = .pairingResponse(try SMP.PairingResponse(from: &reader))
        case 0x03: self = .pairingConfirm(try SMP.PairingConfirm(from: &reader))
        case 0x04: self = .pairingRandom(try SMP.PairingRandom(from: &reader))
        case 0x05: self = .pairingFailed(try SMP.PairingFailed(from: &reader))
        case 0x06: self = .encryptionInformation(try SMP.EncryptionInformation(from: &reader))
        case 0x07: self = .centralIdentification(try SMP.CentralIdentification(from: &reader))
        case 0x08: self = .identityInformation(try SMP.IdentityInformation(from: &reader))
        case 0x09: self = .identityAddressInformation(try SMP.IdentityAddressInformation(from: &reader))
        case 0x0A: self = .signingInformation(try SMP.SigningInformation(from: &reader))
        case 0x0B: self = .securityRequest(try SMP.SecurityRequest(from: &reader))
        case 0x0C: self = .pairingPublicKey(try SMP.PairingPublicKey(from: &reader))
        case 0x0D: self = .pairingDHKeyCheck(try SMP.PairingDHKeyCheck(from: &reader))
        case 0x0E: self = .keypressNotification(try SMP.KeypressNotification(from: &reader))
        default: self = .unknown(code: code, parameters: reader.rest())
        }
    }

    public func encode(into writer: inout ByteWriter) {
        writer.u8(code.rawValue)
        switch self {
        case .pairingRequest(let command): command.encode(into: &writer)
        case .pairingResponse(let command): command.encode(into: &writer)
        case .pairingConfirm(let command): command.encode(into: &writer)
        case .pairingRandom(let command): command.encode(into: &writer)
        case .pairingFailed(let command): command.encode(into: &writer)
        case .encryptionInformation(let command): command.encode(into: &writer)
        case .centralIdentification(let command): command.encode(into: &writer)
        case .identityInformation(let command): command.encode(into: &writer)
        case .identityAddressInformation(let command): command.encode(into: &writer)
        case .signingInformation(let command): command.encode(into: &writer)
        case .securityRequest(let command): command.encode(into: &writer)
        case .pairingPublicKey(let command): command.encode(into: &writer)
        case .pairingDHKeyCheck(let command): command.encode(into: &writer)
        case .keypressNotification(let command): command.encode(into: &writer)
        case .unknown(_, let parameters): writer.append(parameters)
        }
    }

    /// The command's code.
    public var code: SMPCode {
        switch self {
        case .pairingRequest: .pairingRequest
        case .pairingResponse: .pairingResponse
        case .pairingConfirm: .pairingConfirm
        case .pairingRandom: .pairingRandom
        case .pairingFailed: .pairingFailed
        case .encryptionInformation: .encryptionInformation
        case .centralIdentification: .centralIdentification
        case .identityInformation: .identityInformation
        case .identityAddressInformation: .identityAddressInformation
        case .signingInformation: .signingInformation
        case .securityRequest: .securityRequest
        case .pairingPublicKey: .pairingPublicKey
        case .pairingDHKeyCheck: .pairingDHKeyCheck
        case .keypressNotification: .keypressNotification
        case .unknown(let code, _): SMPCode(code)
        }
    }
}
