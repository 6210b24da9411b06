import BLEWire
import PropertyBased
import Testing

/// The shortest valid PDU of every known opcode (Core 5.4 Vol 3 Part F §3.4.1–§3.4.7).
let minimalATTPDUs: [UInt8: [UInt8]] = [
    0x01: hex("01 0a 01 00 0a"),
    0x02: hex("02 17 00"),
    0x03: hex("03 17 00"),
    0x04: hex("04 01 00 ff ff"),
    0x05: hex("05 01 01 00 00 28"),
    0x06: hex("06 01 00 ff ff 00 28"),
    0x07: hex("07 01 00 05 00"),
    0x08: hex("08 01 00 ff ff 03 28"),
    0x09: hex("09 02 01 00"),
    0x0A: hex("0a 03 00"),
    0x0B: hex("0b"),
    0x0C: hex("0c 03 00 16 00"),
    0x0D: hex("0d"),
    0x0E: hex("0e 03 00 05 00"),
    0x0F: hex("0f"),
    0x10: hex("10 01 00 ff ff 00 28"),
    0x11: hex("11 04 01 00 05 00"),
    0x12: hex("12 03 00"),
    0x13: hex("13"),
    0x16: hex("16 03 00 00 00"),
    0x17: hex("17 03 00 00 00"),
    0x18: hex("18 00"),
    0x19: hex("19"),
    0x1B: hex("1b 03 00"),
    0x1D: hex("1d 03 00"),
    0x1E: hex("1e"),
    0x20: hex("20 03 00 05 00"),
    0x21: hex("21 00 00 00 00"),
    0x23: hex("23 03 00 00 00 05 00 00 00"),
    0x52: hex("52 03 00"),
    0xD2: hex("d2 03 00 01 00 00 00 11 22 33 44 55 66 77 88"),
]

@Suite("ATT opcode table (Core 5.4 Vol 3 Part F §3.3.1, §3.4.8)")
struct ATTOpcodeTests {
    @Test("§3.4.8: the table has one row per opcode and every row is found by its opcode")
    func rowsAreUnique() throws {
        let opcodes = ATTOpcode.table.map(\.opcode)
        #expect(Set(opcodes).count == opcodes.count)
        #expect(opcodes.count == 31)
        for info in ATTOpcode.table {
            let found = try #require(info.opcode.info)
            #expect(found.opcode == info.opcode)
            #expect(info.opcode.isKnown)
            #expect(info.opcode.symbol == info.symbol.description)
        }
        let known = Set(opcodes.map(\.rawValue))
        for raw in UInt8.min...UInt8.max where !known.contains(raw) {
            #expect(ATTOpcode(raw).info == nil)
            #expect(!ATTOpcode(raw).isKnown)
        }
    }

    @Test("§3.4.9: every request's response pairs back to the request; indication ↔ confirmation")
    func pairsAreConsistent() throws {
        for info in ATTOpcode.table {
            let opcode = info.opcode
            switch info.kind {
            case .request, .indication:
                let response = try #require(opcode.pairedResponse, "\(opcode) has no response")
                #expect(response.pairedRequest == opcode)
                #expect(response.kind == (info.kind == .request ? .response : .confirmation))
                #expect(opcode.pairedRequest == nil)
            case .response, .confirmation:
                #expect(opcode.pairedResponse == nil)
                if opcode == .errorResponse {
                    #expect(opcode.pairedRequest == nil)
                } else {
                    let request = try #require(opcode.pairedRequest, "\(opcode) has no request")
                    #expect(request.pairedResponse == opcode)
                }
            case .command, .notification:
                #expect(opcode.pairedResponse == nil)
                #expect(opcode.pairedRequest == nil)
            }
        }
        #expect(ATTOpcode.readByTypeRequest.pairedResponse == .readByTypeResponse)
        #expect(ATTOpcode.readMultipleVariableResponse.pairedRequest == .readMultipleVariableRequest)
        #expect(ATTOpcode.handleValueIndication.pairedResponse == .handleValueConfirmation)
    }

    @Test("§3.3.1: the Command Flag marks exactly the commands, the signature flag the signed write")
    func flagBits() {
        for info in ATTOpcode.table {
            #expect(info.opcode.isCommand == (info.kind == .command), "\(info.opcode)")
            #expect(info.opcode.isSigned == (info.opcode == .signedWriteCommand), "\(info.opcode)")
        }
        #expect(ATTOpcode.writeCommand.method == ATTOpcode.writeRequest.method)
        #expect(ATTOpcode.signedWriteCommand.method == ATTOpcode.writeRequest.method)
    }

    @Test("§3.4.8: names follow the specification's ATT_…_REQ/RSP/CMD/NTF/IND/CFM style")
    func names() {
        let suffix: [ATTOpcode.Kind: String] = [
            .request: "_REQ", .response: "_RSP", .command: "_CMD", .notification: "_NTF",
            .indication: "_IND", .confirmation: "_CFM",
        ]
        for info in ATTOpcode.table {
            let symbol = info.symbol.description
            #expect(symbol.hasPrefix("ATT_") && symbol.hasSuffix(suffix[info.kind] ?? "?"), "\(symbol)")
        }
        #expect(ATTOpcode.readByTypeRequest.symbol == "ATT_READ_BY_TYPE_REQ")
        #expect(ATTOpcode.readByTypeRequest.name == "Read By Type Request")
        #expect(ATTOpcode.readByTypeRequest.description == "ATT_READ_BY_TYPE_REQ (0x08)")
        #expect(ATTOpcode(0x3F).description == "Unknown Request (0x3F)")
        #expect(ATTOpcode(0x7F).description == "Unknown Command (0x7F)")
        #expect(ATTOpcode.multipleHandleValueNotification.info?.section.description == "§3.4.7.4")
    }

    @Test(
        "§3.3: an unknown opcode is a request (Request Not Supported) unless its Command Flag is set"
    )
    func unknownOpcodes() {
        #expect(ATTOpcode(0x3F).kind == .request)
        #expect(ATTOpcode(0x3F).unsupportedAction == .respondRequestNotSupported)
        #expect(ATTOpcode(0x7F).kind == .command)
        #expect(ATTOpcode(0x7F).unsupportedAction == .ignore)
        // Signed write request does not exist: bit 7 alone does not make a command.
        #expect(ATTOpcode(0x92).kind == .request)
        #expect(ATTOpcode(0xC0).kind == .command)
        // Known PDUs that are not requests are never answered when unsupported.
        #expect(ATTOpcode.readRequest.unsupportedAction == .respondRequestNotSupported)
        #expect(ATTOpcode.handleValueConfirmation.unsupportedAction == .ignore)
        #expect(ATTOpcode.handleValueIndication.unsupportedAction == .ignore)
        #expect(ATTOpcode.signedWriteCommand.unsupportedAction == .ignore)
        #expect(ATTOpcode.readResponse.unsupportedAction == .ignore)
        for raw in UInt8.min...UInt8.max where !ATTOpcode(raw).isKnown {
            #expect(ATTOpcode(raw).kind == (raw & 0x40 != 0 ? .command : .request))
        }
    }

    @Test("§3.4.8: an unknown opcode decodes as .unknown with its parameters, never an error")
    func unknownDecodes() throws {
        let pdu = try ATTPDU(decoding: hex("3f 01 02 03"))
        #expect(pdu == .unknown(opcode: ATTOpcode(0x3F), parameters: [1, 2, 3]))
        #expect(pdu.opcode == ATTOpcode(0x3F))
        #expect(pdu.kind == .request)
        #expect(pdu.encoded == hex("3f 01 02 03"))
        #expect(try ATTPDU(decoding: [0xFF]) == .unknown(opcode: ATTOpcode(0xFF), parameters: []))
    }

    @Test("§3.4: every known opcode's minimum-length PDU decodes; one octet less fails")
    func minimumLengths() throws {
        #expect(Set(minimalATTPDUs.keys) == Set(ATTOpcode.table.map(\.opcode.rawValue)))
        for info in ATTOpcode.table {
            let bytes = try #require(minimalATTPDUs[info.opcode.rawValue])
            #expect(bytes.count == info.minimumLength, "\(info.opcode)")
            let pdu = try ATTPDU(decoding: bytes)
            #expect(pdu.opcode == info.opcode)
            #expect(pdu.encoded == bytes)
            if bytes.count > 1 {
                #expect(throws: DecodeError.self, "\(info.opcode)") {
                    try ATTPDU(decoding: Array(bytes.dropLast()))
                }
            }
        }
    }

    @Test("§3.4: no PDU shorter than its opcode's minimum length decodes, whatever its octets")
    func shorterThanMinimumNeverDecodes() async {
        let shortOnes = ATTOpcode.table.filter { $0.minimumLength > 1 }
        await propertyCheck(count: 2000, input: Gen.element(of: shortOnes), randomBytes) { info, bytes in
            guard let info else { return }
            let parameters = bytes.prefix(info.minimumLength - 2)
            let pdu = [info.opcode.rawValue] + parameters
            #expect(pdu.count < info.minimumLength)
            #expect((try? ATTPDU(decoding: pdu)) == nil, "\(Hex.string(pdu)) decoded")
        }
    }

    @Test("§3.3.1: peek gives the opcode and kind without decoding the parameters")
    func peek() {
        #expect(ATTPDU.peek([UInt8]()) == nil)
        let request = ATTPDU.peek(hex("0a"))  // a truncated Read Request is still a request
        #expect(request?.opcode == .readRequest && request?.kind == .request)
        let command = ATTPDU.peek(hex("52 03 00 01")[...])
        #expect(command?.opcode == .writeCommand && command?.kind == .command)
        let unknown = ATTPDU.peek(hex("7e"))
        #expect(unknown?.opcode == ATTOpcode(0x7E) && unknown?.kind == .command)
        #expect(ATTPDU.peek(hex("1b 03 00"))?.kind == .notification)
        #expect(ATTPDU.peek(hex("1d 03 00"))?.kind == .indication)
        #expect(ATTPDU.peek(hex("1e"))?.kind == .confirmation)
        #expect(ATTPDU.peek(hex("01 0a 03 00 01"))?.kind == .response)
    }
}
