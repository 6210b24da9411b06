import BLEWire
import Crypto
import Foundation

extension LEAddress {
    /// The namespace of swift-ble peer identifiers (a fixed random UUID).
    static let peerIdentifierNamespace: [UInt8] = [
        0x8B, 0x6B, 0x5A, 0x5E, 0x3C, 0x2F, 0x4F, 0x0B, 0x9D, 0x1E, 0x5A, 0x7C, 0x2E, 0x4B, 0x9F, 0x10,
    ]

    /// A stable identifier for the device with this identity address (Core 5.4 Vol 6 Part B
    /// §1.3: a public or random static address; Vol 3 Part C §15 for identity addresses): the
    /// name-based (SHA-1, version 5) UUID of RFC 9562 §5.5 over "public F0:F1:F2:F3:F4:F5" or
    /// "random …" in swift-ble's namespace. The same address always gives the same identifier
    /// — what Core Bluetooth's `identifier` is to an app — without showing the address itself.
    public var peerIdentifier: UUID {
        let name = "\(type.isRandom ? "random" : "public") \(address)"
        var hash = Insecure.SHA1()
        hash.update(data: Self.peerIdentifierNamespace)
        hash.update(data: Array(name.utf8))
        var bytes = Array(hash.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
