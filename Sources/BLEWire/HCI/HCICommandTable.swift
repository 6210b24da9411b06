/// Namespace of HCI command parameter types (Core 5.4 Vol 4 Part E §7).
public enum HCI {}

/// The one table of HCI commands this version knows: opcode → name, completion kind, parameter
/// decoder and return-parameter decoder.
public enum HCICommandTable {
    public struct Entry: Sendable {
        public let opcode: HCIOpcode
        public let name: String
        public let completion: HCICommandCompletion
        public let type: any HCICommand.Type
        /// Decodes the command's parameters.
        public let decode: @Sendable (ArraySlice<UInt8>) throws(DecodeError) -> any HCICommand
        /// Decodes successful return parameters (Command Complete commands only).
        public let decodeReturnParameters:
            (@Sendable (ArraySlice<UInt8>) throws(DecodeError) -> any HCIReturnParameters)?
        /// Reads the return parameters from a reader, leaving it after the last one this
        /// version defines (Command Complete commands only).
        public let readReturnParameters: (@Sendable (inout ByteReader) throws(DecodeError) -> any HCIReturnParameters)?

        public init<C: HCICommandWithCompleteEvent>(_ type: C.Type) {
            opcode = C.opcode
            name = C.name
            completion = .commandComplete
            self.type = type
            decode = { (bytes: ArraySlice<UInt8>) throws(DecodeError) -> any HCICommand in
                try C(decoding: bytes)
            }
            decodeReturnParameters = {
                (bytes: ArraySlice<UInt8>) throws(DecodeError) -> any HCIReturnParameters in
                var reader = ByteReader(bytes)
                // Later specification versions may append return parameters: ignore the rest.
                return try C.ReturnParameters(from: &reader)
            }
            readReturnParameters = { (reader: inout ByteReader) throws(DecodeError) -> any HCIReturnParameters in
                try C.ReturnParameters(from: &reader)
            }
        }

        public init<C: HCICommandWithStatusEvent>(_ type: C.Type) {
            opcode = C.opcode
            name = C.name
            completion = .commandStatus
            self.type = type
            decode = { (bytes: ArraySlice<UInt8>) throws(DecodeError) -> any HCICommand in
                try C(decoding: bytes)
            }
            decodeReturnParameters = nil
            readReturnParameters = nil
        }
    }

    /// Every command this version can encode and decode.
    public static let entries: [Entry] = commandEntries

    private static let byOpcode: [UInt16: Entry] = {
        var table: [UInt16: Entry] = [:]
        for entry in entries { table[entry.opcode.rawValue] = entry }
        return table
    }()

    public static func entry(for opcode: HCIOpcode) -> Entry? { byOpcode[opcode.rawValue] }
}
