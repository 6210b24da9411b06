import BLEHost
import BLEWire

/// Why a call of the public API failed.
///
/// A call that cannot succeed in the current state — a manager not powered on, a peripheral not
/// connected, a characteristic without the property the operation needs, a value too long,
/// advertising data over 31 octets — throws at once, before anything is sent (Design: "API
/// misuse throws at once"). The peer's answers and the link's fate come as the other cases.
public enum BLEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The manager is not powered on; the associated value is its state.
    case notPoweredOn(ManagerState)
    /// The manager was closed; it cannot be powered on again.
    case closed
    /// The peripheral is not connected.
    case notConnected
    /// A connection attempt or a disconnection of this peripheral is already under way.
    case connectionInProgress
    /// The peripheral did not answer within the connect timeout; the attempt was cancelled
    /// (LE Create Connection Cancel, Core 5.4 Vol 4 Part E §7.8.13).
    case connectionTimeout(Duration)
    /// The attempt was cancelled (`cancelPeripheralConnection`, task cancellation, power off).
    case connectionCancelled
    /// The controller could not make the connection (the LE Connection Complete status,
    /// Vol 4 Part E §7.7.65.1).
    case connectionFailed(HCIStatus)
    /// The link went down during the operation; `reason` is the HCI disconnection reason.
    case disconnected(reason: HCIStatus)
    /// The peripheral does not belong to this manager.
    case unknownPeripheral
    /// The service, characteristic or descriptor was not discovered on this peripheral during
    /// the current connection, or is not published by this peripheral manager.
    case unknownAttribute
    /// The characteristic lacks every property the operation needs (Core 5.4 Vol 3 Part G
    /// §3.3.1.1). Nothing was sent.
    case propertyNotSupported(required: CharacteristicProperties)
    /// The value is `length` octets where at most `maximum` fit (ATT_MTU − 3 for a write
    /// without response or a notification, 512 for a write, Vol 3 Part F §3.2.9). Nothing was
    /// sent.
    case valueTooLong(length: Int, maximum: Int)
    /// The Client Characteristic Configuration descriptor is written by `setNotifyValue`.
    case useSetNotifyValue
    /// The advertising data does not fit the legacy 31 octets (Vol 6 Part B §2.3.1); the
    /// builder's error names the overflow and which structures take the room.
    case advertisingDataTooLong(AdvertisingDataError)
    /// The peer answered with an ATT Error Response (Vol 3 Part F §3.4.1.1).
    case att(ATTErrorCode, handle: UInt16)
    /// The peer answered Insufficient Authentication, Insufficient Encryption or Encryption Key
    /// Size Too Short (Vol 3 Part F §3.4.1.1) and raising the link's security (encrypting
    /// from the bond, or pairing) failed with `pairing`; the request was not retried.
    case insufficientSecurity(ATTErrorCode, handle: UInt16, pairing: PairingError)
    /// The peer did not answer within the 30-second ATT transaction timeout (Vol 3 Part F
    /// §3.3.3); the link was closed.
    case transactionTimeout
    /// The peer broke a rule of the protocol; the operation stopped.
    case protocolViolation(String)
    /// The controller reported no RSSI (127, Vol 4 Part E §7.5.4).
    case rssiUnavailable
    /// The service cannot be published or removed.
    case database(AttributeDatabaseError)
    /// The host failed: a command refused or unanswered, the transport gone.
    case host(HostError)
    /// An L2CAP channel could not open (the peer's refusal, Core 5.4 Vol 3 Part A §4.23), or
    /// ended (closed, the peer's violation, the link gone).
    case l2cap(L2CAPChannelError)
    /// The central unsubscribed from the characteristic before the value could go to it
    /// (`updateValueWhenReady`; Client Characteristic Configuration, Vol 3 Part G §3.3.3.3).
    case unsubscribed
    /// The controller lacks what the call needs (its LE features, Vol 6 Part B §4.6).
    case featureUnsupported(ControllerFeature)
    /// The advertising interval is outside what the command takes, or its minimum exceeds its
    /// maximum (Vol 4 Part E §7.8.5, §7.8.53); the range allowed is given.
    case advertisingIntervalOutOfRange(allowed: ClosedRange<Duration>)
    /// `reattach(_:)` while the manager's transport is still in use (it takes a new transport
    /// only after the old one was lost).
    case transportInUse
    /// The calling task was cancelled while the call waited (`updateValueWhenReady`).
    case cancelled
    /// Pairing or encryption did not give the link the security asked for (Core 5.4 Vol 3
    /// Part H): the peer's or this side's Pairing Failed, the SMP timeout, the user's refusal.
    case pairing(PairingError)
    /// The bond store could not be read or written.
    case bondStore(BondStoreError)

    public static func == (lhs: BLEError, rhs: BLEError) -> Bool {
        switch (lhs, rhs) {
        case (.notPoweredOn(let a), .notPoweredOn(let b)): a == b
        case (.closed, .closed), (.notConnected, .notConnected), (.connectionInProgress, .connectionInProgress),
            (.connectionCancelled, .connectionCancelled), (.unknownPeripheral, .unknownPeripheral),
            (.unknownAttribute, .unknownAttribute), (.useSetNotifyValue, .useSetNotifyValue),
            (.transactionTimeout, .transactionTimeout), (.rssiUnavailable, .rssiUnavailable),
            (.unsubscribed, .unsubscribed), (.transportInUse, .transportInUse), (.cancelled, .cancelled):
            true
        case (.featureUnsupported(let a), .featureUnsupported(let b)): a == b
        case (.advertisingIntervalOutOfRange(let a), .advertisingIntervalOutOfRange(let b)): a == b
        case (.connectionTimeout(let a), .connectionTimeout(let b)): a == b
        case (.connectionFailed(let a), .connectionFailed(let b)): a == b
        case (.disconnected(let a), .disconnected(let b)): a == b
        case (.propertyNotSupported(let a), .propertyNotSupported(let b)): a == b
        case (.valueTooLong(let l1, let m1), .valueTooLong(let l2, let m2)): l1 == l2 && m1 == m2
        case (.advertisingDataTooLong(let a), .advertisingDataTooLong(let b)): a == b
        case (.att(let c1, let h1), .att(let c2, let h2)): c1 == c2 && h1 == h2
        case (.insufficientSecurity(let c1, let h1, let p1), .insufficientSecurity(let c2, let h2, let p2)):
            c1 == c2 && h1 == h2 && p1 == p2
        case (.protocolViolation(let a), .protocolViolation(let b)): a == b
        case (.database(let a), .database(let b)): a == b
        case (.host(let a), .host(let b)): a == b
        case (.l2cap(let a), .l2cap(let b)): a == b
        case (.pairing(let a), .pairing(let b)): a == b
        case (.bondStore(let a), .bondStore(let b)): a == b
        default: false
        }
    }

    public var description: String {
        switch self {
        case .notPoweredOn(let state): "the manager is \(state), not powered on"
        case .closed: "the manager is closed"
        case .notConnected: "the peripheral is not connected"
        case .connectionInProgress: "a connection or disconnection of this peripheral is under way"
        case .connectionTimeout(let timeout): "no connection within \(timeout)"
        case .connectionCancelled: "the connection attempt was cancelled"
        case .connectionFailed(let status): "the connection failed: \(status)"
        case .disconnected(let reason): "disconnected: \(reason)"
        case .unknownPeripheral: "the peripheral belongs to another manager"
        case .unknownAttribute: "the attribute was not discovered in this connection, or is not published"
        case .propertyNotSupported(let required): "the characteristic lacks \(required)"
        case .valueTooLong(let length, let maximum): "a value of \(length) octets exceeds \(maximum)"
        case .useSetNotifyValue: "the Client Characteristic Configuration is written by setNotifyValue"
        case .advertisingDataTooLong(let error): error.description
        case .att(let code, let handle): "ATT error \(code) on handle \(Hex.prefixed(handle, width: 4))"
        case .insufficientSecurity(let code, let handle, let pairing):
            "ATT error \(code) on handle \(Hex.prefixed(handle, width: 4)); raising the link's security failed: \(pairing)"
        case .transactionTimeout: "the ATT transaction timed out; the link was closed"
        case .protocolViolation(let what): "protocol violation: \(what)"
        case .rssiUnavailable: "the controller has no RSSI for this connection"
        case .database(let error): "attribute database: \(error)"
        case .host(let error): "host: \(error)"
        case .l2cap(let error): "L2CAP channel: \(error)"
        case .unsubscribed: "the central unsubscribed before the value could be sent"
        case .featureUnsupported(let feature): "the controller does not support \(feature)"
        case .advertisingIntervalOutOfRange(let allowed): "the advertising interval must lie in \(allowed)"
        case .transportInUse: "the manager's transport is still in use; reattach after it is lost"
        case .cancelled: "the calling task was cancelled"
        case .pairing(let error): "\(error)"
        case .bondStore(let error): "\(error)"
        }
    }
}

extension BLEError {
    /// A GATT procedure's failure in the API's terms.
    init(_ error: GATTError) {
        switch error {
        case .att(let code, let handle, _): self = .att(code, handle: handle)
        case .bearer(let bearer): self = BLEError(bearer)
        case .invalidResponse(let what): self = .protocolViolation(what)
        case .valueTooLong(let length, let maximum): self = .valueTooLong(length: length, maximum: maximum)
        case .propertyNotSupported(let required): self = .propertyNotSupported(required: required)
        }
    }

    /// An ATT bearer's failure in the API's terms.
    init(_ error: ATTBearerError) {
        switch error {
        case .disconnected(let reason): self = .disconnected(reason: reason)
        case .transactionTimeout: self = .transactionTimeout
        case .protocolViolation(let what): self = .protocolViolation(what)
        case .pduTooLong(let length, let mtu): self = .valueTooLong(length: length, maximum: mtu)
        case .transportLost(let error): self = .host(.transport(error))
        }
    }
}
