import BLEWire
import PropertyBased
import Testing

@Suite("SMP malformed input (Core 5.4 Vol 3 Part H §3.3)")
struct SMPMalformedTests {
    @Test("§3.3 an empty PDU has no Code")
    func empty() {
        expectDecodeError(SMPCommand.self, [], .truncated(needed: 1, available: 0), field: "Code")
    }

    @Test("§3.3 fixed lengths: every shorter PDU is truncated, one octet more is trailing bytes")
    func everyLength() {
        for code in SMPCode.allDefined {
            guard let entry = code.entry else { continue }
            let full = [code.rawValue] + [UInt8](repeating: 0x10, count: entry.parameterLength)
            for length in 1..<entry.pduLength {
                do {
                    _ = try SMPCommand(decoding: Array(full.prefix(length)))
                    Issue.record("\(entry.name) of \(length) octets decoded")
                } catch {
                    guard case .truncated = error.reason else {
                        Issue.record("\(entry.name) of \(length) octets: \(error)")
                        continue
                    }
                }
            }
            #expect(throws: Never.self) { try SMPCommand(decoding: full) }
            expectDecodeError(SMPCommand.self, full + [0], .trailingBytes(count: 1), field: "end of packet")
        }
    }

    @Test("§3.5.1 a truncated Pairing Request names the missing field")
    func truncatedFields() {
        expectDecodeError(
            SMPCommand.self, hex("01 03 00 01"), .truncated(needed: 1, available: 0),
            field: "Maximum Encryption Key Size")
        expectDecodeError(
            SMPCommand.self, hex("02 03 00 01 10 07"), .truncated(needed: 1, available: 0),
            field: "Responder Key Distribution")
        expectDecodeError(
            SMPCommand.self, hex("01"), .truncated(needed: 1, available: 0), field: "IO Capability")
        expectDecodeError(SMPCommand.self, hex("05"), .truncated(needed: 1, available: 0), field: "Reason")
        expectDecodeError(SMPCommand.self, hex("0b"), .truncated(needed: 1, available: 0), field: "AuthReq")
        expectDecodeError(
            SMPCommand.self, hex("0e"), .truncated(needed: 1, available: 0), field: "Notification Type")
        expectDecodeError(
            SMPCommand.self, hex("09 00 01 02"), .truncated(needed: 6, available: 2), field: "BD_ADDR")
        expectDecodeError(SMPCommand.self, hex("07 01"), .truncated(needed: 2, available: 1), field: "EDIV")
        expectDecodeError(
            SMPCommand.self, hex("07 01 02 03"), .truncated(needed: 8, available: 1), field: "Rand")
    }

    @Test("§3.5.3–§3.5.7 truncated 128- and 256-bit values name their field")
    func truncatedKeys() {
        let fifteen = [UInt8](repeating: 0xEE, count: 15)
        let cases: [(UInt8, String)] = [
            (0x03, "Confirm Value"), (0x04, "Random Value"), (0x0D, "DHKey Check"), (0x06, "Long Term Key"),
            (0x08, "Identity Resolving Key"), (0x0A, "Signature Key"),
        ]
        for (code, field) in cases {
            expectDecodeError(
                SMPCommand.self, [code] + fifteen, .truncated(needed: 16, available: 15), field: field)
        }
        expectDecodeError(
            SMPCommand.self, [0x0C] + [UInt8](repeating: 1, count: 10), .truncated(needed: 32, available: 10),
            field: "Public Key X")
        expectDecodeError(
            SMPCommand.self, [0x0C] + [UInt8](repeating: 1, count: 63), .truncated(needed: 32, available: 31),
            field: "Public Key Y")
    }

    @Test("§3.5.1/§3.5.2 Maximum Encryption Key Size outside 7...16 is out of range at offset 4")
    func keySizeRange() throws {
        for size: UInt8 in [0, 6, 17, 0xFF] {
            for code: UInt8 in [0x01, 0x02] {
                let bytes = [code, 0x03, 0x00, 0x01, size, 0x07, 0x07]
                expectDecodeError(
                    SMPCommand.self, bytes, .outOfRange(value: Int(size), allowed: 7...16),
                    field: "Maximum Encryption Key Size")
                do {
                    _ = try SMPCommand(decoding: bytes)
                } catch {
                    #expect(error.offset == 4)
                    #expect(
                        error.context.description
                            == (code == 1 ? "SMP Pairing Request" : "SMP Pairing Response"))
                }
            }
        }
        for size: UInt8 in [7, 16] {
            #expect(throws: Never.self) {
                try SMPCommand(decoding: [0x01, 0x03, 0x00, 0x01, size, 0x07, 0x07])
            }
        }
    }

    @Test("Random bytes never trap SMPCommand decoding")
    func fuzz() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(SMPCommand.self, bytes)
        }
    }

    @Test("Random parameters after every known code never trap, and exact lengths decode")
    func fuzzEveryCode() async {
        await propertyCheck(count: 1000, input: randomBytes) { bytes in
            for code in SMPCode.allDefined {
                expectNoTrap(SMPCommand.self, [code.rawValue] + bytes)
                guard let entry = code.entry, bytes.count >= entry.parameterLength else { continue }
                let exact = [code.rawValue] + bytes.prefix(entry.parameterLength)
                if let command = try? SMPCommand(decoding: exact) {
                    #expect(command.encoded == exact)
                } else {
                    // Only an out-of-range key size may refuse a PDU of the right length.
                    #expect(code == .pairingRequest || code == .pairingResponse)
                }
            }
        }
    }
}
