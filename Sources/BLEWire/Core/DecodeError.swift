/// Why a decoder refused its input, where, and which field was at fault.
///
/// Every decoder in `BLEWire` reads untrusted bytes (from a peer, a controller or a file) and
/// reports malformed input with this error instead of trapping. Creating one never allocates:
/// the context and field names are static strings.
public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The input ended inside `field`: `needed` more octets were required, `available` remained.
        case truncated(needed: Int, available: Int)
        /// The PDU is complete but `count` octets follow it.
        case trailingBytes(count: Int)
        /// A field holds a value the specification reserves or forbids.
        case invalidValue(UInt64)
        /// A numeric field lies outside the range the specification allows.
        case outOfRange(value: Int, allowed: ClosedRange<Int>)
        /// A length field disagrees with the octets actually present.
        case lengthMismatch(declared: Int, actual: Int)
        /// A packet arrived that the current state does not allow (for example an L2CAP
        /// continuation fragment with no start fragment before it).
        case unexpected
    }

    /// The packet or structure being decoded, e.g. "ATT Read By Type Response".
    public var context: StaticString
    /// The field at fault, e.g. "Length".
    public var field: StaticString
    /// Octet offset of the field from the start of the decoder's input.
    public var offset: Int
    public var reason: Reason
    /// The HCI command whose Command Complete return parameters were at fault (Core 5.4 Vol 4
    /// Part E §7.7.14), when the error is about them: a return-parameter structure shared by
    /// many commands (status alone, status and handle) cannot name the command in `context`.
    public var command: HCIOpcode?

    public init(
        context: StaticString, field: StaticString, offset: Int, reason: Reason, command: HCIOpcode? = nil
    ) {
        self.context = context
        self.field = field
        self.offset = offset
        self.reason = reason
        self.command = command
    }

    public static func == (lhs: DecodeError, rhs: DecodeError) -> Bool {
        lhs.reason == rhs.reason && lhs.offset == rhs.offset
            && lhs.context.description == rhs.context.description
            && lhs.field.description == rhs.field.description && lhs.command == rhs.command
    }

    public var description: String {
        let what: String
        switch reason {
        case .truncated(let needed, let available):
            what = "truncated: needs \(needed) octet\(needed == 1 ? "" : "s"), \(available) left"
        case .trailingBytes(let count):
            what = "\(count) unexpected trailing octet\(count == 1 ? "" : "s")"
        case .invalidValue(let value):
            what = "invalid value 0x\(String(value, radix: 16))"
        case .outOfRange(let value, let allowed):
            what = "value \(value) outside \(allowed.lowerBound)...\(allowed.upperBound)"
        case .lengthMismatch(let declared, let actual):
            what = "length mismatch: declared \(declared), actual \(actual)"
        case .unexpected:
            what = "unexpected in this state"
        }
        let location = "\(context): \(field) at offset \(offset): \(what)"
        guard let command else { return location }
        return "Command Complete of \(command): \(location)"
    }
}
