import BLEWire
import Testing

/// Decodes `bytes`, compares with `expected`, and re-encodes to the same octets.
func expectATTVector(
    _ bytes: [UInt8], _ expected: ATTPDU, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let decoded = try ATTPDU(decoding: bytes)
    #expect(decoded == expected, sourceLocation: sourceLocation)
    #expect(expected.encoded == bytes, sourceLocation: sourceLocation)
}

/// Byte-exact PDUs in the shape btmon prints for the GATT discovery of a typical peripheral
/// (GAP service at 0x0001–0x0007, GATT at 0x0008–0x000B, a vendor service with 128-bit UUIDs).
/// The octets were written from the PDU definitions of Core 5.4 Vol 3 Part F §3.4 and checked
/// against the field breakdown btmon shows for the same exchanges.
@Suite("ATT PDU vectors (Core 5.4 Vol 3 Part F §3.4)")
struct ATTVectorTests {
    @Test("§3.4.2: Exchange MTU Request 02 f7 00 (Client Rx MTU 247) and Response")
    func exchangeMTU() throws {
        try expectATTVector(hex("02 f7 00"), .exchangeMTURequest(.init(clientRxMTU: 247)))
        try expectATTVector(hex("03 17 00"), .exchangeMTUResponse(.init(serverRxMTU: 23)))
    }

    @Test("§3.4.1.1: Error Response 01 10 01 00 0a — Read By Group Type, 0x0001, Attribute Not Found")
    func errorResponse() throws {
        let expected = ATT.ErrorResponse(
            requestOpcode: .readByGroupTypeRequest, handle: 1, errorCode: .attributeNotFound)
        try expectATTVector(hex("01 10 01 00 0a"), .errorResponse(expected))
        #expect(
            Rendering.text(ATTPDU.errorResponse(expected))
                == "errorResponse { requestOpcode: ATT_READ_BY_GROUP_TYPE_REQ (0x10), handle: 1, "
                + "errorCode: Attribute Not Found (0x0A) }")
    }

    @Test("§3.4.4.9–10: primary service discovery — Read By Group Type Request and Response")
    func readByGroupType() throws {
        try expectATTVector(
            hex("10 01 00 ff ff 00 28"),
            .readByGroupTypeRequest(
                .init(startingHandle: 1, endingHandle: 0xFFFF, attributeGroupType: 0x2800)))

        let bytes = hex("11 06 01 00 07 00 00 18 08 00 0b 00 01 18 0c 00 0f 00 0a 18")
        guard case .readByGroupTypeResponse(let response) = try ATTPDU(decoding: bytes) else {
            Issue.record("not a Read By Group Type Response")
            return
        }
        #expect(response.length == 6)
        #expect(response.entries.count == 3)
        let services = response.entries.map { ($0.handle, $0.endGroupHandle, Array($0.value)) }
        #expect(services.map(\.0) == [0x0001, 0x0008, 0x000C])
        #expect(services.map(\.1) == [0x0007, 0x000B, 0x000F])
        #expect(services.map(\.2) == [[0x00, 0x18], [0x01, 0x18], [0x0A, 0x18]])
        let rebuilt = try #require(
            ATT.ReadByGroupTypeResponse(entries: [
                .init(handle: 1, endGroupHandle: 7, value: [0x00, 0x18]),
                .init(handle: 8, endGroupHandle: 11, value: [0x01, 0x18]),
                .init(handle: 12, endGroupHandle: 15, value: [0x0A, 0x18]),
            ]))
        try expectATTVector(bytes, .readByGroupTypeResponse(rebuilt))
    }

    @Test("§3.4.4.1–2: characteristic discovery — 23-octet Read By Type Response with 3 entries")
    func readByType() throws {
        try expectATTVector(
            hex("08 01 00 07 00 03 28"),
            .readByTypeRequest(.init(startingHandle: 1, endingHandle: 7, attributeType: 0x2803)))

        let bytes = hex("09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a 06 00 02 07 00 04 2a")
        #expect(bytes.count == 23)
        guard case .readByTypeResponse(let response) = try ATTPDU(decoding: bytes) else {
            Issue.record("not a Read By Type Response")
            return
        }
        #expect(response.length == 7)
        #expect(response.entries.map(\.handle) == [2, 4, 6])
        #expect(response.entries[1].value == hex("02 05 00 01 2a")[...])
        #expect(response.entries.last?.value == hex("02 07 00 04 2a")[...])
        let rebuilt = try #require(
            ATT.ReadByTypeResponse(entries: [
                .init(handle: 2, value: hex("02 03 00 00 2a")[...]),
                .init(handle: 4, value: hex("02 05 00 01 2a")[...]),
                .init(handle: 6, value: hex("02 07 00 04 2a")[...]),
            ]))
        try expectATTVector(bytes, .readByTypeResponse(rebuilt))
    }

    @Test("§3.4.4.1: a 128-bit attribute type goes as 16 octets, little-endian")
    func readByType128() throws {
        let uuid = try #require(BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E"))
        try expectATTVector(
            hex("08 0c 00 ff ff 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 02 00 40 6e"),
            .readByTypeRequest(.init(startingHandle: 0x000C, endingHandle: 0xFFFF, attributeType: uuid)))
    }

    @Test("§3.4.3.1–2: descriptor discovery — Find Information Response, formats 1 and 2")
    func findInformation() throws {
        try expectATTVector(
            hex("04 08 00 09 00"), .findInformationRequest(.init(startingHandle: 8, endingHandle: 9)))

        let short = try #require(
            ATT.FindInformationResponse(entries: [
                .init(handle: 8, uuid: 0x2902), .init(handle: 9, uuid: 0x2901),
            ]))
        #expect(short.format == .uuid16)
        try expectATTVector(hex("05 01 08 00 02 29 09 00 01 29"), .findInformationResponse(short))

        let uuid = try #require(BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E"))
        let long = try #require(ATT.FindInformationResponse(entries: [.init(handle: 0x000E, uuid: uuid)]))
        #expect(long.format == .uuid128)
        let bytes = hex("05 02 0e 00 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 02 00 40 6e")
        try expectATTVector(bytes, .findInformationResponse(long))
        guard case .findInformationResponse(let decoded) = try ATTPDU(decoding: bytes) else {
            Issue.record("not a Find Information Response")
            return
        }
        #expect(decoded.entries.first?.uuid == uuid)
        #expect(decoded.entries.first?.handle == 0x000E)
    }

    @Test("§3.4.3.3–4: discovery by service UUID — Find By Type Value Request and Response")
    func findByTypeValue() throws {
        try expectATTVector(
            hex("06 01 00 ff ff 00 28 0d 18"),
            .findByTypeValueRequest(
                .init(startingHandle: 1, endingHandle: 0xFFFF, attributeType: 0x2800, value: [0x0D, 0x18])))
        let request = ATT.FindByTypeValueRequest(
            startingHandle: 1, endingHandle: 0xFFFF, attributeType: 0x2800, value: [0x0D, 0x18])
        #expect(
            Rendering.text(request)
                == "{ startingHandle: 1, endingHandle: 65535, attributeType: 2800, value: 0d18 }")
        let response = try #require(
            ATT.FindByTypeValueResponse(entries: [.init(foundAttributeHandle: 0x000C, groupEndHandle: 0x000F)]
            ))
        try expectATTVector(hex("07 0c 00 0f 00"), .findByTypeValueResponse(response))
    }

    @Test("§3.4.4.3–8: Read, Read Blob and Read Multiple Requests and Responses")
    func reads() throws {
        try expectATTVector(hex("0a 03 00"), .readRequest(.init(handle: 3)))
        try expectATTVector(hex("0b 48 65 61 72 74"), .readResponse(.init(value: Array("Heart".utf8)[...])))
        try expectATTVector(hex("0c 03 00 16 00"), .readBlobRequest(.init(handle: 3, valueOffset: 22)))
        try expectATTVector(hex("0d 21 22"), .readBlobResponse(.init(partValue: [0x21, 0x22])))
        let multiple = try #require(ATT.ReadMultipleRequest(handles: [3, 5]))
        try expectATTVector(hex("0e 03 00 05 00"), .readMultipleRequest(multiple))
        #expect(Array(multiple.setOfHandles) == [3, 5])
        try expectATTVector(hex("0f 01 02 03"), .readMultipleResponse(.init(setOfValues: [1, 2, 3])))
    }

    @Test("§3.4.4.11–12: Read Multiple Variable Length Request and Response, truncated last tuple")
    func readMultipleVariable() throws {
        let request = try #require(ATT.ReadMultipleVariableRequest(handles: [3, 5, 7]))
        try expectATTVector(hex("20 03 00 05 00 07 00"), .readMultipleVariableRequest(request))

        let whole = try #require(ATT.ReadMultipleVariableResponse(values: [[0xAA, 0xBB], [0xCC]]))
        try expectATTVector(hex("21 02 00 aa bb 01 00 cc"), .readMultipleVariableResponse(whole))
        #expect(!whole.isTruncated)
        #expect(whole.tuples.map(\.valueLength) == [2, 1])

        // Cut to ATT_MTU − 1 = 8 octets: the second value (5 octets) keeps 2.
        let cut = try #require(
            ATT.ReadMultipleVariableResponse(
                values: [[0xAA, 0xBB], [0xCC, 0xDD, 0xEE, 0xFF, 0x00]], maximumListLength: 8))
        try expectATTVector(hex("21 02 00 aa bb 05 00 cc dd"), .readMultipleVariableResponse(cut))
        #expect(cut.isTruncated)
        let last = try #require(Array(cut.tuples).last)
        #expect(last.valueLength == 5 && last.value == [0xCC, 0xDD] && last.isTruncated)

        // Cut inside the second Value Length: one tuple, and a lone octet that is not an entry.
        let split = try ATT.ReadMultipleVariableResponse(decoding: hex("02 00 aa bb 05"))
        #expect(split.isTruncated)
        #expect(split.tuples.count == 1)
        #expect(split.encoded == hex("02 00 aa bb 05"))
    }

    @Test("§3.4.5: Write Request, Response, Command and Signed Write Command")
    func writes() throws {
        // Enabling notifications: 0x0001 written to a Client Characteristic Configuration.
        try expectATTVector(hex("12 0f 00 01 00"), .writeRequest(.init(handle: 0x000F, value: [0x01, 0x00])))
        try expectATTVector(hex("13"), .writeResponse(.init()))
        try expectATTVector(hex("52 10 00 01 02"), .writeCommand(.init(handle: 0x0010, value: [1, 2])))
        let signature = ATT.AuthenticationSignature(signCounter: 1, mac: 0x8877_6655_4433_2211)
        try expectATTVector(
            hex("d2 05 00 aa bb 01 00 00 00 11 22 33 44 55 66 77 88"),
            .signedWriteCommand(.init(handle: 5, value: [0xAA, 0xBB], signature: signature)))
        #expect(Rendering.text(signature) == "{ signCounter: 1, mac: 1122334455667788 }")
    }

    @Test("§3.4.6: queued writes — Prepare Write Request/Response, Execute Write Request/Response")
    func queuedWrites() throws {
        let prepare = ATT.PrepareWriteRequest(handle: 3, valueOffset: 0, partValue: [1, 2, 3])
        try expectATTVector(hex("16 03 00 00 00 01 02 03"), .prepareWriteRequest(prepare))
        try expectATTVector(hex("17 03 00 00 00 01 02 03"), .prepareWriteResponse(.init(echoing: prepare)))
        try expectATTVector(hex("18 01"), .executeWriteRequest(.init(flags: .write)))
        try expectATTVector(hex("18 00"), .executeWriteRequest(.init(flags: .cancel)))
        try expectATTVector(hex("19"), .executeWriteResponse(.init()))
    }

    @Test("§3.4.7: Handle Value Notification, Indication, Confirmation, Multiple Handle Value Notification")
    func serverInitiated() throws {
        // Heart Rate Measurement: flags 0x00, 72 bpm.
        try expectATTVector(
            hex("1b 0e 00 00 48"), .handleValueNotification(.init(handle: 0x000E, value: [0x00, 0x48])))
        // Service Changed: the whole handle range.
        try expectATTVector(
            hex("1d 0a 00 01 00 ff ff"),
            .handleValueIndication(.init(handle: 0x000A, value: hex("01 00 ff ff")[...])))
        try expectATTVector(hex("1e"), .handleValueConfirmation(.init()))
        let multiple = try #require(
            ATT.MultipleHandleValueNotification(entries: [
                .init(handle: 3, value: [0xAA, 0xBB]), .init(handle: 7, value: [0xCC]),
            ]))
        try expectATTVector(
            hex("23 03 00 02 00 aa bb 07 00 01 00 cc"), .multipleHandleValueNotification(multiple))
        #expect(multiple.tuples.map(\.handle) == [3, 7])
        #expect(multiple.tuples.map { Array($0.value) } == [[0xAA, 0xBB], [0xCC]])
    }
}
