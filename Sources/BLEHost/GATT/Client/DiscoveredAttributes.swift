import BLEWire

/// A service found by Discover All Primary Services, Discover Primary Service by Service UUID
/// (Core 5.4 Vol 3 Part G §4.4.1, §4.4.2) or through an include (§4.5.1); the service
/// definition is §3.1. `handleRange` runs from the service declaration to the service's last
/// attribute, so start ≤ end by construction.
public struct DiscoveredService: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    /// The service declaration's handle through the End Group Handle.
    public var handleRange: ClosedRange<UInt16>
    /// Primary (0x2800) or secondary (0x2801) service declaration.
    public var isPrimary: Bool

    public init(uuid: BluetoothUUID, handleRange: ClosedRange<UInt16>, isPrimary: Bool = true) {
        self.uuid = uuid
        self.handleRange = handleRange
        self.isPrimary = isPrimary
    }

    /// The service declaration's handle.
    public var startHandle: UInt16 { handleRange.lowerBound }
    /// The service's last attribute handle (End Group Handle).
    public var endHandle: UInt16 { handleRange.upperBound }

    public var description: String {
        "\(isPrimary ? "primary" : "secondary") service \(uuid) \(GATTClientSupport.text(handleRange))"
    }
}

/// An include definition found by Find Included Services (Core 5.4 Vol 3 Part G §4.5.1; the
/// include declaration is §3.2): the included service's handles and UUID.
public struct DiscoveredIncludedService: Hashable, Sendable, CustomStringConvertible {
    /// The include declaration's own handle, inside the including service.
    public var handle: UInt16
    /// The included service's declaration handle through its End Group Handle.
    public var includedServiceRange: ClosedRange<UInt16>
    /// The included service's UUID (read from its declaration when 128-bit, §4.5.1).
    public var uuid: BluetoothUUID

    public init(handle: UInt16, includedServiceRange: ClosedRange<UInt16>, uuid: BluetoothUUID) {
        self.handle = handle
        self.includedServiceRange = includedServiceRange
        self.uuid = uuid
    }

    public var description: String {
        "include at \(Hex.prefixed(handle, width: 4)) of \(uuid) \(GATTClientSupport.text(includedServiceRange))"
    }
}

/// A characteristic found by Discover All Characteristics of a Service or Discover
/// Characteristics by UUID (Core 5.4 Vol 3 Part G §4.6.1, §4.6.2; the definition is §3.3).
///
/// declaration < value ≤ end by construction: the initializer refuses anything else. The end
/// handle is not on the wire: it is the handle before the next characteristic declaration, or
/// the service's end for the last characteristic (§4.7.1).
public struct DiscoveredCharacteristic: Hashable, Sendable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    /// The characteristic declaration's handle.
    public let declarationHandle: UInt16
    /// The Characteristic Value declaration's handle: what reads, writes and notifications name.
    public let valueHandle: UInt16
    public let properties: CharacteristicProperties
    /// The characteristic's last attribute (its last descriptor, or the value handle).
    public let endHandle: UInt16

    /// Nil unless declarationHandle < valueHandle ≤ endHandle.
    public init?(
        uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16,
        properties: CharacteristicProperties, endHandle: UInt16
    ) {
        guard declarationHandle < valueHandle, valueHandle <= endHandle else { return nil }
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
    }

    /// Every handle of the characteristic, declaration through end.
    public var handleRange: ClosedRange<UInt16> { declarationHandle...endHandle }

    /// Where the descriptors may be (value handle + 1 through end), nil when there is no room.
    public var descriptorRange: ClosedRange<UInt16>? {
        valueHandle < endHandle ? (valueHandle + 1)...endHandle : nil
    }

    public var description: String {
        "characteristic \(uuid) \(properties) declaration \(Hex.prefixed(declarationHandle, width: 4))"
            + " value \(Hex.prefixed(valueHandle, width: 4)) end \(Hex.prefixed(endHandle, width: 4))"
    }
}

/// A characteristic descriptor found by Discover All Characteristic Descriptors (Core 5.4
/// Vol 3 Part G §4.7.1; descriptor declarations are §3.3.3).
public struct DiscoveredDescriptor: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    public var handle: UInt16

    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }

    public var description: String { "descriptor \(uuid) at \(Hex.prefixed(handle, width: 4))" }
}

/// What the client procedures share: the GATT attribute types they ask for (Core 5.4 Vol 3 Part G
/// §3.1–§3.3, Assigned Numbers), the handle limits they observe and how handles are printed.
enum GATTClientSupport {
    static let primaryService: UInt16 = 0x2800
    static let include: UInt16 = 0x2802
    static let characteristic: UInt16 = 0x2803

    /// Every handle a client may ask about (0x0000 is reserved, Vol 3 Part F §3.2.2).
    static let all: ClosedRange<UInt16> = 0x0001...0xFFFF

    /// `range` without the reserved handle 0x0000; nil when nothing is left.
    static func usable(_ range: ClosedRange<UInt16>) -> ClosedRange<UInt16>? {
        range.upperBound == 0 ? nil : max(range.lowerBound, 1)...range.upperBound
    }

    /// The longest attribute value (Core 5.4 Vol 3 Part F §3.2.9).
    static let maximumValueLength = 512

    /// "0x0001…0x0005".
    static func text(_ range: ClosedRange<UInt16>) -> String {
        "\(Hex.prefixed(range.lowerBound, width: 4))…\(Hex.prefixed(range.upperBound, width: 4))"
    }
}
