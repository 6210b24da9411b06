import BLEWire
import PropertyBased
import Testing

/// One PDU of every kind, built from `handle`, `value` and `uuid` (`value` is ≤ 80 octets).
func sampleATTPDUs(handle: UInt16, value: [UInt8], uuid: BluetoothUUID) -> [ATTPDU] {
    let slice = value[...]
    let two: ArraySlice<UInt8> = [UInt8(truncatingIfNeeded: handle), 0x18]
    var pdus: [ATTPDU] = [
        .errorResponse(
            .init(requestOpcode: .readRequest, handle: handle, errorCode: ATTErrorCode(value.first ?? 1))),
        .exchangeMTURequest(.init(clientRxMTU: handle)),
        .exchangeMTUResponse(.init(serverRxMTU: handle)),
        .findInformationRequest(.init(startingHandle: handle, endingHandle: 0xFFFF)),
        .findByTypeValueRequest(
            .init(startingHandle: 1, endingHandle: handle, attributeType: 0x2800, value: slice)),
        .readByTypeRequest(.init(startingHandle: 1, endingHandle: handle, attributeType: uuid)),
        .readRequest(.init(handle: handle)),
        .readResponse(.init(value: slice)),
        .readBlobRequest(.init(handle: handle, valueOffset: 22)),
        .readBlobResponse(.init(partValue: slice)),
        .readMultipleResponse(.init(setOfValues: slice)),
        .readByGroupTypeRequest(.init(startingHandle: 1, endingHandle: handle, attributeGroupType: uuid)),
        .writeRequest(.init(handle: handle, value: slice)),
        .writeResponse(.init()),
        .writeCommand(.init(handle: handle, value: slice)),
        .signedWriteCommand(
            .init(
                handle: handle, value: slice,
                signature: .init(signCounter: UInt32(handle), mac: ~UInt64(handle)))),
        .prepareWriteRequest(.init(handle: handle, valueOffset: 3, partValue: slice)),
        .prepareWriteResponse(.init(handle: handle, valueOffset: 3, partValue: slice)),
        .executeWriteRequest(.init(flags: handle & 1 == 0 ? .cancel : .write)),
        .executeWriteResponse(.init()),
        .handleValueNotification(.init(handle: handle, value: slice)),
        .handleValueIndication(.init(handle: handle, value: slice)),
        .handleValueConfirmation(.init()),
    ]
    if let p = ATT.FindInformationResponse(entries: [
        .init(handle: handle, uuid: uuid), .init(handle: 2, uuid: 0x2902),
    ]) {
        pdus.append(.findInformationResponse(p))
    }
    if let p = ATT.FindByTypeValueResponse(entries: [
        .init(foundAttributeHandle: handle, groupEndHandle: 0xFFFF)
    ]) {
        pdus.append(.findByTypeValueResponse(p))
    }
    if let p = ATT.ReadByTypeResponse(entries: [
        .init(handle: handle, value: slice), .init(handle: 9, value: slice),
    ]) {
        pdus.append(.readByTypeResponse(p))
    }
    if let p = ATT.ReadByGroupTypeResponse(entries: [.init(handle: 1, endGroupHandle: handle, value: two)]) {
        pdus.append(.readByGroupTypeResponse(p))
    }
    if let p = ATT.ReadMultipleRequest(handles: [handle, 1, 2]) { pdus.append(.readMultipleRequest(p)) }
    if let p = ATT.ReadMultipleVariableRequest(handles: [handle, 3]) {
        pdus.append(.readMultipleVariableRequest(p))
    }
    if let p = ATT.ReadMultipleVariableResponse(values: [slice, two], maximumListLength: 22) {
        pdus.append(.readMultipleVariableResponse(p))
    }
    if let p = ATT.MultipleHandleValueNotification(entries: [
        .init(handle: handle, value: slice), .init(handle: 1, value: two),
    ]) {
        pdus.append(.multipleHandleValueNotification(p))
    }
    return pdus
}

/// Round trip of a payload struct alone and inside its PDU.
func expectATTParametersRoundTrip(_ pdu: ATTPDU, sourceLocation: SourceLocation = #_sourceLocation) throws {
    func check<P: ATTPDUParameters>(_ p: P) throws {
        try expectRoundTrip(p, sourceLocation: sourceLocation)
        #expect(p.pdu == pdu, sourceLocation: sourceLocation)
        #expect(P.opcode == pdu.opcode, sourceLocation: sourceLocation)
    }
    switch pdu {
    case .errorResponse(let p): try check(p)
    case .exchangeMTURequest(let p): try check(p)
    case .exchangeMTUResponse(let p): try check(p)
    case .findInformationRequest(let p): try check(p)
    case .findInformationResponse(let p): try check(p)
    case .findByTypeValueRequest(let p): try check(p)
    case .findByTypeValueResponse(let p): try check(p)
    case .readByTypeRequest(let p): try check(p)
    case .readByTypeResponse(let p): try check(p)
    case .readRequest(let p): try check(p)
    case .readResponse(let p): try check(p)
    case .readBlobRequest(let p): try check(p)
    case .readBlobResponse(let p): try check(p)
    case .readMultipleRequest(let p): try check(p)
    case .readMultipleResponse(let p): try check(p)
    case .readByGroupTypeRequest(let p): try check(p)
    case .readByGroupTypeResponse(let p): try check(p)
    case .readMultipleVariableRequest(let p): try check(p)
    case .readMultipleVariableResponse(let p): try check(p)
    case .writeRequest(let p): try check(p)
    case .writeResponse(let p): try check(p)
    case .writeCommand(let p): try check(p)
    case .signedWriteCommand(let p): try check(p)
    case .prepareWriteRequest(let p): try check(p)
    case .prepareWriteResponse(let p): try check(p)
    case .executeWriteRequest(let p): try check(p)
    case .executeWriteResponse(let p): try check(p)
    case .handleValueNotification(let p): try check(p)
    case .handleValueIndication(let p): try check(p)
    case .handleValueConfirmation(let p): try check(p)
    case .multipleHandleValueNotification(let p): try check(p)
    case .unknown: break
    }
}

@Suite("ATT PDU round trips (Core 5.4 Vol 3 Part F §3.4)")
struct ATTRoundTripTests {
    @Test("§3.4: every PDU of the opcode table round-trips, alone and as ATTPDU")
    func everyPDU() throws {
        let uuid = try #require(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        let pdus = sampleATTPDUs(handle: 0x0203, value: [1, 2, 3, 4], uuid: uuid)
        #expect(Set(pdus.map(\.opcode)) == Set(ATTOpcode.table.map(\.opcode)))
        for pdu in pdus {
            try expectRoundTrip(pdu)
            try expectATTParametersRoundTrip(pdu)
            #expect(pdu.encoded.first == pdu.opcode.rawValue)
            #expect(pdu.kind == pdu.opcode.info?.kind)
        }
        try expectRoundTrip(ATTPDU.unknown(opcode: ATTOpcode(0x7A), parameters: [9, 8, 7]))
    }

    @Test("§3.4: random handles, values and UUIDs round-trip through every PDU")
    func randomPDUs() async {
        await propertyCheck(count: 300, input: Gen.uint16(), randomBytes, Gen.uint64(), Gen.bool()) {
            handle, value, bits, short in
            let uuid =
                short
                ? BluetoothUUID(UInt16(truncatingIfNeeded: bits)) : BluetoothUUID(high: bits, low: ~bits)
            for pdu in sampleATTPDUs(handle: handle, value: value, uuid: uuid) {
                #expect(throws: Never.self) { try expectRoundTrip(pdu) }
                #expect(throws: Never.self) { try expectATTParametersRoundTrip(pdu) }
            }
        }
    }

    @Test("§3.4.3.2: a 16-bit UUID may go in format 2; mixed widths choose format 2")
    func findInformationFormats() throws {
        let long = try #require(
            ATT.FindInformationResponse(format: .uuid128, entries: [.init(handle: 1, uuid: 0x2800)]))
        #expect(long.encoded.count == 1 + 18)
        #expect(long.entries.first?.uuid == BluetoothUUID(0x2800))
        let custom = try #require(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        let mixed = try #require(
            ATT.FindInformationResponse(entries: [
                .init(handle: 1, uuid: 0x2800), .init(handle: 2, uuid: custom),
            ]))
        #expect(mixed.format == .uuid128)
        #expect(mixed.entries.map(\.uuid) == [BluetoothUUID(0x2800), custom])
        #expect(
            ATT.FindInformationResponse(format: .uuid16, entries: [.init(handle: 2, uuid: custom)]) == nil)
        #expect(ATT.FindInformationResponse(entries: []) == nil)
    }

    @Test("§3.4.4.2, §3.4.4.10: list builders refuse empty lists, unequal values and over-long entries")
    func listBuilders() {
        #expect(ATT.ReadByTypeResponse(entries: []) == nil)
        #expect(
            ATT.ReadByTypeResponse(entries: [.init(handle: 1, value: [1]), .init(handle: 2, value: [1, 2])])
                == nil)
        #expect(
            ATT.ReadByTypeResponse(entries: [.init(handle: 1, value: ArraySlice(repeating: 0, count: 254))])
                == nil)
        #expect(
            ATT.ReadByTypeResponse(entries: [.init(handle: 1, value: ArraySlice(repeating: 0, count: 253))])
                != nil)
        #expect(ATT.ReadByGroupTypeResponse(entries: []) == nil)
        #expect(
            ATT.ReadByGroupTypeResponse(entries: [
                .init(handle: 1, endGroupHandle: 2, value: [1]),
                .init(handle: 3, endGroupHandle: 4, value: []),
            ]) == nil)
        #expect(ATT.FindByTypeValueResponse(entries: []) == nil)
        #expect(ATT.ReadMultipleRequest(handles: [1]) == nil)
        #expect(ATT.ReadMultipleVariableRequest(handles: []) == nil)
        #expect(ATT.ReadMultipleVariableResponse(values: [[1]]) == nil)
        #expect(ATT.ReadMultipleVariableResponse(values: [[1], [2]], maximumListLength: 3) == nil)
        #expect(ATT.MultipleHandleValueNotification(entries: [.init(handle: 1, value: [1])]) == nil)
    }

    @Test("§3.2.1: a 16-bit type sent in 128-bit form decodes to the same UUID and re-encodes in 16 bits")
    func baseUUIDNormalized() throws {
        let bytes = hex("08 01 00 ff ff fb 34 9b 5f 80 00 00 80 00 10 00 00 03 28 00 00")
        guard case .readByTypeRequest(let request) = try ATTPDU(decoding: bytes) else {
            Issue.record("not a Read By Type Request")
            return
        }
        #expect(request.attributeType == BluetoothUUID(0x2803))
        #expect(request.pdu.encoded == hex("08 01 00 ff ff 03 28"))
    }
}
