import BLEWire
import Testing

/// A whole, successful return-parameter block of every Command Complete command in the table,
/// built from the samples of its return-parameter type with the status set to Success.
private func successBlocks() throws -> [(entry: HCICommandTable.Entry, block: [UInt8])] {
    var blocks: [(HCICommandTable.Entry, [UInt8])] = []
    for entry in HCICommandTable.entries where entry.completion == .commandComplete {
        let decode = try #require(entry.decodeReturnParameters)
        // A lone failure status decodes to an instance of the entry's return-parameter type.
        let type = ObjectIdentifier(Swift.type(of: try decode([0x01][...])))
        let sample = try #require(
            CommandSamples.returnParameters.first { ObjectIdentifier(Swift.type(of: $0.value)) == type },
            "\(entry.name) has no return-parameter sample")
        var block = sample.value.encoded
        block[0] = HCIStatus.success.rawValue
        blocks.append((entry, block))
    }
    return blocks
}

private func complete(_ entry: HCICommandTable.Entry, _ block: [UInt8]) -> HCIEvent.CommandComplete {
    HCIEvent.CommandComplete(opcode: entry.opcode, returnParameters: block[...])
}

@Suite("Command Complete return parameters checked against their command (Core 5.4 Vol 4 Part E §7.7.14)")
struct CommandCompleteLengthTests {
    @Test(
        "§7.7.14: every truncation of every command's successful return parameters is a DecodeError naming the command")
    func everyTruncationRejected() throws {
        let blocks = try successBlocks()
        #expect(blocks.count == HCICommandTable.entries.filter { $0.completion == .commandComplete }.count)
        for (entry, block) in blocks {
            guard case .decoded = try complete(entry, block).checkedReturnParameters() else {
                Issue.record("\(entry.name): the whole block does not decode")
                continue
            }
            for length in 0..<block.count {
                let cut = complete(entry, Array(block.prefix(length)))
                #expect(throws: DecodeError.self, "\(entry.name) cut to \(length)") {
                    try cut.checkedReturnParameters()
                }
                do {
                    _ = try cut.checkedReturnParameters()
                } catch {
                    #expect(error.command == entry.opcode, "\(entry.name) cut to \(length)")
                    #expect(error.description.contains(entry.name), "\(error)")
                    if case .truncated = error.reason {} else { Issue.record("\(entry.name): \(error)") }
                }
                // The rendering shows the error rather than trapping or hiding it.
                let text = HCIEvent.commandComplete(cut).description
                #expect(text.contains("error: "), "\(entry.name) cut to \(length): \(text)")
                // The host's typed path refuses it too, naming the command.
                let packet = HCIPacket.event(.commandComplete(cut))
                #expect(throws: DecodeError.self) { try packet.checkContents() }
            }
        }
    }

    @Test("§7.7.14: octets after a command's return parameters are kept as additional parameters, not an error")
    func trailingOctetsKept() throws {
        for (entry, block) in try successBlocks() {
            let longer = complete(entry, block + [0xAA, 0xBB])
            guard case .decoded(let typed, let additional) = try longer.checkedReturnParameters() else {
                Issue.record("\(entry.name): not decoded with two extra octets")
                continue
            }
            #expect(typed.encoded == block, "\(entry.name)")
            #expect(Array(additional) == [0xAA, 0xBB], "\(entry.name)")
            #expect(HCIEvent.commandComplete(longer).description.contains("additionalParameters: aabb"))
        }
    }

    @Test("§7.7.14: a failed command may return its status alone or any part of its block; no status is an error")
    func failureStatusRule() throws {
        for (entry, block) in try successBlocks() {
            var failed = block
            failed[0] = HCIStatus.commandDisallowed.rawValue
            #expect(throws: DecodeError.self, "\(entry.name) with no status") {
                try complete(entry, []).checkedReturnParameters()
            }
            for length in 1...failed.count {
                let result = try complete(entry, Array(failed.prefix(length))).checkedReturnParameters()
                switch result {
                case .failed(let status, let rest):
                    #expect(status == .commandDisallowed)
                    #expect(Array(rest) == Array(failed[1..<length]), "\(entry.name)")
                case .decoded(let typed, _):
                    // Only the whole block decodes typed.
                    #expect(length == failed.count, "\(entry.name) at \(length)")
                    #expect(typed.status == .commandDisallowed)
                default: Issue.record("\(entry.name) at \(length): \(result)")
                }
            }
        }
    }

    @Test("Read BD_ADDR success without its address and LE Set Scan Enable without its status are refused")
    func reportedExamples() throws {
        let readAddress = try HCIPacket(h4: hex("04 0e 04 01 09 10 00"))
        do {
            try readAddress.checkContents()
            Issue.record("accepted")
        } catch {
            #expect(error.command == HCI.ReadBDADDR.opcode)
            #expect(error.field.description == "BD_ADDR")
            #expect(error.description.hasPrefix("Command Complete of Read BD_ADDR (0x1009): "))
        }
        let scanEnable = try HCIPacket(h4: hex("04 0e 03 01 0c 20"))
        do {
            try scanEnable.checkContents()
            Issue.record("accepted")
        } catch {
            #expect(error.command == HCI.LESetScanEnable.opcode)
            #expect(error.field.description == "Status")
        }
    }

    @Test("§7.7.14: returnParameters(for:) names the command in its error")
    func typedAccessNamesCommand() {
        let cut = HCIEvent.CommandComplete(opcode: HCI.ReadBDADDR.opcode, returnParameters: [0x00, 0x01][...])
        #expect(throws: DecodeError.self) { try cut.returnParameters(for: HCI.ReadBDADDR.self) }
        do {
            _ = try cut.returnParameters(for: HCI.ReadBDADDR.self)
        } catch {
            #expect(error.command == HCI.ReadBDADDR.opcode)
        }
    }

    @Test("§7.7.14: no operation (0x0000), unknown commands and Command Status commands are not checked further")
    func uncheckedOpcodes() throws {
        guard
            case .noOperation(let extra) = try HCIEvent.CommandComplete(
                opcode: HCIOpcode(rawValue: 0), returnParameters: [][...]
            ).checkedReturnParameters(), extra.isEmpty
        else {
            Issue.record("no-operation")
            return
        }
        let vendor = HCIEvent.CommandComplete(opcode: HCIOpcode(ogf: 0x3F, ocf: 1), returnParameters: [][...])
        guard case .unknownCommand = try vendor.checkedReturnParameters() else {
            Issue.record("vendor")
            return
        }
        let disconnect = HCIEvent.CommandComplete(opcode: HCI.Disconnect.opcode, returnParameters: [0x01][...])
        guard case .statusOnly(let status, _) = try disconnect.checkedReturnParameters() else {
            Issue.record("status-only")
            return
        }
        #expect(status == .unknownHCICommand)
    }
}
