import BLEHost
import BLEWire
import Foundation

/// A service (Core 5.4 Vol 3 Part G §3.1), Core Bluetooth's `CBService`: a snapshot of what a
/// peripheral's discovery found, or of what a peripheral manager published.
public struct Service: Sendable, Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public let isPrimary: Bool
    /// The service declaration's handle through its last attribute.
    public let handleRange: ClosedRange<UInt16>
    /// Nil until discovered (`discoverIncludedServices`).
    public internal(set) var includedServices: [Service]?
    /// Nil until discovered (`discoverCharacteristics`).
    public internal(set) var characteristics: [Characteristic]?
    /// The peripheral (or peripheral manager) it belongs to.
    let owner: UUID

    public var description: String { "service \(uuid)" }
}

/// A characteristic (Core 5.4 Vol 3 Part G §3.3), Core Bluetooth's `CBCharacteristic`: a
/// snapshot; `value` and `isNotifying` are those of the moment it was taken.
public struct Characteristic: Sendable, Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    /// What the characteristic declaration allows (§3.3.1.1).
    public let properties: CharacteristicProperties
    /// The characteristic declaration's handle (§3.3.1).
    public let declarationHandle: UInt16
    /// The Characteristic Value handle: what reads, writes and notifications name.
    public let handle: UInt16
    /// The UUID of the service it belongs to.
    public let serviceUUID: BluetoothUUID
    /// The last value read or notified (central), or the stored value (peripheral manager).
    public internal(set) var value: [UInt8]?
    /// Notifications or indications are enabled (central), or some central subscribed
    /// (peripheral manager).
    public internal(set) var isNotifying: Bool
    /// Nil until discovered (`discoverDescriptors`).
    public internal(set) var descriptors: [Descriptor]?
    let owner: UUID

    public var description: String { "characteristic \(uuid) \(properties)" }
}

/// A characteristic descriptor (Core 5.4 Vol 3 Part G §3.3.3), Core Bluetooth's
/// `CBDescriptor`.
public struct Descriptor: Sendable, Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public let handle: UInt16
    /// The Characteristic Value handle of the characteristic it describes.
    public let characteristicHandle: UInt16
    /// The last value read (nil until then).
    public internal(set) var value: [UInt8]?
    let owner: UUID

    public var description: String { "descriptor \(uuid)" }
}

/// How to write a characteristic value (Core Bluetooth's `CBCharacteristicWriteType`).
public enum WriteType: Sendable, Hashable {
    /// Write Characteristic Value, or Write Long Characteristic Values when the value exceeds
    /// ATT_MTU − 3 (Core 5.4 Vol 3 Part G §4.9.3, §4.9.4): the peer acknowledges.
    case withResponse
    /// Write Without Response (Vol 3 Part G §4.9.1): at most ATT_MTU − 3 octets, no answer.
    case withoutResponse
}

/// A service to publish, Core Bluetooth's `CBMutableService`.
public typealias MutableService = GATTService
/// A characteristic to publish, Core Bluetooth's `CBMutableCharacteristic`; a `.dynamic` value
/// is asked of the app (`readRequests`), a `.stored` one is answered by the server.
public typealias MutableCharacteristic = GATTCharacteristic
/// A descriptor to publish, Core Bluetooth's `CBMutableDescriptor`.
public typealias MutableDescriptor = GATTDescriptor

/// A central connected to a peripheral manager (Core Bluetooth's `CBCentral`).
public struct Central: Sendable, Hashable, CustomStringConvertible {
    /// Stable for the central's identity address (see `LEAddress.peerIdentifier`).
    public let identifier: UUID
    /// The longest value a notification or indication to it carries: ATT_MTU − 3 (Core 5.4
    /// Vol 3 Part F §3.4.7.1), as of this snapshot.
    public let maximumUpdateValueLength: Int
    /// The HCI connection handle of its link.
    let connection: ConnectionHandle

    public var description: String { "central \(identifier)" }
}

/// A central's read or write of a characteristic, for the app to answer (Core Bluetooth's
/// `CBATTRequest`; Core 5.4 Vol 3 Part F §3.4.4–§3.4.6).
public struct ATTRequest: Sendable, Hashable {
    enum Kind: Hashable, Sendable {
        case read(GATTRequestToken)
        case write(GATTRequestToken)
        /// A Write Command: never answered (Vol 3 Part F §3.4.5.3).
        case writeWithoutResponse
    }

    public let central: Central
    public let characteristic: Characteristic
    /// The descriptor's UUID when the request is for one of the characteristic's descriptors.
    public let descriptorUUID: BluetoothUUID?
    /// The first octet read or written (Read Blob, Prepare Write: Vol 3 Part F §3.4.4.5,
    /// §3.4.6.1).
    public let offset: Int
    /// A write's value; for a read, the answer from `offset` on, set before responding.
    public var value: [UInt8]?
    let kind: Kind

    /// A write that expects no response (a Write Command): answering it does nothing.
    public var isWriteWithoutResponse: Bool { kind == .writeWithoutResponse }
}

/// The answer to an `ATTRequest` (Core Bluetooth's `CBATTError.Code`, with `.success`).
public enum ATTResult: Sendable, Hashable {
    case success
    /// An ATT Error Response with this code (Core 5.4 Vol 3 Part F §3.4.1.1).
    case error(ATTErrorCode)
}
