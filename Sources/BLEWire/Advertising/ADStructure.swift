/// One AD structure: a length octet, the AD type and its data (Core 5.4 Vol 3 Part C §11,
/// Figure 11.1). The length counts the type octet, so the data holds at most 254 octets.
///
/// `data` is a slice of the block it was decoded from: reading a structure copies nothing. Every
/// way of making one (decoding, `init(type:data:)`, `init(_ value:)`) checks the data of the
/// types this version knows (CSS Part A), so `value` never fails.
public struct ADStructure: Hashable, Sendable, WireCodable, WireRenderable, CustomRendering {
    public let type: ADType
    public let data: ArraySlice<UInt8>

    /// The most data octets one structure can carry: the length octet counts the type as well.
    public static let maximumDataLength = 254

    /// For the decoder and encoders, which have already checked `data`.
    @inlinable
    init(unchecked type: ADType, data: ArraySlice<UInt8>) {
        self.type = type
        self.data = data
    }

    /// A structure from raw parts. Throws when the data is longer than 254 octets or breaks the
    /// format of its type (for example a Tx Power Level that is not one octet).
    public init(type: ADType, data: ArraySlice<UInt8>) throws(DecodeError) {
        if data.count > Self.maximumDataLength {
            throw DecodeError(
                context: "AD Structure", field: "Data", offset: 2,
                reason: .outOfRange(value: data.count, allowed: 0...Self.maximumDataLength))
        }
        try ADStructure.validate(type: type, data: data, context: "AD Structure", at: 0)
        self.init(unchecked: type, data: data)
    }

    public init(type: ADType, data: [UInt8]) throws(DecodeError) {
        try self.init(type: type, data: data[...])
    }

    /// Octets on the wire: length, type and data.
    @inlinable public var encodedLength: Int { 2 &+ data.count }

    /// Decodes one structure. A zero Length (the early end of a block) is an error here;
    /// `AdvertisingData` treats it as the end of the significant part.
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "AD Structure"
        let start = reader.offset
        let length = Int(try reader.u8("Length"))
        if length == 0 {
            throw reader.error("Length", .outOfRange(value: 0, allowed: 1...255), at: start)
        }
        let type = ADType(rawValue: try reader.u8("AD Type"))
        let data = try reader.take(length &- 1, "AD Data")
        try ADStructure.validate(type: type, data: data, context: "AD Structure", at: start)
        self.init(unchecked: type, data: data)
    }

    public func encode(into writer: inout ByteWriter) {
        writer.u8(UInt8(truncatingIfNeeded: data.count &+ 1))
        writer.u8(type.rawValue)
        writer.append(data)
    }

    /// "Tx Power Level (0x0A) { dBm: -8 }": the type names the object, the value gives the fields.
    public var rendered: RenderedValue {
        let value = self.value
        if case .other = value {
            return .object(name: type.description, fields: [("data", .bytes(Array(data)))])
        }
        return .object(name: type.description, fields: value.renderedFields)
    }
}

/// The length and format rule of one AD type's data (CSS Part A §1), packed so that checking a
/// structure on the decode path is a table-free switch and a comparison or two.
@usableFromInline
enum ADDataRule: Sendable {
    /// Anything goes: Flags (zero or more octets, CSS Part A §1.3.2), names (any octets, shown
    /// lossily as UTF-8) and the types kept raw.
    case any
    case exactly(Int)
    case atLeast(Int)
    case multiple(of: Int)
    /// Advertising Interval - long: 3 or 4 octets.
    case threeOrFour
    /// A well-formed UTF-8 scheme code point first (CSS Part A §1.18).
    case uriScheme

    @inlinable
    init(_ type: ADType) {
        switch type.rawValue {
        case 0x02, 0x03, 0x14: self = .multiple(of: 2)
        case 0x04, 0x05, 0x1F: self = .multiple(of: 4)
        case 0x06, 0x07, 0x15: self = .multiple(of: 16)
        case 0x17, 0x18: self = .multiple(of: 6)
        case 0x0A, 0x1C: self = .exactly(1)
        case 0x19, 0x1A: self = .exactly(2)
        case 0x12: self = .exactly(4)
        case 0x1B: self = .exactly(7)
        case 0xFF, 0x16: self = .atLeast(2)
        case 0x20: self = .atLeast(4)
        case 0x21: self = .atLeast(16)
        case 0x2F: self = .threeOrFour
        case 0x24: self = .uriScheme
        default: self = .any
        }
    }

    /// True when `data` keeps the rule; the hot path, allocation- and error-free.
    @inlinable
    func accepts<Data: RandomAccessCollection<UInt8>>(_ data: Data) -> Bool where Data.Index == Int {
        let count = data.count
        switch self {
        case .any: return true
        case .exactly(let size): return count == size
        case .atLeast(let size): return count >= size
        case .multiple(let size): return count % size == 0
        case .threeOrFour: return count == 3 || count == 4
        case .uriScheme:
            if let first = data.first, first < 0x80 { return true }
            if case .codePoint = ADURIScheme.lead(of: data) { return true }
            return false
        }
    }
}

extension ADStructure {
    /// Checks the data of the types that have a typed view (CSS Part A). `offset` is where the
    /// structure's Length octet sits in the decoder's input; errors point into the structure.
    ///
    /// Only length and format rules are enforced: reserved values (an LE Role of 0x07, reserved
    /// flag bits) are kept, since the CSS does not make the data invalid for them.
    @inlinable
    static func validate<Data: RandomAccessCollection<UInt8>>(
        type: ADType, data: Data, context: StaticString, at offset: Int
    ) throws(DecodeError) where Data.Index == Int {
        let rule = ADDataRule(type)
        if rule.accepts(data) { return }
        throw violation(of: rule, type: type, data: data, context: context, at: offset)
    }

    /// The precise error for data that breaks `rule`, off the hot path.
    @usableFromInline
    static func violation<Data: RandomAccessCollection<UInt8>>(
        of rule: ADDataRule, type: ADType, data: Data, context: StaticString, at offset: Int
    ) -> DecodeError where Data.Index == Int {
        let count = data.count
        let dataOffset = offset &+ 2
        let field = fieldName(type)
        func error(_ at: Int, _ reason: DecodeError.Reason) -> DecodeError {
            DecodeError(context: context, field: field, offset: at, reason: reason)
        }
        switch rule {
        case .exactly(let size) where count < size, .atLeast(let size) where count < size:
            return error(dataOffset, .truncated(needed: size, available: count))
        case .exactly(let size):
            return error(dataOffset &+ size, .trailingBytes(count: count &- size))
        case .multiple(let size):
            // A partial last entry is reported as truncated where it starts.
            let partial = count % size
            return error(dataOffset &+ (count &- partial), .truncated(needed: size, available: partial))
        case .threeOrFour where count < 3:
            return error(dataOffset, .truncated(needed: 3, available: count))
        case .threeOrFour:
            return error(dataOffset &+ 4, .trailingBytes(count: count &- 4))
        case .uriScheme:
            switch ADURIScheme.lead(of: data) {
            case .truncated(let needed, let available):
                return error(dataOffset, .truncated(needed: needed, available: available))
            case .invalid(let octet, let position):
                return error(dataOffset &+ position, .invalidValue(UInt64(octet)))
            case .codePoint:
                break
            }
        case .any, .atLeast:
            break
        }
        return error(dataOffset, .unexpected)
    }

    /// The field named in errors about a type's data.
    static func fieldName(_ type: ADType) -> StaticString {
        switch type.rawValue {
        case 0x02...0x07: "Service UUID"
        case 0x14, 0x15, 0x1F: "Solicited Service UUID"
        case 0x17, 0x18: "Target Address"
        case 0x0A: "Tx Power Level"
        case 0x19: "Appearance"
        case 0x1A, 0x2F: "Advertising Interval"
        case 0x1C: "LE Role"
        case 0x12: "Peripheral Connection Interval Range"
        case 0x1B: "LE Bluetooth Device Address"
        case 0xFF: "Company Identifier"
        case 0x16, 0x20, 0x21: "Service Data UUID"
        case 0x24: "URI Scheme"
        default: "AD Data"
        }
    }
}
