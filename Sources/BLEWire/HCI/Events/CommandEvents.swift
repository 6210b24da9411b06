extension HCIEvent {
    /// HCI_Command_Complete (Core 5.4 Vol 4 Part E §7.7.14): the controller finished a command
    /// and returns its return parameters; Num_HCI_Command_Packets is the host's command credit.
    ///
    /// The return parameters are kept raw (a slice of the input): their format depends on the
    /// opcode. `returnParameters(for:)` decodes them for a known command type; rendering uses
    /// `HCICommandTable`. Opcode 0x0000 (no operation) carries only a credit and no parameters.
    public struct CommandComplete: Sendable, Hashable, WireCodable, WireRenderable, CustomRendering {
        public var numHCICommandPackets: UInt8
        public var opcode: HCIOpcode
        public var returnParameters: ArraySlice<UInt8>

        public init(numHCICommandPackets: UInt8 = 1, opcode: HCIOpcode, returnParameters: ArraySlice<UInt8>) {
            self.numHCICommandPackets = numHCICommandPackets
            self.opcode = opcode
            self.returnParameters = returnParameters
        }

        /// The completion of `command` carrying typed return parameters (for encoding, e.g. by a
        /// virtual controller).
        public init<C: HCICommandWithCompleteEvent>(
            _ command: C.Type, numHCICommandPackets: UInt8 = 1, returnParameters: C.ReturnParameters
        ) {
            self.numHCICommandPackets = numHCICommandPackets
            opcode = C.opcode
            self.returnParameters = returnParameters.encoded[...]
        }

        /// The first return parameter, which is the status for nearly every command; nil when
        /// there are no return parameters (e.g. the no-operation opcode 0x0000).
        public var status: HCIStatus? {
            returnParameters.first.map { HCIStatus($0) }
        }

        /// The return parameters decoded as `C.ReturnParameters`.
        ///
        /// Throws when the event completes another opcode (field "Command_Opcode",
        /// `.invalidValue(opcode)`) or the parameters do not decode (the error's `command` names
        /// the command). On a failed command many controllers return only the status octet, so
        /// check `status` first. Octets past the known return parameters are ignored (later
        /// specification versions append some). `checkedReturnParameters()` applies every rule
        /// of §7.7.14 without knowing the command's type.
        public func returnParameters<C: HCICommandWithCompleteEvent>(
            for command: C.Type
        ) throws(DecodeError) -> C.ReturnParameters {
            guard opcode == C.opcode else {
                throw DecodeError(
                    context: "HCI Command Complete event", field: "Command_Opcode", offset: 1,
                    reason: .invalidValue(UInt64(opcode.rawValue)))
            }
            var reader = ByteReader(returnParameters)
            do {
                return try C.ReturnParameters(from: &reader)
            } catch {
                var named = error
                named.command = opcode
                throw named
            }
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Command Complete event"
            numHCICommandPackets = try reader.u8("Num_HCI_Command_Packets")
            opcode = HCIOpcode(rawValue: try reader.u16("Command_Opcode"))
            returnParameters = reader.rest()
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(numHCICommandPackets)
            writer.u16(opcode.rawValue)
            writer.append(returnParameters)
        }

        /// The return parameters as `checkedReturnParameters()` finds them: typed when the block
        /// is whole, else the status and the raw octets; a successful command's block cut short
        /// is shown with the error naming the missing field (rendering never throws).
        public var rendered: RenderedValue {
            var fields: [(String, RenderedValue)] = [
                ("numHCICommandPackets", .unsigned(UInt64(numHCICommandPackets))),
                ("opcode", opcode.rendered),
            ]
            let raw = RenderedValue.bytes(Array(returnParameters))
            do {
                switch try checkedReturnParameters() {
                case .noOperation:
                    fields.append(("returnParameters", raw))
                case .decoded(let typed, let additional):
                    fields.append(("returnParameters", Rendering.render(typed)))
                    if !additional.isEmpty { fields.append(("additionalParameters", .bytes(Array(additional)))) }
                case .unknownCommand:
                    if let status { fields.append(("status", status.rendered)) }
                    fields.append(("returnParameters", raw))
                case .failed(let status, _), .statusOnly(let status, _):
                    fields.append(("status", status.rendered))
                    fields.append(("returnParameters", raw))
                }
            } catch {
                if let status { fields.append(("status", status.rendered)) }
                fields.append(("error", .string(error.description)))
                fields.append(("returnParameters", raw))
            }
            return .object(name: "Command Complete", fields: fields)
        }
    }

    /// HCI_Command_Status (Core 5.4 Vol 4 Part E §7.7.15): the controller accepted (or refused)
    /// a command whose own completion event comes later.
    public struct CommandStatus: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var numHCICommandPackets: UInt8
        public var opcode: HCIOpcode

        public init(status: HCIStatus, numHCICommandPackets: UInt8 = 1, opcode: HCIOpcode) {
            self.status = status
            self.numHCICommandPackets = numHCICommandPackets
            self.opcode = opcode
        }

        /// The status of `command` (any command: a controller may refuse any command this way).
        public init<C: HCICommand>(
            _ command: C.Type, status: HCIStatus = .success, numHCICommandPackets: UInt8 = 1
        ) {
            self.init(status: status, numHCICommandPackets: numHCICommandPackets, opcode: C.opcode)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI Command Status event"
            status = HCIStatus(try reader.u8("Status"))
            numHCICommandPackets = try reader.u8("Num_HCI_Command_Packets")
            opcode = HCIOpcode(rawValue: try reader.u16("Command_Opcode"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            writer.u8(numHCICommandPackets)
            writer.u16(opcode.rawValue)
        }
    }
}
