import BLELocking
import BLEWire

/// Why a database could not be built or changed.
public enum AttributeDatabaseError: Error, Hashable, Sendable {
    /// A descriptor the database generates itself (Extended Properties 0x2900, Client
    /// Characteristic Configuration 0x2902) was supplied.
    case generatedDescriptorSupplied(BluetoothUUID)
    /// A stored value exceeds the 512 octets an attribute value may hold (Part F §3.2.9).
    case valueTooLong(BluetoothUUID, length: Int)
    /// An included service is not in the database (Part G §3.2).
    case includedServiceNotFound(BluetoothUUID)
    /// No free handle range is large enough (handles end at 0xFFFF, Part F §3.2.2).
    case databaseFull(needed: Int)
    /// No service starts at this handle.
    case serviceNotFound(handle: UInt16)
    /// The service is included by the service at `includingServiceHandle`; remove that one first.
    case serviceIsIncluded(byServiceAt: UInt16)
    /// The GAP and GATT services are part of every server and cannot be removed.
    case mandatoryService(BluetoothUUID)
}

/// The handles a service received (what Core Bluetooth keeps inside its objects).
public struct GATTServiceHandles: Hashable, Sendable {
    /// The handles of one characteristic definition.
    public struct Characteristic: Hashable, Sendable {
        public let uuid: BluetoothUUID
        public let declarationHandle: UInt16
        public let valueHandle: UInt16
        /// The Client Characteristic Configuration descriptor, when notify or indicate is set.
        public let clientConfigurationHandle: UInt16?
        /// The Characteristic Extended Properties descriptor, when present.
        public let extendedPropertiesHandle: UInt16?
        /// The application's descriptors, in the order they were given.
        public let descriptorHandles: [UInt16]
    }

    public let uuid: BluetoothUUID
    public let isPrimary: Bool
    /// From the service declaration to the last attribute of the definition.
    public let range: ClosedRange<UInt16>
    public let characteristics: [Characteristic]
}

/// The attributes of a GATT server in handle order (Core 5.4 Vol 3 Part F §3.2; Part G §3),
/// built from service definitions, with the GAP service (Part C §12) first and the GATT
/// service (Part G §7: Service Changed, Client Supported Features, Database Hash) second.
///
/// Handles are assigned in definition order. Services added later take a new handle range
/// (after the last handle, else the first gap large enough) and removals leave a gap: existing
/// handles never move, so bonded clients' caches of untouched services stay valid, and each
/// change reports the one range a Service Changed indication must name (Part G §7.1).
/// Look-ups are binary searches over the sorted attribute array.
public struct AttributeDatabase: Sendable {
    /// Every attribute, sorted by handle.
    public private(set) var attributes: [ServerAttribute]
    /// Every service (GAP and GATT included), sorted by handle.
    public private(set) var services: [GATTServiceHandles]
    /// The definitions of `services`, index for index, to resolve includes by value.
    private(set) var definitions: [GATTService]
    /// The Database Hash (Part G §7.3) as its characteristic value: the AES-CMAC output as a
    /// little-endian 128-bit integer. Computed when first asked for after a change, not at each
    /// change: publishing n services one by one would otherwise hash the whole database n times.
    public var hash: [UInt8] { hashMemo.value { DatabaseHash.compute(over: attributes) } }
    /// The hash of this database's attributes once computed. Replaced (never changed) when the
    /// attributes change, so a copy of the database keeps the memo of its own attributes.
    private(set) var hashMemo = HashMemo()

    /// The Service Changed characteristic value (Part G §7.1).
    public let serviceChangedHandle: UInt16
    /// Its Client Characteristic Configuration descriptor.
    public let serviceChangedConfigurationHandle: UInt16
    /// The Client Supported Features characteristic value (Part G §7.2).
    public let clientSupportedFeaturesHandle: UInt16
    /// The Database Hash characteristic value (Part G §7.3).
    public let databaseHashHandle: UInt16
    /// The Device Name characteristic value (Part C §12.1).
    public let deviceNameHandle: UInt16

    /// Builds the database: GAP service, GATT service, then `services` in order.
    public init(gap: GAPServiceConfiguration = .init(), services: [GATTService] = [])
        throws(AttributeDatabaseError)
    {
        attributes = []
        self.services = []
        definitions = []
        let builtIn = [Self.gapService(gap), Self.gattService]
        let handles = try Self.build(builtIn + services, startingAt: 1, existing: [], existingHandles: [])
        for (definition, built) in zip(builtIn + services, handles) {
            attributes += built.attributes
            self.services.append(built.handles)
            definitions.append(definition)
        }
        let gattCharacteristics = self.services[1].characteristics
        deviceNameHandle = self.services[0].characteristics[0].valueHandle
        serviceChangedHandle = gattCharacteristics[0].valueHandle
        serviceChangedConfigurationHandle = gattCharacteristics[0].clientConfigurationHandle ?? 0
        clientSupportedFeaturesHandle = gattCharacteristics[1].valueHandle
        databaseHashHandle = gattCharacteristics[2].valueHandle
        if let index = index(of: clientSupportedFeaturesHandle) {
            attributes[index].storage = .clientSupportedFeatures
        }
        if let index = index(of: databaseHashHandle) { attributes[index].storage = .databaseHash }
    }

    // MARK: Look-ups

    /// The index of the first attribute whose handle is `handle` or greater.
    func lowerBound(_ handle: UInt16) -> Int {
        var low = 0
        var high = attributes.count
        while low < high {
            let middle = (low + high) / 2
            if attributes[middle].handle < handle { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of the attribute with `handle`.
    func index(of handle: UInt16) -> Int? {
        let index = lowerBound(handle)
        return index < attributes.count && attributes[index].handle == handle ? index : nil
    }

    /// The attribute with `handle`, nil when there is none (Invalid Handle, Part F §3.4.4.3).
    public func attribute(at handle: UInt16) -> ServerAttribute? {
        index(of: handle).map { attributes[$0] }
    }

    /// The attributes whose handles lie in `range`, in handle order (two binary searches).
    public func attributes(in range: ClosedRange<UInt16>) -> ArraySlice<ServerAttribute> {
        let start = lowerBound(range.lowerBound)
        let end = range.upperBound == 0xFFFF ? attributes.count : lowerBound(range.upperBound + 1)
        return attributes[start..<max(start, end)]
    }

    /// The service that `handle` belongs to.
    public func service(containing handle: UInt16) -> GATTServiceHandles? {
        var low = 0
        var high = services.count
        while low < high {
            let middle = (low + high) / 2
            if services[middle].range.upperBound < handle { low = middle + 1 } else { high = middle }
        }
        return low < services.count && services[low].range.contains(handle) ? services[low] : nil
    }

    /// The value handle of the first characteristic `characteristic` in the first service
    /// `service`.
    public func valueHandle(ofCharacteristic characteristic: BluetoothUUID, inService service: BluetoothUUID)
        -> UInt16?
    {
        services.first { $0.uuid == service }?.characteristics.first { $0.uuid == characteristic }?.valueHandle
    }

    /// The highest handle in use (0 when empty).
    public var lastHandle: UInt16 { attributes.last?.handle ?? 0 }

    // MARK: Internal mutation

    /// Replaces the stored value of the attribute at `index` (a successful write).
    mutating func setStoredValue(_ value: [UInt8], atIndex index: Int) {
        attributes[index].storage = .value(value)
    }

    /// The services changed: the Database Hash (Part G §7.3) is to be computed again when next
    /// asked for.
    mutating func refreshHash() {
        hashMemo = HashMemo()
    }

    /// Inserts built services, keeping every array sorted (binary searches: adding services one
    /// by one at the end costs the same for each).
    mutating func insert(_ built: [BuiltService], definitions added: [GATTService]) {
        for (service, definition) in zip(built, added) {
            let position = lowerBound(service.handles.range.lowerBound)
            attributes.insert(contentsOf: service.attributes, at: position)
            let servicePosition = serviceIndex(after: service.handles.range.lowerBound)
            services.insert(service.handles, at: servicePosition)
            definitions.insert(definition, at: servicePosition)
        }
    }

    /// The index of the first service starting after `handle`.
    func serviceIndex(after handle: UInt16) -> Int {
        var low = 0
        var high = services.count
        while low < high {
            let middle = (low + high) / 2
            if services[middle].range.lowerBound <= handle { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Removes the service at `serviceIndex` and its attributes.
    mutating func removeService(atIndex serviceIndex: Int) {
        let range = services[serviceIndex].range
        let start = lowerBound(range.lowerBound)
        let end = lowerBound(range.upperBound &+ 1)
        attributes.removeSubrange(start..<(range.upperBound == 0xFFFF ? attributes.count : end))
        services.remove(at: serviceIndex)
        definitions.remove(at: serviceIndex)
    }

    // MARK: Built-in services

    /// The GAP service (Core 5.4 Vol 3 Part C §12).
    static func gapService(_ gap: GAPServiceConfiguration) -> GATTService {
        var appearance = ByteWriter(capacity: 2)
        appearance.u16(gap.appearance)
        return GATTService(
            uuid: GATTAttributeType.gapService,
            characteristics: [
                GATTCharacteristic(
                    uuid: GATTAttributeType.deviceName,
                    properties: gap.deviceNameWritable ? [.read, .write] : .read,
                    permissions: gap.deviceNameWritable ? [.readable, .writeable] : .readable,
                    value: .stored(gap.deviceNameValue)),
                GATTCharacteristic(
                    uuid: GATTAttributeType.appearance, properties: .read, permissions: .readable,
                    value: .stored(appearance.bytes)),
            ])
    }

    /// The GATT service (Core 5.4 Vol 3 Part G §7): Service Changed (indicate only, value not
    /// readable, §7.1), Client Supported Features (read, write, §7.2), Database Hash (read, §7.3).
    static let gattService = GATTService(
        uuid: GATTAttributeType.gattService,
        characteristics: [
            GATTCharacteristic(
                uuid: GATTAttributeType.serviceChanged, properties: .indicate, permissions: [],
                value: .stored([0, 0, 0, 0])),
            GATTCharacteristic(
                uuid: GATTAttributeType.clientSupportedFeatures, properties: [.read, .write],
                permissions: [.readable, .writeable], value: .stored([])),
            GATTCharacteristic(
                uuid: GATTAttributeType.databaseHash, properties: .read, permissions: .readable,
                value: .stored([UInt8](repeating: 0, count: 16))),
        ])
}

/// A value computed once from an immutable input, shared by the copies of the value type that
/// holds it (a lock, because copies may be read on different threads).
final class HashMemo: Sendable {
    private let memo = Locked<[UInt8]?>(nil)

    /// Whether the value was computed (for tests: adding services must not compute it).
    var isComputed: Bool { memo.withLock { $0 != nil } }

    func value(_ compute: () -> [UInt8]) -> [UInt8] {
        memo.withLock { memo in
            if let memo { return memo }
            let value = compute()
            memo = value
            return value
        }
    }
}
