import BLEWire
import Testing

@testable import BLEHost

@Suite("GATT client: characteristic value and descriptor reads")
struct ReadTests {
    @Test("Vol 3 Part G §4.8.1 Read Characteristic Value sends a Read Request and returns the Read Response's value")
    func read() async throws {
        let bearer = ScriptedBearer([.exchange(attPDU("0a 2a00"), attPDU("0b 64"))])
        #expect(try await GATTClient(bearer: bearer).readValue(handle: 0x002A) == [0x64])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.1 an Error Response to the Read is .att with its code, handle and request")
    func readError() async {
        let bearer = ScriptedBearer([.error(PDUs.read(0x002A), .readNotPermitted, handle: 0x002A)])
        let error = await gattError { try await GATTClient(bearer: bearer).readValue(handle: 0x002A) }
        #expect(error == .att(.readNotPermitted, handle: 0x002A, request: .readRequest))
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.12.1 Read Characteristic Descriptors is a Read Request")
    func readDescriptor() async throws {
        let bearer = ScriptedBearer([.exchange(PDUs.read(0x0013), PDUs.readResponse([0x01, 0x00]))])
        #expect(try await GATTClient(bearer: bearer).readDescriptor(handle: 0x0013) == [0x01, 0x00])
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §4.8.2 Read Using Characteristic UUID continues after the last handle until Attribute Not Found")
    func readByUUID() async throws {
        let full = ramp(19)  // ATT_MTU − 4 at MTU 23: may be cut.
        let bearer = ScriptedBearer([
            .exchange(PDUs.readByType(0x0001, 0x00FF, 0x2A19), PDUs.values([(0x0012, [0x50]), (0x0020, [0x60])])),
            .exchange(PDUs.readByType(0x0021, 0x00FF, 0x2A19), PDUs.values([(0x0030, full)])),
            .error(PDUs.readByType(0x0031, 0x00FF, 0x2A19), .attributeNotFound, handle: 0x0031),
        ])
        let values = try await GATTClient(bearer: bearer).readValues(ofCharacteristic: 0x2A19, in: 0x0001...0x00FF)
        #expect(
            values == [
                GATTHandleValue(handle: 0x0012, value: [0x50]), GATTHandleValue(handle: 0x0020, value: [0x60]),
                GATTHandleValue(handle: 0x0030, value: full, isTruncated: true),
            ])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.2 no characteristic of the UUID is an empty result; other errors are thrown")
    func readByUUIDErrors() async throws {
        let none = ScriptedBearer([.error(PDUs.readByType(0x0001, 0xFFFF, 0x2A19), .attributeNotFound, handle: 0x0001)])
        #expect(try await GATTClient(bearer: none).readValues(ofCharacteristic: 0x2A19, in: 0x0001...0xFFFF).isEmpty)
        await none.finish()

        let locked = ScriptedBearer([
            .error(PDUs.readByType(0x0001, 0xFFFF, 0x2A19), .insufficientEncryption, handle: 0x0012)
        ])
        let error = await gattError {
            try await GATTClient(bearer: locked).readValues(ofCharacteristic: 0x2A19, in: 0x0001...0xFFFF)
        }
        #expect(error == .att(.insufficientEncryption, handle: 0x0012, request: .readByTypeRequest))
        await locked.finish()
    }

    @Test("Vol 3 Part G §4.8.2, §7.3: a characteristic held once (the Database Hash) is read with one request")
    func readFirstValue() async throws {
        let hash = ramp(16)
        let bearer = ScriptedBearer([.exchange(PDUs.readByType(0x0001, 0xFFFF, 0x2B2A), PDUs.values([(0x000D, hash)]))])
        #expect(try await GATTClient(bearer: bearer).readFirstValue(ofCharacteristic: 0x2B2A) == hash)
        await bearer.finish()
        let none = ScriptedBearer([.error(PDUs.readByType(0x0001, 0xFFFF, 0x2B2A), .attributeNotFound, handle: 0x0001)])
        #expect(try await GATTClient(bearer: none).readFirstValue(ofCharacteristic: 0x2B2A) == nil)
        await none.finish()
    }

    @Test("Vol 3 Part G §4.8.3 Read Long Characteristic Values reads with Read Blob until a short response")
    func readLong() async throws {
        let value = ramp(50)
        let bearer = ScriptedBearer([
            .exchange(PDUs.read(0x0030), PDUs.readResponse(Array(value[0..<22]))),
            .exchange(PDUs.blob(0x0030, 22), PDUs.blobResponse(Array(value[22..<44]))),
            .exchange(PDUs.blob(0x0030, 44), PDUs.blobResponse(Array(value[44...]))),
        ])
        #expect(try await GATTClient(bearer: bearer).readLongValue(handle: 0x0030) == value)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.3 a value of exactly a multiple of ATT_MTU − 1 ends with an empty Read Blob Response")
    func readLongExactMultipleEmpty() async throws {
        let value = ramp(44)
        let bearer = ScriptedBearer([
            .exchange(PDUs.read(0x0030), PDUs.readResponse(Array(value[0..<22]))),
            .exchange(PDUs.blob(0x0030, 22), PDUs.blobResponse(Array(value[22..<44]))),
            .exchange(PDUs.blob(0x0030, 44), PDUs.blobResponse([])),
        ])
        #expect(try await GATTClient(bearer: bearer).readLongValue(handle: 0x0030) == value)
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §4.8.3 Invalid Offset or Attribute Not Long at the value's end completes the read",
        arguments: [
            ATTErrorCode.invalidOffset, .attributeNotLong,
        ])
    func readLongEndsOnError(code: ATTErrorCode) async throws {
        let value = ramp(22)
        let bearer = ScriptedBearer([
            .exchange(PDUs.read(0x0030), PDUs.readResponse(value)),
            .error(PDUs.blob(0x0030, 22), code, handle: 0x0030),
        ])
        #expect(try await GATTClient(bearer: bearer).readLongValue(handle: 0x0030) == value)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.3 another Error Response to a Read Blob fails the read")
    func readLongBlobError() async {
        let bearer = ScriptedBearer([
            .exchange(PDUs.read(0x0030), PDUs.readResponse(ramp(22))),
            .error(PDUs.blob(0x0030, 22), .insufficientAuthorization, handle: 0x0030),
        ])
        let error = await gattError { try await GATTClient(bearer: bearer).readLongValue(handle: 0x0030) }
        #expect(error == .att(.insufficientAuthorization, handle: 0x0030, request: .readBlobRequest))
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.3 Read Long stops at 512 octets, the longest attribute value")
    func readLongStopsAt512() async throws {
        // MTU 257: two full parts of 256 make 512 — no third request.
        let value = ramp(512)
        let bearer = ScriptedBearer(
            mtu: 257,
            [
                .exchange(PDUs.read(0x0030), PDUs.readResponse(Array(value[0..<256]))),
                .exchange(PDUs.blob(0x0030, 256), PDUs.blobResponse(Array(value[256...]))),
            ])
        #expect(try await GATTClient(bearer: bearer).readLongValue(handle: 0x0030) == value)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.3 a value past 512 octets, or a part longer than ATT_MTU − 1, is invalid")
    func readLongOverlong() async {
        let tooLong = ScriptedBearer(
            mtu: 247,
            [
                .exchange(PDUs.read(0x0030), PDUs.readResponse(ramp(246))),
                .exchange(PDUs.blob(0x0030, 246), PDUs.blobResponse(ramp(246))),
                .exchange(PDUs.blob(0x0030, 492), PDUs.blobResponse(ramp(246))),
            ])
        #expect(
            await gattError { try await GATTClient(bearer: tooLong).readLongValue(handle: 0x0030) }?.isInvalidResponse
                == true)
        await tooLong.finish()

        let fatPart = ScriptedBearer([
            .exchange(PDUs.read(0x0030), PDUs.readResponse(ramp(22))),
            .exchange(PDUs.blob(0x0030, 22), PDUs.blobResponse(ramp(30))),
        ])
        #expect(
            await gattError { try await GATTClient(bearer: fatPart).readLongValue(handle: 0x0030) }?.isInvalidResponse
                == true)
        await fatPart.finish()

        let fatRead = ScriptedBearer([.exchange(PDUs.read(0x0030), PDUs.readResponse(ramp(30)))])
        #expect(
            await gattError { try await GATTClient(bearer: fatRead).readLongValue(handle: 0x0030) }?.isInvalidResponse
                == true)
        await fatRead.finish()
    }

    @Test("Vol 3 Part G §4.12.2 Read Long Characteristic Descriptors is Read then Read Blob")
    func readLongDescriptor() async throws {
        let bearer = ScriptedBearer([
            .exchange(PDUs.read(0x0014), PDUs.readResponse(ramp(22))),
            .exchange(PDUs.blob(0x0014, 22), PDUs.blobResponse([0xEE])),
        ])
        #expect(try await GATTClient(bearer: bearer).readLongDescriptor(handle: 0x0014) == ramp(22) + [0xEE])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.4 Read Multiple Characteristic Values returns the concatenated values")
    func readMultiple() async throws {
        let bearer = ScriptedBearer([.exchange(attPDU("0e 0300 0500 0700"), attPDU("0f 01 0203 04"))])
        let values = try await GATTClient(bearer: bearer).readMultipleValues(handles: [0x0003, 0x0005, 0x0007])
        #expect(values == [0x01, 0x02, 0x03, 0x04])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.4 one handle is a plain Read, none sends nothing, too many for the MTU is refused")
    func readMultipleEdges() async throws {
        let one = ScriptedBearer([.exchange(PDUs.read(0x0003), PDUs.readResponse([0x09]))])
        #expect(try await GATTClient(bearer: one).readMultipleValues(handles: [0x0003]) == [0x09])
        await one.finish()

        let none = ScriptedBearer([])
        #expect(try await GATTClient(bearer: none).readMultipleValues(handles: []).isEmpty)
        #expect(try await GATTClient(bearer: none).readMultipleVariableValues(handles: []).isEmpty)
        // 12 handles need 25 octets: more than ATT_MTU 23.
        let many = (1...12).map { UInt16($0) }
        let error = await gattError { try await GATTClient(bearer: none).readMultipleValues(handles: many) }
        #expect(error == .bearer(.pduTooLong(length: 25, mtu: 23)))
        let variable = await gattError { try await GATTClient(bearer: none).readMultipleVariableValues(handles: many) }
        #expect(variable == .bearer(.pduTooLong(length: 25, mtu: 23)))
        await none.finish()
    }

    @Test(
        "Vol 3 Part G §4.8.5 Read Multiple Variable Length pairs values with handles; a cut last value is marked"
    )
    func readMultipleVariable() async throws {
        // Tuples: (1, [0xAA]), (3, [0x01 0x02 0x03]), then a value of 40 octets of which 2 arrived.
        let bearer = ScriptedBearer([
            .exchange(attPDU("20 0300 0500 0700 0900"), attPDU("21 0100 aa 0300 010203 2800 0102"))
        ])
        let values = try await GATTClient(bearer: bearer).readMultipleVariableValues(
            handles: [0x0003, 0x0005, 0x0007, 0x0009])
        #expect(
            values == [
                GATTHandleValue(handle: 0x0003, value: [0xAA]),
                GATTHandleValue(handle: 0x0005, value: [0x01, 0x02, 0x03]),
                GATTHandleValue(handle: 0x0007, value: [0x01, 0x02], isTruncated: true),
            ])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.8.5 more values than handles asked for is invalid")
    func readMultipleVariableTooMany() async {
        let bearer = ScriptedBearer([.exchange(attPDU("20 0300 0500"), attPDU("21 0100 aa 0100 bb 0100 cc"))])
        let error = await gattError {
            try await GATTClient(bearer: bearer).readMultipleVariableValues(handles: [0x0003, 0x0005])
        }
        #expect(error?.isInvalidResponse == true)
        await bearer.finish()
    }

    @Test("a bearer failure during a read is .bearer")
    func bearerFailure() async {
        let bearer = ScriptedBearer([.failure(PDUs.read(0x0003), .disconnected(reason: HCIStatus(0x13)))])
        let error = await gattError { try await GATTClient(bearer: bearer).readValue(handle: 0x0003) }
        #expect(error == .bearer(.disconnected(reason: HCIStatus(0x13))))
        await bearer.finish()

        let timeout = ScriptedBearer([.failure(PDUs.groupType(0x0001), .transactionTimeout)])
        #expect(
            await gattError { try await GATTClient(bearer: timeout).discoverPrimaryServices() }
                == .bearer(.transactionTimeout))
        await timeout.finish()
    }
}
