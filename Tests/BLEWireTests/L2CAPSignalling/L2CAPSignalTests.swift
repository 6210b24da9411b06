import BLEWire
import Testing

/// One value of every LE signalling command, for round trips and table checks.
let everyL2CAPSignalCommand: [L2CAPSignalCommand] = {
    typealias S = L2CAPSignal
    return [
        S.CommandReject(reason: .commandNotUnderstood).command,
        S.CommandReject(reason: .signalingMTUExceeded(actualMTU: 23)).command,
        S.CommandReject(reason: .invalidCIDInRequest(localCID: 0x0040, remoteCID: 0x0041)).command,
        S.CommandReject(reason: .reserved(reason: 0x0003, data: [1, 2, 3])).command,
        S.DisconnectionRequest(destinationCID: 0x0040, sourceCID: 0x0041).command,
        S.DisconnectionResponse(destinationCID: 0x0040, sourceCID: 0x0041).command,
        S.ConnectionParameterUpdateRequest(
            intervalMin: 6, intervalMax: 12, peripheralLatency: 0, timeoutMultiplier: 200
        ).command,
        S.ConnectionParameterUpdateResponse(result: .accepted).command,
        S.ConnectionParameterUpdateResponse(result: .reserved(7)).command,
        S.LECreditBasedConnectionRequest(
            spsm: 0x0080, sourceCID: 0x0040, mtu: 512, mps: 247, initialCredits: 10
        )
        .command,
        S.LECreditBasedConnectionResponse(
            destinationCID: 0x0041, mtu: 256, mps: 100, initialCredits: 3, result: .success
        ).command,
        S.LECreditBasedConnectionResponse.refused(.reserved(0x0C)).command,
        S.FlowControlCreditIndication(cid: 0x0040, credits: 1).command,
        S.CreditBasedConnectionRequest(
            spsm: 0x0027, mtu: 64, mps: 64, initialCredits: 5, sourceCIDs: [0x40, 0x41, 0x42, 0x43, 0x44]
        ).command,
        S.CreditBasedConnectionResponse(
            mtu: 64, mps: 64, initialCredits: 5, result: .someRefusedInvalidSourceCID,
            destinationCIDs: [0x45, 0]
        ).command,
        S.CreditBasedConnectionResponse(
            mtu: 0, mps: 0, initialCredits: 0, result: .allRefusedInvalidParameters, destinationCIDs: []
        ).command,
        S.CreditBasedReconfigureRequest(mtu: 512, mps: 64, destinationCIDs: [0x45]).command,
        S.CreditBasedReconfigureResponse(result: .mpsReductionNotAllowed).command,
        .unknown(code: 0x0A, data: [0x02, 0x00]),
        .unknown(code: 0x1B, data: []),
    ]
}()

@Suite("L2CAP LE signalling channel (Core 5.4 Vol 3 Part A §4)")
struct L2CAPSignalTests {
    @Test("§4 code table: names, kinds, paired codes and length bounds are consistent")
    func table() throws {
        #expect(L2CAPSignalCode.allDefined.count == 20)
        for code in L2CAPSignalCode.allDefined {
            let entry = try #require(code.entry)
            #expect(entry.code == code)
            #expect(entry.name.hasPrefix("L2CAP_"))
            if let maximum = entry.maximumLength { #expect(entry.minimumLength <= maximum) }
            if let paired = entry.pairedCode {
                let back = try #require(paired.entry)
                #expect(back.pairedCode == code, "\(entry.name)")
                #expect(back.kind != entry.kind)
            }
        }
        for reserved: UInt8 in [0x00, 0x0C, 0x11, 0x1B, 0xFF] {
            #expect(L2CAPSignalCode(reserved).entry == nil)
        }
        #expect(L2CAPSignalCode.commandReject.entry?.kind == .response)
        #expect(L2CAPSignalCode.commandReject.entry?.pairedCode == nil)
        #expect(L2CAPSignalCode.flowControlCreditIndication.entry?.kind == .indication)
        #expect(
            L2CAPSignalCode.leCreditBasedConnectionRequest.entry?.pairedCode
                == .leCreditBasedConnectionResponse)
        #expect(L2CAPSignalCode.informationRequest.entry?.isDecodedOnLE == false)
        #expect(L2CAPSignalCode.connectionParameterUpdateRequest.entry?.links == .leU)
        #expect(L2CAPSignalCode.disconnectionRequest.description == "L2CAP_DISCONNECTION_REQ (0x06)")
    }

    @Test("§4 every command round-trips inside a C-frame, with data within its table bounds")
    func roundTripEvery() throws {
        var decodedCodes = Set<L2CAPSignalCode>()
        for (index, command) in everyL2CAPSignalCommand.enumerated() {
            let signal = L2CAPSignal(identifier: UInt8(index + 1), command: command)
            try expectRoundTrip(signal)
            let bytes = signal.encoded
            let dataLength = Int(bytes[2]) | Int(bytes[3]) << 8
            #expect(dataLength == bytes.count - 4)
            #expect(bytes[0] == command.code.rawValue)
            if case .unknown = command { continue }
            decodedCodes.insert(command.code)
            let entry = try #require(command.code.entry)
            #expect(entry.isDecodedOnLE)
            #expect(dataLength >= entry.minimumLength, "\(entry.name)")
            if let maximum = entry.maximumLength { #expect(dataLength <= maximum, "\(entry.name)") }
        }
        let leCodes = L2CAPSignalCode.allDefined.filter { $0.entry?.isDecodedOnLE == true }
        #expect(decodedCodes == Set(leCodes))
    }

    @Test("§4.20 Connection Parameter Update Request 12 01 08 00 06 00 0c 00 00 00 c8 00")
    func connectionParameterUpdateRequest() throws {
        // Interval 7.5–15 ms, no latency, 2 s supervision timeout, field by field from §4.20.
        let signal = try L2CAPSignal(decoding: hex("12 01 08 00 06 00 0c 00 00 00 c8 00"))
        #expect(signal.identifier == 1)
        #expect(signal.code == .connectionParameterUpdateRequest)
        guard case .connectionParameterUpdateRequest(let request) = signal.command else {
            Issue.record("decoded \(signal)")
            return
        }
        #expect(request.intervalMin == 6 && request.intervalMax == 12)
        #expect(request.intervalMinMicroseconds == 7_500 && request.intervalMaxMicroseconds == 15_000)
        #expect(request.peripheralLatency == 0)
        #expect(request.supervisionTimeoutMilliseconds == 2_000)
        #expect(throws: Never.self) { try request.validate() }
        #expect(request.signal(identifier: 1).encoded == hex("12 01 08 00 06 00 0c 00 00 00 c8 00"))
    }

    @Test("§4.21 Connection Parameter Update Response: accepted and rejected")
    func connectionParameterUpdateResponse() throws {
        let accepted = try L2CAPSignal(decoding: hex("13 01 02 00 00 00"))
        #expect(accepted.command == .connectionParameterUpdateResponse(.init(result: .accepted)))
        let rejected = try L2CAPSignal(decoding: hex("13 01 02 00 01 00"))
        #expect(rejected.command == .connectionParameterUpdateResponse(.init(result: .rejected)))
    }

    @Test("§4.22 LE Credit Based Connection Request: SPSM, SCID, MTU, MPS, initial credits")
    func leCreditBasedConnectionRequest() throws {
        // IPSP (SPSM 0x0023) with the IPv6 MTU of 1280, MPS 247, 10 credits, SCID 0x0040.
        let bytes = hex("14 02 0a 00 23 00 40 00 00 05 f7 00 0a 00")
        let signal = try L2CAPSignal(decoding: bytes)
        let expected = L2CAPSignal.LECreditBasedConnectionRequest(
            spsm: 0x0023, sourceCID: 0x0040, mtu: 1280, mps: 247, initialCredits: 10)
        #expect(signal == expected.signal(identifier: 2))
        #expect(expected.refusal == nil)
        #expect(signal.encoded == bytes)
    }

    @Test("§4.23 LE Credit Based Connection Response: success and a refusal")
    func leCreditBasedConnectionResponse() throws {
        let success = try L2CAPSignal(decoding: hex("15 02 0a 00 41 00 00 02 f7 00 05 00 00 00"))
        #expect(
            success.command
                == .leCreditBasedConnectionResponse(
                    .init(destinationCID: 0x41, mtu: 512, mps: 247, initialCredits: 5, result: .success)))
        let refused = try L2CAPSignal(decoding: hex("15 02 0a 00 00 00 00 00 00 00 00 00 02 00"))
        #expect(refused.command == .leCreditBasedConnectionResponse(.refused(.spsmNotSupported)))
    }

    @Test("§4.23 every LE credit based result code has its value; reserved ones are kept")
    func leResultCodes() {
        typealias R = L2CAPSignal.LECreditBasedConnectionResponse.Result
        let all: [R] = [
            .success, .spsmNotSupported, .noResourcesAvailable, .insufficientAuthentication,
            .insufficientAuthorization, .encryptionKeySizeTooShort, .insufficientEncryption,
            .invalidSourceCID,
            .sourceCIDAlreadyAllocated, .unacceptableParameters,
        ]
        #expect(all.map(\.rawValue) == [0, 2, 4, 5, 6, 7, 8, 9, 10, 11])
        for result in all { #expect(R(rawValue: result.rawValue) == result) }
        for raw: UInt16 in [1, 3, 0x0C, 0xFFFF] { #expect(R(rawValue: raw) == .reserved(raw)) }
    }

    @Test("§4.26/§4.28 every enhanced credit based result code has its value")
    func enhancedResultCodes() {
        typealias C = L2CAPSignal.CreditBasedConnectionResponse.Result
        for raw: UInt16 in 0...0x12 {
            let result = C(rawValue: raw)
            #expect(result.rawValue == raw)
            let reserved = raw == 1 || raw == 3 || raw >= 0x10
            #expect((result == .reserved(raw)) == reserved)
        }
        #expect(C(rawValue: 0x000F) == .allPendingAuthorization)
        typealias Reconfigure = L2CAPSignal.CreditBasedReconfigureResponse.Result
        for raw: UInt16 in 0...6 {
            #expect(Reconfigure(rawValue: raw).rawValue == raw)
            #expect((Reconfigure(rawValue: raw) == .reserved(raw)) == (raw >= 5))
        }
    }

    @Test("§4.24 Flow Control Credit Indication")
    func flowControlCredit() throws {
        let signal = try L2CAPSignal(decoding: hex("16 03 04 00 40 00 01 00"))
        #expect(signal.command == .flowControlCreditIndication(.init(cid: 0x40, credits: 1)))
    }

    @Test("§4.6/§4.7 Disconnection Request and Response")
    func disconnection() throws {
        let request = try L2CAPSignal(decoding: hex("06 04 04 00 40 00 41 00"))
        #expect(request.command == .disconnectionRequest(.init(destinationCID: 0x40, sourceCID: 0x41)))
        let response = try L2CAPSignal(decoding: hex("07 04 04 00 40 00 41 00"))
        #expect(response.command == .disconnectionResponse(.init(destinationCID: 0x40, sourceCID: 0x41)))
    }

    @Test("§4.1 Command Reject: not understood, signalling MTU exceeded, invalid CID")
    func commandReject() throws {
        #expect(
            try L2CAPSignal(decoding: hex("01 05 02 00 00 00")).command
                == .commandReject(.init(reason: .commandNotUnderstood)))
        #expect(
            try L2CAPSignal(decoding: hex("01 05 04 00 01 00 17 00")).command
                == .commandReject(.init(reason: .signalingMTUExceeded(actualMTU: 23))))
        #expect(
            try L2CAPSignal(decoding: hex("01 05 06 00 02 00 40 00 41 00")).command
                == .commandReject(.init(reason: .invalidCIDInRequest(localCID: 0x40, remoteCID: 0x41))))
        let reserved = try L2CAPSignal(decoding: hex("01 05 03 00 09 00 aa"))
        #expect(reserved.command == .commandReject(.init(reason: .reserved(reason: 9, data: [0xAA]))))
        #expect(reserved.encoded == hex("01 05 03 00 09 00 aa"))
    }

    @Test("§4.25/§4.26 Credit Based Connection Request and Response for EATT (SPSM 0x0027)")
    func enhancedConnection() throws {
        let request = try L2CAPSignal(decoding: hex("17 06 0c 00 27 00 40 00 40 00 05 00 40 00 41 00"))
        guard case .creditBasedConnectionRequest(let connect) = request.command else {
            Issue.record("decoded \(request)")
            return
        }
        #expect(
            connect.spsm == 0x0027 && connect.mtu == 64 && connect.mps == 64 && connect.initialCredits == 5)
        #expect(Array(connect.sourceCIDs) == [0x40, 0x41])
        #expect(connect.refusal == nil)

        let response = try L2CAPSignal(decoding: hex("18 06 0c 00 40 00 40 00 05 00 00 00 45 00 46 00"))
        #expect(
            response.command
                == .creditBasedConnectionResponse(
                    .init(
                        mtu: 64, mps: 64, initialCredits: 5, result: .allSuccessful,
                        destinationCIDs: [0x45, 0x46])))
        // A refusal of a request the peer could not parse carries no Destination CIDs.
        let empty = try L2CAPSignal(decoding: hex("18 06 08 00 00 00 00 00 00 00 0c 00"))
        guard case .creditBasedConnectionResponse(let refusal) = empty.command else {
            Issue.record("decoded \(empty)")
            return
        }
        #expect(refusal.result == .allRefusedInvalidParameters)
        #expect(refusal.destinationCIDs.isEmpty)
    }

    @Test("§4.27/§4.28 Credit Based Reconfigure Request and Response")
    func reconfigure() throws {
        let request = try L2CAPSignal(decoding: hex("19 07 06 00 00 02 40 00 45 00"))
        #expect(
            request.command
                == .creditBasedReconfigureRequest(.init(mtu: 512, mps: 64, destinationCIDs: [0x45])))
        let response = try L2CAPSignal(decoding: hex("1a 07 02 00 00 00"))
        #expect(response.command == .creditBasedReconfigureResponse(.init(result: .success)))
    }

    @Test("§4 BR/EDR-only and reserved codes arrive as unknown with their data, any identifier")
    func unknownCodes() throws {
        let information = try L2CAPSignal(decoding: hex("0a 01 02 00 02 00"))
        #expect(information.command == .unknown(code: 0x0A, data: [0x02, 0x00]))
        #expect(information.code.name == "L2CAP_INFORMATION_REQ")
        let echo = try L2CAPSignal(decoding: hex("08 00 00 00"))
        #expect(echo.command == .unknown(code: 0x08, data: []))
        let reserved = try L2CAPSignal(decoding: hex("1b 09 01 00 ff"))
        #expect(reserved.command == .unknown(code: 0x1B, data: [0xFF]))
        #expect(reserved.encoded == hex("1b 09 01 00 ff"))
    }

    @Test("§4 a response with identifier 0 still decodes (the host discards it)")
    func responseIdentifierZero() throws {
        let signal = try L2CAPSignal(decoding: hex("13 00 02 00 00 00"))
        #expect(signal.identifier == 0)
    }

    @Test("CID lists hold up to five CIDs inline and compare by content")
    func cidList() {
        var list = L2CAPSignal.CIDList()
        #expect(list.isEmpty)
        for cid: UInt16 in 0x40...0x44 {
            let appended = list.append(cid)
            #expect(appended)
        }
        let overflowed = list.append(0x45)
        #expect(!overflowed)
        #expect(Array(list) == [0x40, 0x41, 0x42, 0x43, 0x44])
        #expect(L2CAPSignal.CIDList([1, 2, 3, 4, 5, 6]) == nil)
        #expect(L2CAPSignal.CIDList([1, 2]) == [1, 2])
        #expect(L2CAPSignal.CIDList([1, 2]) != [1, 2, 0])
        #expect(Set<L2CAPSignal.CIDList>([[1], [1], [2]]).count == 2)
    }

    @Test("Rendering names the command, its fields and result")
    func rendering() {
        let text = L2CAPSignal.LECreditBasedConnectionResponse.refused(.insufficientEncryption)
            .signal(identifier: 3).description
        #expect(text.contains("leCreditBasedConnectionResponse"))
        #expect(text.contains("insufficientEncryption"))
        #expect(text.contains("identifier: 3"))
        let json = L2CAPSignal.CreditBasedReconfigureRequest(mtu: 100, mps: 64, destinationCIDs: [0x40])
            .signal(identifier: 1).json
        #expect(json.contains("\"0x0040\""))
    }
}
