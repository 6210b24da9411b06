/// Characteristic Properties as text (Core 5.4 Vol 3 Part G §3.3.1.1), for error messages and
/// logs. Kept apart from the type so that it serves whichever definition of the type is kept.
extension CharacteristicProperties: CustomStringConvertible {
    /// Every flag with its name, in bit order.
    static let named: [(CharacteristicProperties, String)] = [
        (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "writeWithoutResponse"),
        (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
        (.authenticatedSignedWrites, "authenticatedSignedWrites"), (.extendedProperties, "extendedProperties"),
        (.notifyEncryptionRequired, "notifyEncryptionRequired"),
        (.indicateEncryptionRequired, "indicateEncryptionRequired"),
    ]

    /// "[read, notify]".
    public var description: String {
        "[" + Self.named.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}
