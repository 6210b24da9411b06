import BLEWire
import Crypto
import CryptoExtras

/// The Database Hash (Core 5.4 Vol 3 Part G §7.3.1): AES-CMAC (RFC 4493) with an all-zero key
/// over the service definitions.
enum DatabaseHash {
    /// The message `m` of §7.3.1: in handle order, handle ‖ type ‖ value for service, include,
    /// characteristic and extended properties declarations; handle ‖ type for the user
    /// description, client and server configuration, presentation and aggregate formats; every
    /// other attribute is left out. All fields little-endian; types in their ATT width.
    static func message(over attributes: some Sequence<ServerAttribute>) -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        for attribute in attributes {
            switch attribute.type {
            case GATTAttributeType.primaryService, GATTAttributeType.secondaryService, GATTAttributeType.include,
                GATTAttributeType.characteristic, GATTAttributeType.characteristicExtendedProperties:
                writer.u16(attribute.handle)
                attribute.type.encodeATT(into: &writer)
                if case .value(let value) = attribute.storage { writer.append(value) }
            case GATTAttributeType.characteristicUserDescription, GATTAttributeType.clientCharacteristicConfiguration,
                GATTAttributeType.serverCharacteristicConfiguration,
                GATTAttributeType.characteristicPresentationFormat, GATTAttributeType.characteristicAggregateFormat:
                writer.u16(attribute.handle)
                attribute.type.encodeATT(into: &writer)
            default:
                continue
            }
        }
        return writer.bytes
    }

    /// The hash as the characteristic value: §7.3 defines it as a uint128, and multi-octet
    /// values travel least significant octet first (Part F §3.3.1), so the CMAC output (most
    /// significant octet first, RFC 4493) is reversed — as Zephyr does to pass the SIG's
    /// qualification tests.
    static func compute(over attributes: some Sequence<ServerAttribute>) -> [UInt8] {
        Array(SecurityFunctions.aesCMAC(key: [UInt8](repeating: 0, count: 16), message(over: attributes)).reversed())
    }
}
