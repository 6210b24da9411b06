import BLEWire
import PropertyBased
import Testing

/// Expects `body` to throw a DecodeError with `reason` naming `field`.
private func expectValidationError(
    _ reason: DecodeError.Reason, field: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(DecodeError) -> Void
) {
    do {
        try body()
        Issue.record("expected \(reason) for \(field), passed", sourceLocation: sourceLocation)
    } catch {
        #expect(error.reason == reason, sourceLocation: sourceLocation)
        #expect(error.field.description == field, sourceLocation: sourceLocation)
    }
}

@Suite("L2CAP LE signalling malformed input and receiver range checks (Core 5.4 Vol 3 Part A §4)")
struct L2CAPSignalMalformedTests {
    @Test("§4 a C-frame shorter than its 4-octet header is truncated")
    func shortHeader() {
        expectDecodeError(L2CAPSignal.self, [], .truncated(needed: 1, available: 0), field: "Code")
        expectDecodeError(L2CAPSignal.self, [0x06], .truncated(needed: 1, available: 0), field: "Identifier")
        expectDecodeError(
            L2CAPSignal.self, [0x06, 0x01, 0x04], .truncated(needed: 2, available: 1), field: "Length")
    }

    @Test("§4 Length must equal the octets present: fewer is a mismatch, and so is a second command")
    func lengthMismatch() {
        expectDecodeError(
            L2CAPSignal.self, hex("12 01 08 00 06 00"), .lengthMismatch(declared: 8, actual: 2),
            field: "Length")
        // Two commands in one LE C-frame: the first one's Length no longer covers the frame.
        expectDecodeError(
            L2CAPSignal.self, hex("06 01 04 00 40 00 41 00 06 02 04 00 42 00 43 00"),
            .lengthMismatch(declared: 4, actual: 12), field: "Length")
        do {
            _ = try L2CAPSignal(decoding: hex("06 01 04 00 40 00"))
        } catch {
            #expect(error.offset == 2)
        }
    }

    @Test("§4 identifier 0x00 is invalid in every request and indication")
    func identifierZero() {
        let requests = [
            "06 00 04 00 40 00 41 00", "12 00 08 00 06 00 0c 00 00 00 c8 00",
            "14 00 0a 00 80 00 40 00 00 02 f7 00 0a 00", "16 00 04 00 40 00 01 00",
            "17 00 0a 00 27 00 40 00 40 00 05 00 40 00", "19 00 06 00 00 02 40 00 45 00",
        ]
        for request in requests {
            expectDecodeError(L2CAPSignal.self, hex(request), .invalidValue(0), field: "Identifier")
            var withIdentifier = hex(request)
            withIdentifier[1] = 0x01
            #expect(throws: Never.self) { try L2CAPSignal(decoding: withIdentifier) }
        }
    }

    @Test("§4.6/§4.20–§4.24 fixed-length commands: short data is truncated, long data is trailing bytes")
    func fixedLengths() {
        let full: [(UInt8, Int, String)] = [
            (0x06, 4, "Source CID"), (0x07, 4, "Source CID"), (0x12, 8, "Timeout Multiplier"),
            (0x13, 2, "Result"), (0x14, 10, "Initial Credits"), (0x15, 10, "Result"), (0x16, 4, "Credits"),
            (0x1A, 2, "Result"),
        ]
        for (code, length, lastField) in full {
            let data = [UInt8](repeating: 0x50, count: length)
            let exact = [code, 0x01, UInt8(length), 0x00] + data
            #expect(throws: Never.self) { try L2CAPSignal(decoding: exact) }
            let short = [code, 0x01, UInt8(length - 1), 0x00] + data.dropLast()
            expectDecodeError(L2CAPSignal.self, short, .truncated(needed: 2, available: 1), field: lastField)
            let long = [code, 0x01, UInt8(length + 1), 0x00] + data + [0x00]
            expectDecodeError(L2CAPSignal.self, long, .trailingBytes(count: 1), field: "end of packet")
        }
    }

    @Test("§4.1 Command Reject data length follows the reason")
    func commandRejectData() {
        expectDecodeError(
            L2CAPSignal.self, hex("01 01 01 00 00"), .truncated(needed: 2, available: 1), field: "Reason")
        expectDecodeError(
            L2CAPSignal.self, hex("01 01 02 00 01 00"), .truncated(needed: 2, available: 0),
            field: "Actual MTU")
        expectDecodeError(
            L2CAPSignal.self, hex("01 01 04 00 02 00 40 00"), .truncated(needed: 2, available: 0),
            field: "Remote CID")
        expectDecodeError(L2CAPSignal.self, hex("01 01 04 00 00 00 17 00"), .trailingBytes(count: 2))
        expectDecodeError(L2CAPSignal.self, hex("01 01 05 00 01 00 17 00 00"), .trailingBytes(count: 1))
    }

    @Test("§4.25–§4.27 CID lists: one to five CIDs in requests, up to five in responses, whole octets")
    func cidListLengths() {
        expectDecodeError(
            L2CAPSignal.self, hex("17 01 08 00 27 00 40 00 40 00 05 00"), .truncated(needed: 2, available: 0),
            field: "Source CID")
        expectDecodeError(
            L2CAPSignal.self, hex("17 01 09 00 27 00 40 00 40 00 05 00 40"),
            .truncated(needed: 2, available: 1),
            field: "Source CID")
        let six = "40 00 41 00 42 00 43 00 44 00 45 00"
        expectDecodeError(
            L2CAPSignal.self, hex("17 01 14 00 27 00 40 00 40 00 05 00 " + six), .trailingBytes(count: 2))
        expectDecodeError(
            L2CAPSignal.self, hex("18 01 14 00 40 00 40 00 05 00 00 00 " + six), .trailingBytes(count: 2))
        expectDecodeError(
            L2CAPSignal.self, hex("18 01 09 00 40 00 40 00 05 00 00 00 45"),
            .truncated(needed: 2, available: 1),
            field: "Destination CID")
        expectDecodeError(
            L2CAPSignal.self, hex("19 01 04 00 00 02 40 00"), .truncated(needed: 2, available: 0),
            field: "Destination CID")
        expectDecodeError(
            L2CAPSignal.self, hex("19 01 10 00 00 02 40 00 " + six), .trailingBytes(count: 2))
        #expect(throws: Never.self) {
            try L2CAPSignal(
                decoding: hex("17 01 12 00 27 00 40 00 40 00 05 00 40 00 41 00 42 00 43 00 44 00"))
        }
    }

    @Test("§4.22 LE credit based request ranges: decoded as sent, refused with the matching result")
    func leCreditBasedRanges() throws {
        typealias Request = L2CAPSignal.LECreditBasedConnectionRequest
        func request(spsm: UInt16 = 0x80, scid: UInt16 = 0x40, mtu: UInt16 = 23, mps: UInt16 = 23) -> Request {
            Request(spsm: spsm, sourceCID: scid, mtu: mtu, mps: mps, initialCredits: 0)
        }
        // The decoder accepts an MTU of 22; the receiver's check refuses it.
        let decoded = try L2CAPSignal(decoding: hex("14 01 0a 00 80 00 40 00 16 00 17 00 00 00"))
        #expect(decoded.command == .leCreditBasedConnectionRequest(request(mtu: 22)))

        #expect(request().refusal == nil)
        #expect(request(spsm: 0xFF, scid: 0x7F, mtu: 0xFFFF, mps: 65533).refusal == nil)
        expectValidationError(.outOfRange(value: 22, allowed: 23...65535), field: "MTU") {
            () throws(DecodeError) in try request(mtu: 22).validate()
        }
        #expect(request(mtu: 22).refusal == .unacceptableParameters)
        expectValidationError(.outOfRange(value: 22, allowed: 23...65533), field: "MPS") {
            () throws(DecodeError) in try request(mps: 22).validate()
        }
        #expect(request(mps: 65534).refusal == .unacceptableParameters)
        expectValidationError(.outOfRange(value: 0, allowed: 1...255), field: "SPSM") {
            () throws(DecodeError) in try request(spsm: 0).validate()
        }
        #expect(request(spsm: 0x100).refusal == .spsmNotSupported)
        expectValidationError(.outOfRange(value: 0x3F, allowed: 0x40...0x7F), field: "Source CID") {
            () throws(DecodeError) in try request(scid: 0x3F).validate()
        }
        #expect(request(scid: 0x80).refusal == .invalidSourceCID)
    }

    @Test("§4.23 a successful LE credit based response must carry usable parameters")
    func leCreditBasedResponseRanges() {
        typealias Response = L2CAPSignal.LECreditBasedConnectionResponse
        #expect(throws: Never.self) {
            try Response(destinationCID: 0x40, mtu: 23, mps: 23, initialCredits: 0, result: .success)
                .validate()
        }
        #expect(throws: Never.self) { try Response.refused(.noResourcesAvailable).validate() }
        expectValidationError(.outOfRange(value: 22, allowed: 23...65535), field: "MTU") {
            () throws(DecodeError) in
            try Response(destinationCID: 0x40, mtu: 22, mps: 23, initialCredits: 0, result: .success)
                .validate()
        }
        expectValidationError(.outOfRange(value: 0, allowed: 0x40...0x7F), field: "Destination CID") {
            () throws(DecodeError) in
            try Response(destinationCID: 0, mtu: 23, mps: 23, initialCredits: 0, result: .success).validate()
        }
        expectValidationError(.outOfRange(value: 65534, allowed: 23...65533), field: "MPS") {
            () throws(DecodeError) in
            try Response(destinationCID: 0x40, mtu: 23, mps: 65534, initialCredits: 0, result: .success)
                .validate()
        }
    }

    @Test("§4.24 credits 0 decode but fail the 1...65535 range check")
    func zeroCredits() throws {
        let signal = try L2CAPSignal(decoding: hex("16 01 04 00 40 00 00 00"))
        guard case .flowControlCreditIndication(let indication) = signal.command else {
            Issue.record("decoded \(signal)")
            return
        }
        expectValidationError(.outOfRange(value: 0, allowed: 1...65535), field: "Credits") {
            () throws(DecodeError) in try indication.validate()
        }
        #expect(throws: Never.self) {
            try L2CAPSignal.FlowControlCreditIndication(cid: 0x40, credits: 1).validate()
        }
    }

    @Test("§4.25 enhanced credit based request ranges map to the §4.26 result codes")
    func enhancedRanges() {
        typealias Request = L2CAPSignal.CreditBasedConnectionRequest
        func request(
            spsm: UInt16 = 0x27, mtu: UInt16 = 64, mps: UInt16 = 64, cids: L2CAPSignal.CIDList = [0x40]
        )
            -> Request
        {
            Request(spsm: spsm, mtu: mtu, mps: mps, initialCredits: 1, sourceCIDs: cids)
        }
        #expect(request().refusal == nil)
        #expect(request(mtu: 63).refusal == .allRefusedInvalidParameters)
        expectValidationError(.outOfRange(value: 65534, allowed: 64...65533), field: "MPS") {
            () throws(DecodeError) in try request(mps: 65534).validate()
        }
        #expect(request(spsm: 0).refusal == .allRefusedSPSMNotSupported)
        #expect(request(cids: [0x40, 0x30]).refusal == .someRefusedInvalidSourceCID)
        do {
            try request(cids: [0x40, 0x30]).validate()
            Issue.record("expected an invalid Source CID")
        } catch {
            #expect(error.field.description == "Source CID")
            #expect(error.offset == 10)
        }
    }

    @Test("§4.27 reconfigure ranges map to the §4.28 result codes")
    func reconfigureRanges() {
        typealias Request = L2CAPSignal.CreditBasedReconfigureRequest
        #expect(Request(mtu: 64, mps: 64, destinationCIDs: [0x40]).refusal == nil)
        #expect(Request(mtu: 63, mps: 64, destinationCIDs: [0x40]).refusal == .mtuReductionNotAllowed)
        #expect(Request(mtu: 64, mps: 63, destinationCIDs: [0x40]).refusal == .otherUnacceptableParameters)
        expectValidationError(.outOfRange(value: 63, allowed: 64...65535), field: "MTU") {
            () throws(DecodeError) in try Request(mtu: 63, mps: 64, destinationCIDs: [0x40]).validate()
        }
    }

    @Test("§4.20 connection parameter ranges and the supervision timeout rule")
    func connectionParameterRanges() {
        typealias Request = L2CAPSignal.ConnectionParameterUpdateRequest
        func check(_ min: UInt16, _ max: UInt16, _ latency: UInt16, _ timeout: UInt16) -> ()
            throws(DecodeError)
            -> Void
        {
            {
                () throws(DecodeError) in
                try Request(
                    intervalMin: min, intervalMax: max, peripheralLatency: latency, timeoutMultiplier: timeout
                )
                .validate()
            }
        }
        #expect(throws: Never.self) { try check(6, 3200, 0, 3200)() }
        #expect(throws: Never.self) { try check(24, 40, 8, 100)() }
        expectValidationError(
            .outOfRange(value: 5, allowed: 6...3200), field: "Interval Min", check(5, 12, 0, 200))
        expectValidationError(
            .outOfRange(value: 3201, allowed: 6...3200), field: "Interval Max", check(6, 3201, 0, 200))
        expectValidationError(
            .outOfRange(value: 12, allowed: 6...10), field: "Interval Min", check(12, 10, 0, 200))
        expectValidationError(
            .outOfRange(value: 500, allowed: 0...499), field: "Peripheral Latency", check(6, 6, 500, 3200))
        expectValidationError(
            .outOfRange(value: 9, allowed: 10...3200), field: "Timeout Multiplier", check(6, 12, 0, 9))
        expectValidationError(
            .outOfRange(value: 3201, allowed: 10...3200), field: "Timeout Multiplier", check(6, 12, 0, 3201))
        // 50 ms interval, 1 s timeout: latency 8 fits (1 s > 9 × 100 ms), latency 10 does not.
        expectValidationError(
            .outOfRange(value: 10, allowed: 0...8), field: "Peripheral Latency", check(24, 40, 10, 100))
        // A 4 s interval cannot fit a 1 s timeout at any latency: the timeout is at fault.
        expectValidationError(
            .outOfRange(value: 100, allowed: 801...3200), field: "Timeout Multiplier", check(6, 3200, 0, 100))
    }

    @Test("Random bytes never trap L2CAPSignal decoding")
    func fuzz() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(L2CAPSignal.self, bytes)
        }
    }

    @Test("Random data under every code, with a raw or a consistent header, never traps")
    func fuzzEveryCode() async {
        let codes = (0x00...0x1B).map { UInt8($0) }
        await propertyCheck(count: 1000, input: randomBytes) { bytes in
            for code in codes {
                expectNoTrap(L2CAPSignal.self, [code] + bytes)
                let data = bytes.dropFirst()
                let framed = [code, bytes.first ?? 1, UInt8(data.count), 0x00] + data
                expectNoTrap(L2CAPSignal.self, framed)
                // Within the table's bounds every known LE command decodes (Command Reject's
                // length depends on its reason, so it is exempt).
                if code != 0x01, let entry = L2CAPSignalCode(code).entry, entry.isDecodedOnLE,
                    framed[1] != 0, data.count.isMultiple(of: 2), data.count >= entry.minimumLength,
                    data.count <= (entry.maximumLength ?? Int.max)
                {
                    #expect(throws: Never.self) { try L2CAPSignal(decoding: framed) }
                }
            }
        }
    }
}
