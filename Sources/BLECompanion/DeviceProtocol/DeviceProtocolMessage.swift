import BLE

/// A typed message of a device protocol: a message type code and a payload, both ways.
///
/// Decoding never traps: a type code the message does not define throws
/// `.unknownMessageType` with the payload kept; a payload of the wrong length or with an
/// undefined value throws `.malformedPayload` naming the field.
public protocol DeviceProtocolMessage: Sendable, Hashable {
    /// The frame's message type code.
    var messageType: UInt8 { get }
    /// Writes the payload's fields.
    func encodePayload(into writer: inout DevicePayloadWriter)
    /// The message a frame's type code and payload carry.
    init(messageType: UInt8, payload: ArraySlice<UInt8>) throws(DeviceProtocolError)
}

extension DeviceProtocolMessage {
    /// The payload's octets.
    public var payload: [UInt8] {
        var writer = DevicePayloadWriter()
        encodePayload(into: &writer)
        return writer.bytes
    }

    /// The message as a frame of `kind`.
    public func frame(_ kind: DeviceFrame.Kind, sequence: UInt8 = 0) -> DeviceFrame {
        DeviceFrame(kind: kind, messageType: messageType, sequence: sequence, payload: payload)
    }

    /// Decodes a frame's message.
    public init(frame: DeviceFrame) throws(DeviceProtocolError) {
        try self.init(messageType: frame.messageType, payload: frame.payload[...])
    }
}

/// A protocol spoken over a pair of characteristics of one service, UART-like: the device
/// notifies one (toward the app) and the app writes the other without response (toward the
/// device), both carrying `DeviceFrame`s in chunks.
public protocol DeviceProtocol: Sendable {
    /// What the app sends.
    associatedtype ToDevice: DeviceProtocolMessage
    /// What the device sends.
    associatedtype ToApp: DeviceProtocolMessage

    /// The service holding both characteristics.
    static var serviceUUID: BluetoothUUID { get }
    /// Written without response by the app (`writeWithoutResponse`).
    static var toDeviceCharacteristicUUID: BluetoothUUID { get }
    /// Notified by the device (`notify`).
    static var toAppCharacteristicUUID: BluetoothUUID { get }
    /// The longest payload either side accepts.
    static var maximumPayloadLength: Int { get }
}

extension DeviceProtocol {
    public static var maximumPayloadLength: Int { DeviceFrame.defaultMaximumPayloadLength }

    /// The service a device publishes for the protocol (Core 5.4 Vol 3 Part G §3.1, §3.3).
    public static var service: MutableService {
        MutableService(
            uuid: serviceUUID,
            characteristics: [
                MutableCharacteristic(
                    uuid: toDeviceCharacteristicUUID, properties: .writeWithoutResponse, permissions: .writeable,
                    value: .dynamic),
                MutableCharacteristic(
                    uuid: toAppCharacteristicUUID, properties: .notify, permissions: .readable, value: .stored([])),
            ])
    }
}

/// Builds a payload: integers little-endian.
public struct DevicePayloadWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func uint8(_ value: UInt8) { bytes.append(value) }

    public mutating func uint16(_ value: UInt16) {
        bytes += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    public mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    public mutating func append(_ octets: some Sequence<UInt8>) { bytes.append(contentsOf: octets) }

    /// UTF-8 text preceded by its length in one octet (the first 255 octets of longer text).
    public mutating func text(_ value: String) {
        let octets = Array(value.utf8.prefix(255))
        bytes.append(UInt8(octets.count))
        bytes += octets
    }
}

/// Reads a payload's fields in order, each failure a `.malformedPayload` naming the field.
public struct DevicePayloadReader: Sendable {
    public let messageType: UInt8
    private var remaining: ArraySlice<UInt8>

    public init(messageType: UInt8, payload: ArraySlice<UInt8>) {
        self.messageType = messageType
        self.remaining = payload
    }

    public var remainingCount: Int { remaining.count }

    public mutating func octets(_ count: Int, _ field: String) throws(DeviceProtocolError) -> ArraySlice<UInt8> {
        guard count <= remaining.count else {
            throw malformed(field, .truncated(needed: count, available: remaining.count))
        }
        defer { remaining = remaining.dropFirst(count) }
        return remaining.prefix(count)
    }

    public mutating func uint8(_ field: String) throws(DeviceProtocolError) -> UInt8 {
        try octets(1, field).first ?? 0
    }

    public mutating func uint16(_ field: String) throws(DeviceProtocolError) -> UInt16 {
        try octets(2, field).reversed().reduce(0) { $0 << 8 | UInt16($1) }
    }

    public mutating func uint32(_ field: String) throws(DeviceProtocolError) -> UInt32 {
        try octets(4, field).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Everything left.
    public mutating func rest() -> ArraySlice<UInt8> {
        defer { remaining = remaining.suffix(0) }
        return remaining
    }

    /// UTF-8 text preceded by its length in one octet, at most `maximum` octets.
    public mutating func text(_ field: String, maximum: Int) throws(DeviceProtocolError) -> String {
        let length = Int(try uint8(field))
        guard length <= maximum else { throw malformed(field, .tooLong(length: length, maximum: maximum)) }
        let octets = try octets(length, field)
        guard let text = String(validating: octets, as: UTF8.self) else { throw malformed(field, .invalidText) }
        return text
    }

    /// A one-octet code that `make` maps to a value, or `.invalidValue`.
    public mutating func code<T>(_ field: String, _ make: (UInt8) -> T?) throws(DeviceProtocolError) -> T {
        let raw = try uint8(field)
        guard let value = make(raw) else { throw malformed(field, .invalidValue(UInt64(raw))) }
        return value
    }

    /// Throws when octets are left after the last field.
    public func finish() throws(DeviceProtocolError) {
        guard remaining.isEmpty else { throw malformed("end of payload", .trailingOctets(remaining.count)) }
    }

    public func malformed(_ field: String, _ problem: DevicePayloadProblem) -> DeviceProtocolError {
        .malformedPayload(messageType: messageType, field: field, problem: problem)
    }
}
