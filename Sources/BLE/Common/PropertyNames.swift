import BLEHost

/// Characteristic properties by Core Bluetooth's names (`CBCharacteristicProperties`), in the
/// bit order of Core 5.4 Vol 3 Part G §3.3.1.1, Table 3.5.
package enum PropertyNames {
    package static let all: [(name: String, property: CharacteristicProperties)] = [
        ("broadcast", .broadcast), ("read", .read), ("writeWithoutResponse", .writeWithoutResponse),
        ("write", .write), ("notify", .notify), ("indicate", .indicate),
        ("authenticatedSignedWrites", .authenticatedSignedWrites), ("extendedProperties", .extendedProperties),
        ("notifyEncryptionRequired", .notifyEncryptionRequired),
        ("indicateEncryptionRequired", .indicateEncryptionRequired),
    ]

    package static func names(_ properties: CharacteristicProperties) -> [String] {
        all.filter { properties.contains($0.property) }.map(\.name)
    }

    package static func property(named name: String) -> CharacteristicProperties? {
        all.first { $0.name == name }?.property
    }
}
