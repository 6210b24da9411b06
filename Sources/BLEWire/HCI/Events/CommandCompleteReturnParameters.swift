extension HCIEvent.CommandComplete {
    /// The return parameters of a Command Complete event checked against the definition of the
    /// command it completes (Core 5.4 Vol 4 Part E §7.7.14: "the return parameter(s) for the
    /// command specified in the Command_Opcode event parameter").
    ///
    /// The rules, one per case of the status:
    /// - **Success:** every return parameter the command defines must be present; a block cut
    ///   short is a `DecodeError` naming the command (`command`) and the first missing field.
    /// - **Failure:** only Status is meaningful. A controller may return the Status alone (many
    ///   do), or the whole block (then it is decoded, e.g. the Connection_Handle the command
    ///   named); anything between is kept as raw octets after the status, never an error.
    /// - **No status at all** (an empty block for a command that has return parameters) is a
    ///   `DecodeError` on the Status field, whatever the command.
    /// - **Octets after the defined parameters** are kept in `additional`, not an error: later
    ///   versions of the specification append return parameters to existing commands, and a host
    ///   ignores what it does not know (as for every HCI event, see `HCIEvent`).
    ///
    /// The event itself (`HCIEvent(decoding:)`) stays decodable whatever its return parameters:
    /// its Num_HCI_Command_Packets is the host's command credit, which must not be lost with the
    /// malformed parameters. The host sees the error when it asks `returnParameters(for:)` for
    /// the command's typed parameters; `ble decode` and the rendering check with this.
    public enum CheckedReturnParameters: Sendable {
        /// Opcode 0x0000 (Vol 4 Part E §7.7.14): a credit, no command, no return parameters;
        /// any octets present are kept.
        case noOperation(additional: ArraySlice<UInt8>)
        /// A command the command table does not know: its parameters cannot be checked.
        case unknownCommand(ArraySlice<UInt8>)
        /// The typed return parameters, and any octets after them.
        case decoded(any HCIReturnParameters, additional: ArraySlice<UInt8>)
        /// A failed command whose block is not whole: its status, then the octets after it.
        case failed(HCIStatus, rest: ArraySlice<UInt8>)
        /// A command the table completes with Command Status, answered here with Command
        /// Complete (e.g. Unknown HCI Command, §4.5): its status, then any further octets.
        case statusOnly(HCIStatus, additional: ArraySlice<UInt8>)
    }

    /// The return parameters checked against the command table (see `CheckedReturnParameters`);
    /// throws when a successful command's block is cut short or the status is missing.
    public func checkedReturnParameters() throws(DecodeError) -> CheckedReturnParameters {
        guard opcode.rawValue != 0x0000 else { return .noOperation(additional: returnParameters) }
        guard let entry = HCICommandTable.entry(for: opcode) else { return .unknownCommand(returnParameters) }
        guard let first = returnParameters.first else {
            throw DecodeError(
                context: "Command Complete return parameters", field: "Status", offset: 0,
                reason: .truncated(needed: 1, available: 0), command: opcode)
        }
        let status = HCIStatus(first)
        let afterStatus = returnParameters.dropFirst()
        guard let read = entry.readReturnParameters else {
            return .statusOnly(status, additional: afterStatus)
        }
        do {
            var reader = ByteReader(returnParameters)
            let typed = try read(&reader)
            let consumed = reader.offset
            if !status.isSuccess && consumed == 1 && afterStatus.isEmpty {
                return .failed(status, rest: afterStatus)
            }
            return .decoded(typed, additional: returnParameters.dropFirst(consumed))
        } catch {
            if !status.isSuccess { return .failed(status, rest: afterStatus) }
            var named = error
            named.command = opcode
            throw named
        }
    }
}
