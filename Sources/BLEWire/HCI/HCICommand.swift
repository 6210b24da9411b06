/// An HCI command opcode: OGF (6 bits) and OCF (10 bits) (Core 5.4 Vol 4 Part E §5.4.1).
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CustomRendering {
    public let rawValue: UInt16

    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    @inlinable
    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    @inlinable public var ogf: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 10) }
    @inlinable public var ocf: UInt16 { rawValue & 0x03FF }

    /// Opcode Group Fields used by LE hosts (Vol 4 Part E §7).
    public static let linkControl: UInt8 = 0x01
    public static let controllerAndBaseband: UInt8 = 0x03
    public static let informationalParameters: UInt8 = 0x04
    public static let statusParameters: UInt8 = 0x05
    public static let leController: UInt8 = 0x08
    public static let vendorSpecific: UInt8 = 0x3F

    /// The command's name from the command table, or nil for an opcode this version does not know.
    public var name: String? { HCICommandTable.entry(for: self)?.name }

    public var description: String {
        "\(name ?? "Unknown Command") (\(Hex.prefixed(rawValue, width: 4)))"
    }

    public var rendered: RenderedValue { .symbol(description) }
}

/// Which event completes a command (Core 5.4 Vol 4 Part E §4.4): Command Complete carrying
/// return parameters, or Command Status followed later by the command's own event.
public enum HCICommandCompletion: Sendable, Hashable {
    case commandComplete
    case commandStatus
}

/// The parameters of one HCI command, without the opcode and length header.
public protocol HCICommand: WireCodable, WireRenderable {
    static var opcode: HCIOpcode { get }
    /// The specification's name, e.g. "LE Set Scan Enable".
    static var name: String { get }
    static var completion: HCICommandCompletion { get }
}

/// A command the controller answers with Command Complete and typed return parameters.
public protocol HCICommandWithCompleteEvent: HCICommand {
    associatedtype ReturnParameters: HCIReturnParameters
}

extension HCICommandWithCompleteEvent {
    public static var completion: HCICommandCompletion { .commandComplete }
}

/// A command the controller answers with Command Status (and later, on success, its own event).
public protocol HCICommandWithStatusEvent: HCICommand {}

extension HCICommandWithStatusEvent {
    public static var completion: HCICommandCompletion { .commandStatus }
}

/// Return parameters of a Command Complete event. Nearly every command's first return
/// parameter is its status.
public protocol HCIReturnParameters: WireCodable, WireRenderable {
    var status: HCIStatus { get }
}

extension HCICommand {
    /// The whole command packet (opcode, length, parameters) without the H4 type octet.
    public var packet: HCICommandPacket {
        HCICommandPacket(opcode: Self.opcode, parameters: encoded[...])
    }
}

/// A raw HCI command packet (Core 5.4 Vol 4 Part E §5.4.1): opcode, parameter length,
/// parameters. Decoding checks the length; `decodeCommand()` gives the typed command.
public struct HCICommandPacket: WireCodable, Hashable, WireRenderable, CustomRendering {
    public var opcode: HCIOpcode
    public var parameters: ArraySlice<UInt8>

    public init(opcode: HCIOpcode, parameters: ArraySlice<UInt8>) {
        self.opcode = opcode
        self.parameters = parameters
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "HCI Command packet"
        opcode = HCIOpcode(rawValue: try reader.u16("Opcode"))
        let length = Int(try reader.u8("Parameter_Total_Length"))
        if reader.remaining != length {
            throw reader.error(
                "Parameter_Total_Length", .lengthMismatch(declared: length, actual: reader.remaining))
        }
        parameters = try reader.take(length, "Parameters")
    }

    public func encode(into writer: inout ByteWriter) {
        writer.u16(opcode.rawValue)
        writer.u8(UInt8(truncatingIfNeeded: parameters.count))
        writer.append(parameters)
    }

    /// The typed command, or nil when the opcode is not in the command table (kept raw).
    public func decodeCommand() throws(DecodeError) -> (any HCICommand)? {
        guard let entry = HCICommandTable.entry(for: opcode) else { return nil }
        return try entry.decode(parameters)
    }

    public var rendered: RenderedValue {
        do {
            if let command = try decodeCommand() {
                guard case .object(_, let fields) = Rendering.render(command) else {
                    return .object(name: type(of: command).name, fields: [])
                }
                return .object(name: type(of: command).name, fields: fields)
            }
            return .object(
                name: "Unknown Command",
                fields: [("opcode", opcode.rendered), ("parameters", .bytes(Array(parameters)))])
        } catch {
            return .object(
                name: opcode.name ?? "Unknown Command",
                fields: [("error", .string(error.description)), ("parameters", .bytes(Array(parameters)))])
        }
    }
}
