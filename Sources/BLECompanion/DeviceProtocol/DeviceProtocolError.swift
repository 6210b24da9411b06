import BLE

/// Why a device protocol frame, message or exchange failed. Bytes from the peer never trap:
/// each way they can be wrong has a case here.
public enum DeviceProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: Frames

    /// Fewer octets than the frame needs.
    case frameTruncated(needed: Int, available: Int)
    /// The first octet is not the sync octet 0xA5.
    case badSync(UInt8)
    /// The version nibble is not 1.
    case unsupportedVersion(UInt8)
    /// The kind nibble is not event (0), request (1) or response (2).
    case invalidFrameKind(UInt8)
    /// An event with a sequence number other than 0, or a request or response with 0.
    case invalidSequence(kind: DeviceFrame.Kind, sequence: UInt8)
    /// The payload length field exceeds what the receiver accepts.
    case payloadTooLong(length: Int, maximum: Int)
    /// The octets given hold more than the frame the length field declares.
    case lengthMismatch(declared: Int, actual: Int)
    /// The CRC-16 at the end of the frame is not the CRC-16 of its other octets.
    case checksumMismatch(received: UInt16, computed: UInt16)
    /// The stream parser skipped octets that could not start a frame.
    case unsynchronised(discarded: Int)

    // MARK: Messages

    /// A frame with a message type this side does not know; its payload is kept.
    case unknownMessageType(UInt8, payload: [UInt8])
    /// A known message type whose payload is wrong.
    case malformedPayload(messageType: UInt8, field: String, problem: DevicePayloadProblem)

    // MARK: Exchanges

    /// No response came within the request's timeout.
    case timedOut(messageType: UInt8, sequence: UInt8)
    /// Every sequence number (1…255) belongs to a request still waiting.
    case tooManyOutstandingRequests
    /// The link is closed, or went down: nothing more is sent or received on it.
    case linkClosed
    /// `respond(to:with:)` named a request that did not come in on this link.
    case unknownRequest(sequence: UInt8)
    /// A message to send has a payload longer than the protocol allows.
    case messageTooLong(length: Int, maximum: Int)
    /// The peer is not subscribed to the notifying characteristic, so it cannot be sent to.
    case notSubscribed

    // MARK: Binding

    /// The peripheral has no service with the protocol's UUID.
    case serviceNotFound(BluetoothUUID)
    /// The protocol's service lacks a characteristic, or it lacks a property the protocol needs.
    case characteristicNotFound(BluetoothUUID)
    /// The BLE API refused a call.
    case ble(BLEError)

    public var description: String {
        switch self {
        case .frameTruncated(let needed, let available):
            "frame truncated: needs \(needed) octets, \(available) available"
        case .badSync(let octet): "bad sync octet 0x\(hex(octet)) (expected 0xA5)"
        case .unsupportedVersion(let version): "unsupported frame version \(version)"
        case .invalidFrameKind(let kind): "invalid frame kind \(kind)"
        case .invalidSequence(let kind, let sequence): "invalid sequence number \(sequence) for \(kind)"
        case .payloadTooLong(let length, let maximum): "payload of \(length) octets exceeds \(maximum)"
        case .lengthMismatch(let declared, let actual): "frame declares \(declared) octets, \(actual) given"
        case .checksumMismatch(let received, let computed):
            "checksum mismatch: frame carries 0x\(hex(received)), octets give 0x\(hex(computed))"
        case .unsynchronised(let discarded): "discarded \(discarded) octets while looking for a frame"
        case .unknownMessageType(let type, let payload):
            "unknown message type 0x\(hex(type)) with \(payload.count) octets of payload"
        case .malformedPayload(let type, let field, let problem):
            "malformed message 0x\(hex(type)): \(field): \(problem)"
        case .timedOut(let type, let sequence): "no response to message 0x\(hex(type)) (sequence \(sequence))"
        case .tooManyOutstandingRequests: "255 requests are waiting for responses"
        case .linkClosed: "the link is closed"
        case .unknownRequest(let sequence): "no request with sequence \(sequence) came in on this link"
        case .messageTooLong(let length, let maximum): "a payload of \(length) octets exceeds \(maximum)"
        case .notSubscribed: "the peer is not subscribed to notifications"
        case .serviceNotFound(let uuid): "service \(uuid) not found"
        case .characteristicNotFound(let uuid): "characteristic \(uuid) not found or lacks a needed property"
        case .ble(let error): "BLE: \(error)"
        }
    }
}

/// What is wrong with a field of a message payload.
public enum DevicePayloadProblem: Sendable, Hashable, CustomStringConvertible {
    /// The payload ends before the field does.
    case truncated(needed: Int, available: Int)
    /// Octets follow the last field.
    case trailingOctets(Int)
    /// A value the message does not define.
    case invalidValue(UInt64)
    /// Text that is not UTF-8.
    case invalidText
    /// A variable-length field longer than allowed.
    case tooLong(length: Int, maximum: Int)

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "truncated (needs \(needed) octets, \(available) left)"
        case .trailingOctets(let count): "\(count) unexpected trailing octets"
        case .invalidValue(let value): "undefined value \(value)"
        case .invalidText: "not UTF-8"
        case .tooLong(let length, let maximum): "\(length) octets exceeds \(maximum)"
        }
    }
}

/// Two hex digits per octet, upper case.
func hex<T: FixedWidthInteger>(_ value: T) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    let width = T.bitWidth / 4
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
