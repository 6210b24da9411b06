import BLEWire
import Testing

/// Expects `bytes` to fail as an ATT PDU with `reason` in `field`, at `offset` when given.
func expectATTError(
    _ bytes: [UInt8], _ reason: DecodeError.Reason, field: String, offset: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectDecodeError(ATTPDU.self, bytes, reason, field: field, sourceLocation: sourceLocation)
    if let offset {
        do {
            _ = try ATTPDU(decoding: bytes)
        } catch {
            #expect(error.offset == offset, sourceLocation: sourceLocation)
        }
    }
}

@Suite("ATT malformed PDUs (Core 5.4 Vol 3 Part F §3.4)")
struct ATTMalformedTests {
    @Test("§3.3.1: an empty PDU has no opcode")
    func empty() {
        expectATTError([], .truncated(needed: 1, available: 0), field: "Attribute Opcode")
    }

    @Test("§3.4: truncated fixed fields name the field that is cut")
    func truncatedFields() {
        expectATTError(
            hex("01 0a 01 00"), .truncated(needed: 1, available: 0), field: "Error Code", offset: 4)
        expectATTError(hex("02 17"), .truncated(needed: 2, available: 1), field: "Client Rx MTU", offset: 1)
        expectATTError(hex("03"), .truncated(needed: 2, available: 0), field: "Server Rx MTU")
        expectATTError(hex("04 01 00 ff"), .truncated(needed: 2, available: 1), field: "Ending Handle")
        expectATTError(hex("06 01 00 ff ff 00"), .truncated(needed: 2, available: 1), field: "Attribute Type")
        expectATTError(hex("0a 03"), .truncated(needed: 2, available: 1), field: "Attribute Handle")
        expectATTError(hex("0c 03 00"), .truncated(needed: 2, available: 0), field: "Value Offset")
        expectATTError(hex("12 03"), .truncated(needed: 2, available: 1), field: "Attribute Handle")
        expectATTError(hex("16 03 00 00"), .truncated(needed: 2, available: 1), field: "Value Offset")
        expectATTError(hex("17 03 00"), .truncated(needed: 2, available: 0), field: "Value Offset")
        expectATTError(hex("18"), .truncated(needed: 1, available: 0), field: "Flags")
        expectATTError(hex("1b 03"), .truncated(needed: 2, available: 1), field: "Attribute Handle")
        expectATTError(hex("1d"), .truncated(needed: 2, available: 0), field: "Attribute Handle")
        expectATTError(hex("52"), .truncated(needed: 2, available: 0), field: "Attribute Handle")
    }

    @Test("§3.4: octets after a fixed-size PDU are an error, not ignored")
    func trailingOctets() {
        let fixed = [
            "01 0a 01 00 0a 00", "02 17 00 00", "03 17 00 00", "04 01 00 ff ff 00", "0a 03 00 00",
            "0c 03 00 00 00 00", "13 00", "18 01 00", "19 00", "1e 00",
        ]
        for vector in fixed {
            let bytes = hex(vector)
            expectATTError(bytes, .trailingBytes(count: 1), field: "end of packet", offset: bytes.count - 1)
        }
    }

    @Test("§3.4.4.1, §3.4.4.9: an attribute type of any width but 2 or 16 octets is invalid")
    func badUUIDWidth() {
        for width in [0, 1, 3, 4, 15, 17] {
            let bytes = hex("08 01 00 ff ff") + [UInt8](repeating: 0x28, count: width)
            expectATTError(bytes, .invalidValue(UInt64(width)), field: "Attribute Type", offset: 5)
            let group = hex("10 01 00 ff ff") + [UInt8](repeating: 0x28, count: width)
            expectATTError(group, .invalidValue(UInt64(width)), field: "Attribute Group Type", offset: 5)
        }
    }

    @Test("§3.4.4.2: Read By Type Response Length must be ≥ 2 and the list a non-empty multiple of it")
    func readByTypeResponse() {
        expectATTError(
            hex("09 00 01 00"), .outOfRange(value: 0, allowed: 2...255), field: "Length", offset: 1)
        expectATTError(
            hex("09 01 01 00"), .outOfRange(value: 1, allowed: 2...255), field: "Length", offset: 1)
        expectATTError(hex("09"), .truncated(needed: 1, available: 0), field: "Length")
        expectATTError(
            hex("09 04"), .truncated(needed: 4, available: 0), field: "Attribute Data List", offset: 2)
        expectATTError(
            hex("09 04 01 00 aa bb 02 00 cc"), .lengthMismatch(declared: 4, actual: 7),
            field: "Attribute Data List", offset: 2)
    }

    @Test("§3.4.4.10: Read By Group Type Response Length ≥ 4, list a non-empty multiple of it")
    func readByGroupTypeResponse() {
        expectATTError(
            hex("11 03 01 00 05"), .outOfRange(value: 3, allowed: 4...255), field: "Length", offset: 1)
        expectATTError(
            hex("11 06"), .truncated(needed: 6, available: 0), field: "Attribute Data List", offset: 2)
        expectATTError(
            hex("11 06 01 00 07 00 00 18 08 00"), .lengthMismatch(declared: 6, actual: 8),
            field: "Attribute Data List", offset: 2)
    }

    @Test("§3.4.3.2: Find Information Response Format must be 1 or 2, with whole non-empty entries")
    func findInformationResponse() {
        expectATTError(hex("05 00 01 00 00 28"), .invalidValue(0), field: "Format", offset: 1)
        expectATTError(hex("05 03 01 00 00 28"), .invalidValue(3), field: "Format", offset: 1)
        expectATTError(
            hex("05 01"), .truncated(needed: 4, available: 0), field: "Information Data", offset: 2)
        expectATTError(
            hex("05 01 01 00 00 28 02 00"), .truncated(needed: 4, available: 2), field: "Information Data",
            offset: 6)
        // Format 2 with 16-bit entries: 4 octets where 18 are needed.
        expectATTError(
            hex("05 02 01 00 00 28"), .truncated(needed: 18, available: 4), field: "Information Data",
            offset: 2)
    }

    @Test("§3.4.3.4: Find By Type Value Response needs whole, non-empty Handles Information")
    func findByTypeValueResponse() {
        expectATTError(
            hex("07"), .truncated(needed: 4, available: 0), field: "Handles Information List", offset: 1)
        expectATTError(
            hex("07 01 00 05 00 06 00"), .truncated(needed: 4, available: 2),
            field: "Handles Information List",
            offset: 5)
    }

    @Test("§3.4.4.7, §3.4.4.11: Read Multiple Requests need two or more whole handles")
    func setOfHandles() {
        for opcode: UInt8 in [0x0E, 0x20] {
            expectATTError([opcode], .truncated(needed: 4, available: 0), field: "Set Of Handles", offset: 1)
            expectATTError(
                [opcode, 0x03, 0x00], .truncated(needed: 4, available: 2), field: "Set Of Handles")
            expectATTError(
                [opcode, 0x03, 0x00, 0x05, 0x00, 0x07], .truncated(needed: 2, available: 1),
                field: "Set Of Handles", offset: 5)
        }
    }

    @Test("§3.4.4.12: a Length Value Tuple List shorter than 4 octets is invalid")
    func readMultipleVariableResponse() {
        expectATTError(
            hex("21 01 00 aa"), .truncated(needed: 4, available: 3), field: "Length Value Tuple List",
            offset: 1)
        expectATTError(hex("21"), .truncated(needed: 4, available: 0), field: "Length Value Tuple List")
    }

    @Test("§3.4.5.4: a Signed Write Command shorter than 15 octets has no room for its signature")
    func signedWriteTooShort() {
        expectATTError(
            hex("d2 03 00 01 00 00 00 11 22 33 44 55 66 77"), .truncated(needed: 12, available: 11),
            field: "Authentication Signature", offset: 3)
        expectATTError(
            hex("d2 03 00"), .truncated(needed: 12, available: 0), field: "Authentication Signature")
        expectATTError(hex("d2 03"), .truncated(needed: 2, available: 1), field: "Attribute Handle")
    }

    @Test("§3.4.6.3: Execute Write Flags other than 0x00 and 0x01 are invalid")
    func executeWriteFlags() {
        expectATTError(hex("18 02"), .invalidValue(2), field: "Flags", offset: 1)
        expectATTError(hex("18 ff"), .invalidValue(0xFF), field: "Flags", offset: 1)
    }

    @Test("§3.4.7.4: Multiple Handle Value Notification tuples must be whole, and two or more")
    func multipleHandleValueNotification() {
        expectATTError(
            hex("23 03 00 09 00 aa bb 07 00 01 00 cc"), .lengthMismatch(declared: 9, actual: 7),
            field: "Attribute Value Length", offset: 3)
        expectATTError(
            hex("23 03 00 02 00 aa bb 07 00 01"), .truncated(needed: 2, available: 1),
            field: "Attribute Value Length", offset: 9)
        expectATTError(
            hex("23 03 00 02 00 aa bb"), .outOfRange(value: 1, allowed: 2...Int.max),
            field: "Handle Length Value Tuple List", offset: 1)
        expectATTError(
            hex("23"), .outOfRange(value: 0, allowed: 2...Int.max), field: "Handle Length Value Tuple List")
    }

    @Test("§3.4.1.1 note: handle 0x0000 decodes — the server answers Invalid Handle naming it")
    func handleZeroDecodes() throws {
        #expect(try ATTPDU(decoding: hex("0a 00 00")) == .readRequest(.init(handle: 0)))
        #expect(
            try ATTPDU(decoding: hex("04 00 00 ff ff"))
                == .findInformationRequest(.init(startingHandle: 0, endingHandle: 0xFFFF)))
        // Starting handle above ending handle is the server's check too.
        #expect(throws: Never.self) { try ATTPDU(decoding: hex("08 09 00 01 00 03 28")) }
    }

    @Test("Decode errors carry the PDU's name as context")
    func contextNames() {
        do {
            _ = try ATTPDU(decoding: hex("09 01 01 00"))
            Issue.record("decoded")
        } catch {
            #expect(error.context.description == "ATT Read By Type Response")
            #expect(
                error.description == "ATT Read By Type Response: Length at offset 1: value 1 outside 2...255")
        }
    }
}
