import BLE
import Foundation

/// One device the app knows: what identifies it, where it was last seen, what the user calls
/// it. A row of the `KnownDevices` registry.
public struct KnownDevice: Sendable, Hashable {
    public var key: DeviceKey
    /// The address it last advertised or connected with, and its type.
    public var address: LEAddress
    /// The `Peripheral.identifier` it last had (derived from `address`).
    public var identifier: UUID
    /// The advertised local name, the latest seen.
    public var name: String?
    public var firstSeen: Date
    public var lastSeen: Date
    /// The user's name for it.
    public var label: String?
    /// Its Identity Resolving Key, once bonding gives one (Core 5.4 Vol 3 Part H §2.4.2.1).
    public var irk: [UInt8]?

    public init(
        key: DeviceKey, address: LEAddress, identifier: UUID, name: String? = nil, firstSeen: Date,
        lastSeen: Date, label: String? = nil, irk: [UInt8]? = nil
    ) {
        self.key = key
        self.address = address
        self.identifier = identifier
        self.name = name
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.label = label
        self.irk = irk
    }
}

/// What the registry reports as it changes.
public enum KnownDevicesEvent: Sendable, Hashable {
    /// A device was remembered.
    case added(KnownDevice)
    /// A known device turned up with another address or identifier; its record now has the new
    /// ones.
    case rebound(old: KnownDevice, new: KnownDevice)
    /// A device was forgotten.
    case forgotten(KnownDevice)
}

/// What one scan result meant to the registry.
public enum KnownDeviceObservation: Sendable, Hashable {
    /// A new device, now remembered.
    case added(KnownDevice)
    /// A known device at the address it had.
    case seen(KnownDevice)
    /// A known device at a new address or with a new identifier: re-bound.
    case rebound(old: KnownDevice, new: KnownDevice)

    /// The device's record after the observation.
    public var device: KnownDevice {
        switch self {
        case .added(let device), .seen(let device): device
        case .rebound(_, let new): new
        }
    }
}
