/// An Attribute Protocol error code, carried by the Error Response (Core 5.4 Vol 3 Part F
/// §3.4.1.1, Table 3.4).
///
/// 0x01–0x13 are the protocol's own; 0x80–0x9F are Application Errors whose meaning a higher
/// layer specification defines; 0xE0–0xFF are the Common Profile and Service Error Codes
/// (Core Specification Supplement Part B §1.2). Every other value is reserved, but still
/// representable: an Error Response carrying one is not malformed.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CustomRendering {
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// The range an error code falls in.
    public enum Category: Sendable, Hashable {
        /// 0x01–0x13, defined by the Attribute Protocol (Table 3.4).
        case protocolError
        /// 0x80–0x9F, defined by a higher layer specification.
        case applicationError
        /// 0xE0–0xFF, Common Profile and Service Error Codes (CSS Part B §1.2).
        case commonProfileAndServiceError
        /// Every other value (0x00, 0x14–0x7F, 0xA0–0xDF).
        case reserved
    }

    // MARK: Table 3.4

    /// The attribute handle given was not valid on this server.
    public static let invalidHandle = ATTErrorCode(0x01)
    /// The attribute cannot be read.
    public static let readNotPermitted = ATTErrorCode(0x02)
    /// The attribute cannot be written.
    public static let writeNotPermitted = ATTErrorCode(0x03)
    /// The attribute PDU was invalid.
    public static let invalidPDU = ATTErrorCode(0x04)
    /// The attribute requires authentication before it can be read or written.
    public static let insufficientAuthentication = ATTErrorCode(0x05)
    /// The server does not support the request received from the client.
    public static let requestNotSupported = ATTErrorCode(0x06)
    /// The offset specified was past the end of the attribute.
    public static let invalidOffset = ATTErrorCode(0x07)
    /// The attribute requires authorization before it can be read or written.
    public static let insufficientAuthorization = ATTErrorCode(0x08)
    /// Too many prepare writes have been queued.
    public static let prepareQueueFull = ATTErrorCode(0x09)
    /// No attribute found within the given attribute handle range.
    public static let attributeNotFound = ATTErrorCode(0x0A)
    /// The attribute cannot be read using the Read Blob Request.
    public static let attributeNotLong = ATTErrorCode(0x0B)
    /// The Encryption Key Size used for encrypting this link is too short.
    public static let encryptionKeySizeTooShort = ATTErrorCode(0x0C)
    /// The attribute value length is invalid for the operation.
    public static let invalidAttributeValueLength = ATTErrorCode(0x0D)
    /// The request has encountered an unlikely error and could not be completed.
    public static let unlikelyError = ATTErrorCode(0x0E)
    /// The attribute requires encryption before it can be read or written.
    public static let insufficientEncryption = ATTErrorCode(0x0F)
    /// The attribute type is not a supported grouping attribute.
    public static let unsupportedGroupType = ATTErrorCode(0x10)
    /// Insufficient resources to complete the request.
    public static let insufficientResources = ATTErrorCode(0x11)
    /// The server requests the client to rediscover the database.
    public static let databaseOutOfSync = ATTErrorCode(0x12)
    /// The attribute parameter value was not allowed.
    public static let valueNotAllowed = ATTErrorCode(0x13)

    // MARK: Common Profile and Service Error Codes (CSS Part B §1.2)

    /// A write request was rejected for a reason the profile or service defines.
    public static let writeRequestRejected = ATTErrorCode(0xFC)
    /// A Client Characteristic Configuration descriptor is not configured as the procedure needs.
    public static let cccdImproperlyConfigured = ATTErrorCode(0xFD)
    /// A request cannot be serviced because an operation is still in progress.
    public static let procedureAlreadyInProgress = ATTErrorCode(0xFE)
    /// An attribute value is out of range as defined by a profile or service specification.
    public static let outOfRange = ATTErrorCode(0xFF)

    /// Application Error `index` (0x00–0x1F → 0x80–0x9F), nil when out of range.
    @inlinable
    public static func applicationError(_ index: UInt8) -> ATTErrorCode? {
        index < 0x20 ? ATTErrorCode(0x80 | index) : nil
    }

    // MARK: Properties

    @inlinable
    public var category: Category {
        switch rawValue {
        case 0x01...0x13: .protocolError
        case 0x80...0x9F: .applicationError
        case 0xE0...0xFF: .commonProfileAndServiceError
        default: .reserved
        }
    }

    @inlinable public var isApplicationError: Bool { category == .applicationError }

    /// The name from Table 3.4 or CSS Part B §1.2; "Application Error" for 0x80–0x9F; nil for
    /// reserved values (including 0xE0–0xFB, reserved within the common range).
    public var name: String? {
        switch rawValue {
        case 0x01: "Invalid Handle"
        case 0x02: "Read Not Permitted"
        case 0x03: "Write Not Permitted"
        case 0x04: "Invalid PDU"
        case 0x05: "Insufficient Authentication"
        case 0x06: "Request Not Supported"
        case 0x07: "Invalid Offset"
        case 0x08: "Insufficient Authorization"
        case 0x09: "Prepare Queue Full"
        case 0x0A: "Attribute Not Found"
        case 0x0B: "Attribute Not Long"
        case 0x0C: "Encryption Key Size Too Short"
        case 0x0D: "Invalid Attribute Value Length"
        case 0x0E: "Unlikely Error"
        case 0x0F: "Insufficient Encryption"
        case 0x10: "Unsupported Group Type"
        case 0x11: "Insufficient Resources"
        case 0x12: "Database Out Of Sync"
        case 0x13: "Value Not Allowed"
        case 0x80...0x9F: "Application Error"
        case 0xFC: "Write Request Rejected"
        case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: "Procedure Already in Progress"
        case 0xFF: "Out of Range"
        default: nil
        }
    }

    /// "Attribute Not Found (0x0A)", "Application Error (0x85)", "Reserved (0x20)".
    public var description: String {
        "\(name ?? "Reserved") (\(Hex.prefixed(rawValue, width: 2)))"
    }

    public var rendered: RenderedValue { .symbol(description) }
}
