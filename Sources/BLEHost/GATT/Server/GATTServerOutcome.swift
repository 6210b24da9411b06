import BLEWire

/// The connection a PDU came on: the HCI connection handle of its LE ACL link, which carries
/// one ATT bearer (Core 5.4 Vol 3 Part F §3.2.11).
public struct GATTConnectionID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ handle: ConnectionHandle) { self.rawValue = handle.rawValue }

    /// The link this bearer runs on.
    public var handle: ConnectionHandle { ConnectionHandle(rawValue) }

    public static func < (lhs: GATTConnectionID, rhs: GATTConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }

    // Hashed as its integer (see `ConnectionHandle`): looked up for every request the server
    // answers.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public func _rawHashValue(seed: Int) -> Int { rawValue._rawHashValue(seed: seed) }

    public var description: String { "connection \(rawValue)" }
}

/// Ties an application's answer to the request it answers.
public struct GATTRequestToken: Hashable, Sendable {
    public let connection: GATTConnectionID
    let serial: UInt64
}

/// Names an application attribute: a characteristic value or one of its descriptors.
public struct GATTAttributeReference: Hashable, Sendable {
    /// The attribute itself (the characteristic value handle, or the descriptor's handle).
    public let handle: UInt16
    public let serviceUUID: BluetoothUUID
    /// The handle of the service declaration (to tell two instances of a service apart).
    public let serviceHandle: UInt16
    public let characteristicUUID: BluetoothUUID
    public let characteristicValueHandle: UInt16
    /// The descriptor type when the attribute is a descriptor; nil for the characteristic value.
    public let descriptorUUID: BluetoothUUID?
}

/// A read the application answers (Core Bluetooth's `didReceiveRead`), for a `.dynamic` value.
public struct GATTReadRequest: Hashable, Sendable {
    public let token: GATTRequestToken
    public let attribute: GATTAttributeReference
    /// The first octet wanted (Read Blob, Core 5.4 Vol 3 Part F §3.4.4.5); the answer is the
    /// value from this offset on (the server cuts it to what fits the ATT_MTU).
    public let offset: Int

    public var connection: GATTConnectionID { token.connection }
}

/// One value to write: the whole value from `offset` on (a Write Request has offset 0; an
/// executed queue merges consecutive prepared parts of an attribute, Part F §3.4.6).
public struct GATTWrite: Hashable, Sendable {
    public let attribute: GATTAttributeReference
    public let offset: Int
    public let value: [UInt8]
}

/// Writes the application approves (Core Bluetooth's `didReceiveWrite`), all or none.
public struct GATTWriteRequest: Hashable, Sendable {
    /// The procedure that asked.
    public enum Kind: Hashable, Sendable {
        /// A Write Request (Part F §3.4.5.1): one write.
        case write
        /// An Execute Write Request (Part F §3.4.6.3): the prepared queue, in order, atomically.
        case executeWrite
    }

    public let token: GATTRequestToken
    public let kind: Kind
    public let writes: [GATTWrite]

    public var connection: GATTConnectionID { token.connection }
}

/// A write the application is told about and does not answer (Write Command, Signed Write
/// Command; Part F §3.4.5.3–§3.4.5.4).
public struct GATTWriteCommand: Hashable, Sendable {
    public let connection: GATTConnectionID
    public let write: GATTWrite
    /// Came as a Signed Write Command.
    public let isSigned: Bool
}

/// A client's Client Characteristic Configuration after it wrote it (Part G §3.3.3.3):
/// Core Bluetooth's `didSubscribeTo` / `didUnsubscribeFrom`.
public struct GATTSubscription: Hashable, Sendable {
    public let connection: GATTConnectionID
    public let characteristic: GATTAttributeReference
    public let notifications: Bool
    public let indications: Bool

    public var isSubscribed: Bool { notifications || indications }
}

/// The application's answer to a `GATTReadRequest`.
public enum GATTReadResult: Hashable, Sendable {
    /// The value from the request's offset on.
    case value([UInt8])
    /// An ATT error (e.g. an Application Error 0x80–0x9F, Insufficient Authorization …).
    case error(ATTErrorCode)
}

/// The application's answer to a `GATTWriteRequest`.
public enum GATTWriteResult: Hashable, Sendable {
    case success
    /// An ATT error; `handle` names the attribute at fault (default: the first write's).
    case error(ATTErrorCode, handle: UInt16? = nil)
}

/// What the host does after the server handled a PDU.
public enum GATTServerOutcome: Hashable, Sendable {
    /// Send this PDU (a response or an Error Response).
    case respond(ATTPDU)
    /// Nothing to send (a command, a PDU that is not the server's, an ignored request).
    case none
    /// Ask the application for a value; `GATTServer.complete(_:with:)` turns its answer into
    /// the response (or into the next question, for Read Multiple).
    case read(GATTReadRequest)
    /// Ask the application to approve writes; `GATTServer.complete(_:with:)` answers.
    case write(GATTWriteRequest)
    /// Tell the application about a Write Command; nothing is sent back.
    case writeWithoutResponse(GATTWriteCommand)
    /// Send `response`, then use `mtu` as ATT_MTU (Part F §3.4.2.2: applied once the response
    /// has been sent).
    case mtuExchanged(response: ATTPDU, mtu: Int)
    /// A client changed a Client Characteristic Configuration; send `response` (nil for a
    /// Write Command) and tell the application.
    case subscriptionChanged(GATTSubscription, response: ATTPDU?)
    /// The client confirmed the indication of the characteristic value at `handle`.
    case confirmationReceived(connection: GATTConnectionID, handle: UInt16)
}

/// Misuse of the server's API by the host or the application.
public enum GATTServerError: Error, Hashable, Sendable {
    /// No characteristic value at this handle can be notified or indicated.
    case notNotifiable(handle: UInt16)
    /// No such connection.
    case unknownConnection(GATTConnectionID)
    /// No application-owned value with a stored value at this handle.
    case notAStoredValue(handle: UInt16)
    /// A stored value may hold 512 octets at most (Part F §3.2.9).
    case valueTooLong(length: Int)
}

extension GATTServerOutcome {
    /// The PDU to send, whatever the outcome kind (for the tests and the fuzz target, which look
    /// at the answer rather than at what the host does next).
    package var response: ATTPDU? {
        switch self {
        case .respond(let pdu): pdu
        case .mtuExchanged(let pdu, _): pdu
        case .subscriptionChanged(_, let pdu): pdu
        case .none, .read, .write, .writeWithoutResponse, .confirmationReceived: nil
        }
    }
}
