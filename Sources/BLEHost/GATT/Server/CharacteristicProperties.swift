/// The Characteristic Properties bit field of a characteristic declaration (Core 5.4 Vol 3
/// Part G §3.3.1.1, Table 3.5), with Core Bluetooth's names (`CBCharacteristicProperties`).
///
/// They tell a client which procedures it may use; the server enforces access with
/// `AttributePermissions`. The low octet is the declaration's; the two bits above it are Core
/// Bluetooth's server-side `notifyEncryptionRequired` and `indicateEncryptionRequired`, which
/// are not sent (the declaration carries `notify` / `indicate`).
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The properties of a declaration's octet (§3.3.1.1).
    public init(declared octet: UInt8) { self.rawValue = UInt16(octet) }

    /// The octet a declaration carries: the encryption-required bits read as `notify` /
    /// `indicate`.
    public var declaredOctet: UInt8 {
        var octet = UInt8(truncatingIfNeeded: rawValue)
        if contains(.notifyEncryptionRequired) { octet |= CharacteristicProperties.notify.declaredOctet }
        if contains(.indicateEncryptionRequired) { octet |= CharacteristicProperties.indicate.declaredOctet }
        return octet
    }

    /// The value may be broadcast (Server Characteristic Configuration).
    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    /// The value may be read.
    public static let read = CharacteristicProperties(rawValue: 0x02)
    /// The value may be written with a Write Command.
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    /// The value may be written with a Write Request (and long writes).
    public static let write = CharacteristicProperties(rawValue: 0x08)
    /// The value may be notified; a Client Characteristic Configuration descriptor is added.
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    /// The value may be indicated; a Client Characteristic Configuration descriptor is added.
    public static let indicate = CharacteristicProperties(rawValue: 0x20)
    /// The value may be written with a Signed Write Command.
    public static let authenticatedSignedWrites = CharacteristicProperties(rawValue: 0x40)
    /// More properties are in the Characteristic Extended Properties descriptor (added
    /// automatically, §3.3.3.1).
    public static let extendedProperties = CharacteristicProperties(rawValue: 0x80)
    /// Notified, and only over an encrypted link may a client enable it: writing the Client
    /// Characteristic Configuration needs encryption (Core Bluetooth's
    /// `notifyEncryptionRequired`; Core 5.4 Vol 3 Part F §3.2.5). Not sent on air.
    public static let notifyEncryptionRequired = CharacteristicProperties(rawValue: 0x100)
    /// Indicated, and enabled only over an encrypted link (`indicateEncryptionRequired`).
    public static let indicateEncryptionRequired = CharacteristicProperties(rawValue: 0x200)

    /// Every property that lets a client subscribe.
    public static let subscribable: CharacteristicProperties = [
        .notify, .indicate, .notifyEncryptionRequired, .indicateEncryptionRequired,
    ]
}

/// The Characteristic Extended Properties bit field (Core 5.4 Vol 3 Part G §3.3.3.1, Table 3.11).
public struct CharacteristicExtendedProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The value may be written with the Reliable Writes procedure (§4.9.5).
    public static let reliableWrite = CharacteristicExtendedProperties(rawValue: 0x0001)
    /// The Characteristic User Description descriptor is writable (§3.3.3.2).
    public static let writableAuxiliaries = CharacteristicExtendedProperties(rawValue: 0x0002)
}

/// Who may read and write an attribute value, and with what link security (Core 5.4 Vol 3
/// Part F §3.2.5; Part C §10.3). Core Bluetooth's `CBAttributePermissions` plus authentication
/// and authorization.
///
/// Access is permitted when any flag of its direction is present; the strongest present flag
/// sets the security the link must have. `readEncryptionRequired` alone therefore means
/// "readable over an encrypted link", as in Core Bluetooth. The authorization flags add a
/// requirement on top: the connection must have been authorized by the application
/// (`GATTServer.setAuthorized(_:for:)`).
public struct AttributePermissions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Readable over any link.
    public static let readable = AttributePermissions(rawValue: 0x01)
    /// Writable over any link.
    public static let writeable = AttributePermissions(rawValue: 0x02)
    /// Readable over an encrypted link.
    public static let readEncryptionRequired = AttributePermissions(rawValue: 0x04)
    /// Writable over an encrypted link.
    public static let writeEncryptionRequired = AttributePermissions(rawValue: 0x08)
    /// Readable over a link encrypted with an authenticated (MITM-protected) key.
    public static let readAuthenticationRequired = AttributePermissions(rawValue: 0x10)
    /// Writable over a link encrypted with an authenticated (MITM-protected) key.
    public static let writeAuthenticationRequired = AttributePermissions(rawValue: 0x20)
    /// Readable once the application has authorized the connection.
    public static let readAuthorizationRequired = AttributePermissions(rawValue: 0x40)
    /// Writable once the application has authorized the connection.
    public static let writeAuthorizationRequired = AttributePermissions(rawValue: 0x80)

    /// Every read flag.
    static let anyRead: AttributePermissions = [
        .readable, .readEncryptionRequired, .readAuthenticationRequired, .readAuthorizationRequired,
    ]
    /// Every write flag.
    static let anyWrite: AttributePermissions = [
        .writeable, .writeEncryptionRequired, .writeAuthenticationRequired, .writeAuthorizationRequired,
    ]
}
