import BLEWire

/// One attribute of the server's database (Core 5.4 Vol 3 Part F §3.2): handle, type,
/// permissions and value, plus the GATT role it plays (Part G §3), which the server needs to
/// answer grouping requests and to route writes.
public struct ServerAttribute: Hashable, Sendable {
    /// Where the value lives.
    public enum Storage: Hashable, Sendable {
        /// Held by the database: declarations, stored application values.
        case value([UInt8])
        /// The Database Hash (Part G §7.3), computed from the database when read.
        case databaseHash
        /// Produced by the application on each read.
        case dynamic
        /// A Client Characteristic Configuration: one value per connection (Part G §3.3.3.3).
        case clientConfiguration
        /// Client Supported Features: one value per connection (Part G §7.2).
        case clientSupportedFeatures
    }

    /// The role of the attribute in the GATT hierarchy (Part G §3).
    public enum Role: Hashable, Sendable {
        /// A service declaration (§3.1); `end` is the last handle of its definition.
        case service(end: UInt16)
        /// An include declaration (§3.2).
        case include
        /// A characteristic declaration (§3.3.1); the value follows at `handle + 1`, and `end`
        /// is the last handle of the characteristic definition.
        case characteristic(end: UInt16)
        /// A characteristic value (§3.3.2).
        case characteristicValue(
            properties: CharacteristicProperties, extendedProperties: CharacteristicExtendedProperties,
            clientConfigurationHandle: UInt16?)
        /// A characteristic descriptor (§3.3.3) of the value at `valueHandle`.
        case descriptor(valueHandle: UInt16)
    }

    public let handle: UInt16
    public let type: BluetoothUUID
    public let permissions: AttributePermissions
    public internal(set) var storage: Storage
    public let role: Role
    /// The handle of the declaration of the service this attribute belongs to.
    public let serviceHandle: UInt16

    init(
        handle: UInt16, type: BluetoothUUID, permissions: AttributePermissions, storage: Storage, role: Role,
        serviceHandle: UInt16
    ) {
        self.handle = handle
        self.type = type
        self.permissions = permissions
        self.storage = storage
        self.role = role
        self.serviceHandle = serviceHandle
    }

    /// Whether the value belongs to the application (reads of `.dynamic` values and every
    /// write go to it), as opposed to GATT's own bookkeeping attributes.
    var isApplicationOwned: Bool {
        switch role {
        case .service, .include, .characteristic: return false
        case .characteristicValue, .descriptor:
            switch storage {
            case .value, .dynamic:
                return type != GATTAttributeType.characteristicExtendedProperties
                    && type != GATTAttributeType.databaseHash && type != GATTAttributeType.serviceChanged
            case .clientConfiguration, .clientSupportedFeatures, .databaseHash: return false
            }
        }
    }

    /// Whether the value has a length fixed by the specification, for which Read Blob may
    /// answer Attribute Not Long (Part F §3.4.4.5): declarations, Extended Properties,
    /// Client Characteristic Configuration, Presentation Format and the Database Hash.
    var hasFixedLength: Bool {
        switch role {
        case .service, .include, .characteristic: return true
        case .characteristicValue: return type == GATTAttributeType.databaseHash
        case .descriptor:
            return type == GATTAttributeType.characteristicExtendedProperties
                || type == GATTAttributeType.clientCharacteristicConfiguration
                || type == GATTAttributeType.characteristicPresentationFormat
        }
    }

    /// The last handle of the group this attribute opens (Part G §2.5.3): a service or a
    /// characteristic definition; the attribute's own handle otherwise (Part F §3.4.3.4).
    var groupEnd: UInt16 {
        switch role {
        case .service(let end), .characteristic(let end): end
        case .include, .characteristicValue, .descriptor: handle
        }
    }
}
