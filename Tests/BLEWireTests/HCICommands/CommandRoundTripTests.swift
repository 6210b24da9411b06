import BLEWire
import Testing

/// Encodes, decodes and re-encodes one command, directly and through an HCI command packet and
/// the command table.
private func checkCommand<C: HCICommand & Hashable>(_ command: C) throws {
    try expectRoundTrip(command)
    let packetBytes = command.packet.encoded
    #expect(packetBytes.count == 3 + command.encoded.count, "\(C.name)")
    #expect(UInt16(packetBytes[0]) | UInt16(packetBytes[1]) << 8 == C.opcode.rawValue, "\(C.name)")
    let packet = try HCICommandPacket(decoding: packetBytes)
    let decoded = try packet.decodeCommand()
    #expect(decoded as? C == command, "\(C.name)")
    #expect(decoded?.encoded == command.encoded, "\(C.name)")
    // Rendering goes through reflection; it must produce the command's fields, not fail.
    #expect(packet.description.hasPrefix(C.name), "\(C.name): \(packet.description)")
}

private func checkReturnParameters<R: HCIReturnParameters & Hashable>(_ value: R, _ sample: ReturnSample)
    throws
{
    try expectRoundTrip(value)
    let entry = try #require(HCICommandTable.entry(for: sample.opcode))
    let decode = try #require(entry.decodeReturnParameters, "\(sample.name)")
    let bytes = value.encoded
    #expect(try decode(bytes[...]) as? R == value, "\(sample.name)")
    // Later specification versions may append return parameters: the table ignores them.
    #expect(try decode((bytes + [0xAA, 0xBB])[...]) as? R == value, "\(sample.name)")
    #expect(!value.description.isEmpty)
}

@Suite("HCI command round trips (Core 5.4 Vol 4 Part E §7)")
struct CommandRoundTripTests {
    @Test("Every command encodes, decodes through the table and re-encodes to the same bytes (§5.4.1)")
    func everyCommand() throws {
        for command in CommandSamples.commands {
            try checkCommand(command)
        }
    }

    @Test("The samples cover every entry of the command table")
    func samplesCoverTable() {
        let sampled = Set(CommandSamples.commands.map { type(of: $0).opcode })
        let table = Set(HCICommandTable.entries.map(\.opcode))
        #expect(sampled == table)
        let withReturns = Set(CommandSamples.returnParameters.map(\.opcode))
        let completeEntries = HCICommandTable.entries.filter { $0.completion == .commandComplete }
        // Each distinct return-parameter type has a sample (a lone failure status gives an
        // instance of the type an entry decodes to).
        let tableTypes = Set(
            completeEntries.compactMap { entry in
                (try? entry.decodeReturnParameters?([0x01][...])).map { ObjectIdentifier(type(of: $0)) }
            })
        #expect(tableTypes.count > 10)
        let sampledTypes = Set(CommandSamples.returnParameters.map { ObjectIdentifier(type(of: $0.value)) })
        #expect(tableTypes == sampledTypes)
        #expect(withReturns.isSubset(of: Set(completeEntries.map(\.opcode))))
    }

    @Test("Every return-parameter type round-trips and decodes through its command's table entry (§7.7.14)")
    func everyReturnParameters() throws {
        for sample in CommandSamples.returnParameters {
            try checkReturnParameters(sample.value, sample)
        }
    }

    @Test("A failed command's status alone decodes; a successful one must carry its parameters (§7.7.14)")
    func statusOnlyFailures() throws {
        for entry in HCICommandTable.entries {
            guard let decode = entry.decodeReturnParameters else { continue }
            let failed = try decode([0x0C][...])
            #expect(failed.status == .commandDisallowed, "\(entry.name)")
            let succeeded = try? decode([0x00][...])
            let isStatusOnly = succeeded.map { $0.encoded.count == 1 } ?? false
            // Only pure-status return parameters may decode from a lone success octet.
            #expect(succeeded == nil || isStatusOnly, "\(entry.name)")
        }
    }

    @Test("Units helpers convert raw intervals to milliseconds")
    func units() {
        let advertising = HCI.LESetAdvertisingParameters()
        #expect(advertising.advertisingIntervalMinMilliseconds == 1280)
        let connection = CommandSamples.connection
        #expect(connection.connectionIntervalMinMilliseconds == 30)
        #expect(connection.connectionIntervalMaxMilliseconds == 50)
        #expect(connection.supervisionTimeoutMilliseconds == 420)
        #expect(connection.maxCELengthMilliseconds == 1.25)
        #expect(HCI.LESetScanParameters(leScanInterval: 0x0060).scanIntervalMilliseconds == 60)
        #expect(CommandSamples.extendedParameters.primaryAdvertisingIntervalMaxMilliseconds == 40960)
        #expect(
            HCI.LESetExtendedScanEnable(enable: true, duration: 100, period: 2).periodMilliseconds == 2560)
        #expect(
            HCI.WriteAuthenticatedPayloadTimeout(connectionHandle: 1, authenticatedPayloadTimeout: 0x0BB8)
                .timeoutMilliseconds == 30_000)
    }
}
