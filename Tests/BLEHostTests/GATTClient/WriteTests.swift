import BLEWire
import Testing

@testable import BLEHost

@Suite("GATT client: characteristic value and descriptor writes")
struct WriteTests {
    @Test("Vol 3 Part G §4.9.1 Write Without Response sends a Write Command of up to ATT_MTU − 3 octets")
    func writeWithoutResponse() async throws {
        let bearer = ScriptedBearer([.command(ATT.WriteCommand(handle: 0x0016, value: ramp(20)[...]).pdu)])
        try await GATTClient(bearer: bearer).writeValueWithoutResponse(ramp(20), handle: 0x0016)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.9.1 a value past ATT_MTU − 3 is refused before sending")
    func writeWithoutResponseTooLong() async {
        let bearer = ScriptedBearer([])
        let error = await gattError {
            try await GATTClient(bearer: bearer).writeValueWithoutResponse(ramp(21), handle: 0x0016)
        }
        #expect(error == .valueTooLong(length: 21, maximum: 20))
        #expect(await bearer.sent.isEmpty)
    }

    @Test("Vol 3 Part G §4.9.1 a bearer refusing the command is .bearer")
    func writeWithoutResponseBearerFailure() async {
        let command = ATT.WriteCommand(handle: 0x0016, value: [0x01]).pdu
        let bearer = ScriptedBearer([.command(command, failure: .disconnected(reason: HCIStatus(0x08)))])
        let error = await gattError {
            try await GATTClient(bearer: bearer).writeValueWithoutResponse([0x01], handle: 0x0016)
        }
        #expect(error == .bearer(.disconnected(reason: HCIStatus(0x08))))
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.9.2 Signed Write Without Response signs opcode, handle and value with the given signer")
    func signedWrite() async throws {
        let signature = ATT.AuthenticationSignature(signCounter: 7, mac: 0x0102_0304_0506_0708)
        let expected = ATT.SignedWriteCommand(handle: 0x0016, value: [0xAA, 0xBB], signature: signature).pdu
        let bearer = ScriptedBearer([.command(expected)])
        let seen = Recorder()
        try await GATTClient(bearer: bearer).signedWriteValueWithoutResponse([0xAA, 0xBB], handle: 0x0016) { message in
            await seen.record(message)
            return signature
        }
        #expect(await seen.messages == [[0xD2, 0x16, 0x00, 0xAA, 0xBB]])
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.9.2 a signed value past ATT_MTU − 15 is refused before signing or sending")
    func signedWriteTooLong() async {
        let bearer = ScriptedBearer([])
        let error = await gattError {
            try await GATTClient(bearer: bearer).signedWriteValueWithoutResponse(ramp(9), handle: 0x0016) { _ in
                Issue.record("signer called")
                return ATT.AuthenticationSignature(signCounter: 0, mac: 0)
            }
        }
        #expect(error == .valueTooLong(length: 9, maximum: 8))
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.9.3 Write Characteristic Value sends a Write Request and expects a Write Response")
    func write() async throws {
        let bearer = ScriptedBearer([.exchange(attPDU("12 1600 0102"), attPDU("13"))])
        try await GATTClient(bearer: bearer).writeValue([0x01, 0x02], handle: 0x0016)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.9.3 a value past ATT_MTU − 3 is refused; an Error Response is .att")
    func writeErrors() async {
        let none = ScriptedBearer([])
        #expect(
            await gattError { try await GATTClient(bearer: none).writeValue(ramp(21), handle: 0x0016) }
                == .valueTooLong(length: 21, maximum: 20))
        await none.finish()

        let refused = ScriptedBearer([.error(PDUs.write(0x0016, [0x01]), .writeNotPermitted, handle: 0x0016)])
        #expect(
            await gattError { try await GATTClient(bearer: refused).writeValue([0x01], handle: 0x0016) }
                == .att(.writeNotPermitted, handle: 0x0016, request: .writeRequest))
        await refused.finish()
    }

    @Test("Vol 3 Part G §4.12.3 Write Characteristic Descriptors is a Write Request")
    func writeDescriptor() async throws {
        let bearer = ScriptedBearer([.exchange(PDUs.write(0x0013, [0x05]), PDUs.written)])
        try await GATTClient(bearer: bearer).writeDescriptor([0x05], handle: 0x0013)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.9.4 Write Long Characteristic Values prepares ATT_MTU − 5 octet parts, then executes")
    func writeLong() async throws {
        let value = ramp(40)
        let bearer = ScriptedBearer([
            .exchange(PDUs.prepare(0x0016, 0, Array(value[0..<18])), PDUs.prepared(0x0016, 0, Array(value[0..<18]))),
            .exchange(
                PDUs.prepare(0x0016, 18, Array(value[18..<36])), PDUs.prepared(0x0016, 18, Array(value[18..<36]))),
            .exchange(PDUs.prepare(0x0016, 36, Array(value[36...])), PDUs.prepared(0x0016, 36, Array(value[36...]))),
            .exchange(attPDU("18 01"), PDUs.executed),
        ])
        try await GATTClient(bearer: bearer).writeLongValue(value, handle: 0x0016)
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §4.9.4 a Prepare Write Response that does not echo the request cancels the queue and fails",
        arguments: [
            PDUs.prepared(0x0016, 18, Array(ramp(40)[18..<36]).reversed()),  // value differs
            PDUs.prepared(0x0016, 19, Array(ramp(40)[18..<36])),  // offset differs
            PDUs.prepared(0x0017, 18, Array(ramp(40)[18..<36])),  // handle differs
            PDUs.written,  // not a Prepare Write Response at all
        ])
    func writeLongEchoMismatch(echo: ATTPDU) async {
        let value = ramp(40)
        let bearer = ScriptedBearer([
            .exchange(PDUs.prepare(0x0016, 0, Array(value[0..<18])), PDUs.prepared(0x0016, 0, Array(value[0..<18]))),
            .exchange(PDUs.prepare(0x0016, 18, Array(value[18..<36])), echo),
            .exchange(attPDU("18 00"), PDUs.executed),
        ])
        let error = await gattError { try await GATTClient(bearer: bearer).writeLongValue(value, handle: 0x0016) }
        #expect(error?.isInvalidResponse == true)
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §4.9.4 a refused part after accepted ones cancels the queue; a refused first one does not"
    )
    func writeLongRefused() async {
        let value = ramp(40)
        let later = ScriptedBearer([
            .exchange(PDUs.prepare(0x0016, 0, Array(value[0..<18])), PDUs.prepared(0x0016, 0, Array(value[0..<18]))),
            .error(PDUs.prepare(0x0016, 18, Array(value[18..<36])), .prepareQueueFull, handle: 0x0016),
            .exchange(PDUs.execute(.cancel), PDUs.executed),
        ])
        #expect(
            await gattError { try await GATTClient(bearer: later).writeLongValue(value, handle: 0x0016) }
                == .att(.prepareQueueFull, handle: 0x0016, request: .prepareWriteRequest))
        await later.finish()

        let first = ScriptedBearer([
            .error(PDUs.prepare(0x0016, 0, Array(value[0..<18])), .writeNotPermitted, handle: 0x0016)
        ])
        #expect(
            await gattError { try await GATTClient(bearer: first).writeLongValue(value, handle: 0x0016) }
                == .att(.writeNotPermitted, handle: 0x0016, request: .prepareWriteRequest))
        await first.finish()
    }

    @Test("Vol 3 Part G §4.9.4 a lost bearer is not asked to cancel")
    func writeLongBearerLost() async {
        let value = ramp(40)
        let bearer = ScriptedBearer([
            .exchange(PDUs.prepare(0x0016, 0, Array(value[0..<18])), PDUs.prepared(0x0016, 0, Array(value[0..<18]))),
            .failure(PDUs.prepare(0x0016, 18, Array(value[18..<36])), .transactionTimeout),
        ])
        #expect(
            await gattError { try await GATTClient(bearer: bearer).writeLongValue(value, handle: 0x0016) }
                == .bearer(.transactionTimeout))
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.9.4 values past 512 octets are refused; the Execute Write's Error Response is .att")
    func writeLongLimits() async {
        let none = ScriptedBearer([])
        #expect(
            await gattError { try await GATTClient(bearer: none).writeLongValue(ramp(513), handle: 0x0016) }
                == .valueTooLong(length: 513, maximum: 512))
        await none.finish()

        let bearer = ScriptedBearer([
            .exchange(PDUs.prepare(0x0016, 0, [0x01]), PDUs.prepared(0x0016, 0, [0x01])),
            .error(PDUs.execute(.write), .invalidAttributeValueLength, handle: 0x0016),
        ])
        #expect(
            await gattError { try await GATTClient(bearer: bearer).writeLongValue([0x01], handle: 0x0016) }
                == .att(.invalidAttributeValueLength, handle: 0x0016, request: .executeWriteRequest))
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.12.4 Write Long Characteristic Descriptors prepares and executes")
    func writeLongDescriptor() async throws {
        let bearer = ScriptedBearer([
            .exchange(PDUs.prepare(0x0014, 0, [0x41, 0x42]), PDUs.prepared(0x0014, 0, [0x41, 0x42])),
            .exchange(PDUs.execute(.write), PDUs.executed),
        ])
        try await GATTClient(bearer: bearer).writeLongDescriptor([0x41, 0x42], handle: 0x0014)
        await bearer.finish()
    }

    @Test("Vol 3 Part G §4.9.5 Reliable Writes queue every value, check each echo, then execute them together")
    func reliableWrite() async throws {
        let long = ramp(25)
        let bearer = ScriptedBearer([
            .exchange(PDUs.prepare(0x0016, 0, [0x01, 0x02]), PDUs.prepared(0x0016, 0, [0x01, 0x02])),
            .exchange(PDUs.prepare(0x0019, 0, Array(long[0..<18])), PDUs.prepared(0x0019, 0, Array(long[0..<18]))),
            .exchange(PDUs.prepare(0x0019, 18, Array(long[18...])), PDUs.prepared(0x0019, 18, Array(long[18...]))),
            .exchange(PDUs.execute(.write), PDUs.executed),
        ])
        try await GATTClient(bearer: bearer).reliableWrite([(0x0016, [0x01, 0x02]), (0x0019, long)])
        await bearer.finish()

        let nothing = ScriptedBearer([])
        try await GATTClient(bearer: nothing).reliableWrite([])
        await nothing.finish()
    }

    @Test(
        "Vol 3 Part G §4.9.5 an echo that differs cancels every queued value and fails; long values are refused first")
    func reliableWriteMismatch() async {
        let bearer = ScriptedBearer([
            .exchange(PDUs.prepare(0x0016, 0, [0x01, 0x02]), PDUs.prepared(0x0016, 0, [0x01, 0x02])),
            .exchange(PDUs.prepare(0x0019, 0, [0x03]), PDUs.prepared(0x0019, 0, [0x04])),
            .exchange(PDUs.execute(.cancel), PDUs.executed),
        ])
        let error = await gattError {
            try await GATTClient(bearer: bearer).reliableWrite([(0x0016, [0x01, 0x02]), (0x0019, [0x03])])
        }
        #expect(error?.isInvalidResponse == true)
        await bearer.finish()

        let none = ScriptedBearer([])
        #expect(
            await gattError {
                try await GATTClient(bearer: none).reliableWrite([(0x0016, [0x01]), (0x0019, ramp(600))])
            }
                == .valueTooLong(length: 600, maximum: 512))
        await none.finish()
    }

    func characteristic(_ properties: CharacteristicProperties) -> DiscoveredCharacteristic {
        DiscoveredCharacteristic(
            uuid: 0x2A37, declarationHandle: 0x0011, valueHandle: 0x0012, properties: properties, endHandle: 0x0013)!
    }

    @Test("Vol 3 Part G §3.3.3.3 subscribing writes 0x0001 for notify, 0x0002 for indicate-only, 0x0000 to stop")
    func subscribe() async throws {
        let bearer = ScriptedBearer([
            .exchange(attPDU("12 1300 0100"), PDUs.written),
            .exchange(attPDU("12 1300 0200"), PDUs.written),
            .exchange(attPDU("12 1300 0000"), PDUs.written),
            .exchange(attPDU("12 1300 0300"), PDUs.written),
        ])
        let client = GATTClient(bearer: bearer)
        try await client.setNotifyValue(true, for: characteristic([.notify, .indicate]), descriptorHandle: 0x0013)
        try await client.setNotifyValue(true, for: characteristic([.indicate]), descriptorHandle: 0x0013)
        try await client.setNotifyValue(false, for: characteristic([.indicate]), descriptorHandle: 0x0013)
        try await client.writeClientCharacteristicConfiguration(
            [.notifications, .indications], descriptorHandle: 0x0013)
        await bearer.finish()
    }

    @Test(
        "Vol 3 Part G §3.3.3.3 subscribing without notify or indicate is refused before sending"
    )
    func subscribeUnsupported() async {
        let bearer = ScriptedBearer([])
        let error = await gattError {
            try await GATTClient(bearer: bearer).setNotifyValue(
                true, for: characteristic([.read]), descriptorHandle: 0x0013)
        }
        #expect(error == .propertyNotSupported(required: [.notify, .indicate]))
        await bearer.finish()
    }
}

/// Collects what a closure saw.
actor Recorder {
    private(set) var messages: [[UInt8]] = []
    func record(_ message: [UInt8]) { messages.append(message) }
}
