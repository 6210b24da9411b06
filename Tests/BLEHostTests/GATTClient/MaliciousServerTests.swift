import BLEController
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

/// A server that answers every request with the same PDU, or with `answer(request)`; it gives up
/// (and fails the test) past `limit` requests so that a looping procedure cannot hang the suite.
actor HostileBearer: ATTClientBearer {
    nonisolated let mtu: Int
    private let answer: @Sendable (ATTPDU) -> ATTPDU
    private let limit: Int
    private(set) var count = 0

    init(mtu: Int = 23, limit: Int = 100, answer: @escaping @Sendable (ATTPDU) -> ATTPDU) {
        self.mtu = mtu
        self.limit = limit
        self.answer = answer
    }

    init(always response: ATTPDU) { self.init(answer: { _ in response }) }

    func request(_ pdu: ATTPDU) async throws(ATTBearerError) -> ATTPDU {
        count += 1
        guard count <= limit else {
            Issue.record("the procedure sent more than \(limit) requests")
            throw .transactionTimeout
        }
        return answer(pdu)
    }

    func command(_ pdu: ATTPDU) async throws(ATTBearerError) {}
}

@Suite("GATT client: servers that break the rules")
struct MaliciousServerTests {
    let service = DiscoveredService(uuid: 0x180D, handleRange: 0x0010...0x001F)
    let characteristic = DiscoveredCharacteristic(
        uuid: 0x2A37, declarationHandle: 0x0011, valueHandle: 0x0012, properties: [.notify], endHandle: 0x001F)!

    @Test("Vol 3 Part G §4.4.1 a server repeating the same services terminates with .invalidResponse")
    func repeatingServices() async {
        let bearer = HostileBearer(always: PDUs.services([(0x0001, 0x0005, 0x1800)]))
        let error = await gattError { try await GATTClient(bearer: bearer).discoverPrimaryServices() }
        #expect(error?.isInvalidResponse == true)
        #expect(await bearer.count == 2)
    }

    @Test("Vol 3 Part G §4.4–§4.7 every discovery ends with .invalidResponse when handles do not increase")
    func everyDiscoveryTerminates() async {
        let found = HostileBearer(always: attPDU("07 1000 1f00"))
        #expect(
            await gattError { try await GATTClient(bearer: found).discoverPrimaryServices(withUUID: 0x180D) }?
                .isInvalidResponse == true)
        let includes = HostileBearer(always: attPDU("09 08 1100 3000 3400 0f18"))
        #expect(
            await gattError { try await GATTClient(bearer: includes).discoverIncludedServices(for: service) }?
                .isInvalidResponse == true)
        let declarations = HostileBearer(always: PDUs.declarations([(0x0011, [.read], 0x0012, 0x2A37)]))
        #expect(
            await gattError { try await GATTClient(bearer: declarations).discoverCharacteristics(for: service) }?
                .isInvalidResponse == true)
        let information = HostileBearer(always: PDUs.information([(0x0013, 0x2902)]))
        #expect(
            await gattError { try await GATTClient(bearer: information).discoverDescriptors(for: characteristic) }?
                .isInvalidResponse == true)
        let values = HostileBearer(always: PDUs.values([(0x0012, [0x01])]))
        #expect(
            await gattError {
                try await GATTClient(bearer: values).readValues(ofCharacteristic: 0x2A37, in: 0x0010...0x001F)
            }?.isInvalidResponse == true)
        for bearer in [found, includes, declarations, information, values] {
            #expect(await bearer.count == 2)
        }
    }

    @Test("Vol 3 Part F §3.4.4.10 handles decreasing within one response, or outside the range asked, are invalid")
    func handlesOutOfOrder() async {
        let decreasing = HostileBearer(always: PDUs.services([(0x0006, 0x0009, 0x1801), (0x0001, 0x0005, 0x1800)]))
        #expect(
            await gattError { try await GATTClient(bearer: decreasing).discoverPrimaryServices() }?.isInvalidResponse
                == true)

        // Overlapping groups: the second starts inside the first.
        let overlapping = HostileBearer(always: PDUs.services([(0x0001, 0x0009, 0x1800), (0x0005, 0x000A, 0x1801)]))
        #expect(
            await gattError { try await GATTClient(bearer: overlapping).discoverPrimaryServices() }?.isInvalidResponse
                == true)

        let below = HostileBearer(always: PDUs.information([(0x0001, 0x2902)]))
        #expect(
            await gattError { try await GATTClient(bearer: below).discoverDescriptors(for: characteristic) }?
                .isInvalidResponse == true)

        let beyond = HostileBearer(always: PDUs.declarations([(0x0100, [.read], 0x0101, 0x2A37)]))
        #expect(
            await gattError { try await GATTClient(bearer: beyond).discoverCharacteristics(for: service) }?
                .isInvalidResponse == true)
    }

    @Test("Vol 3 Part F §3.4.4.10 a service whose end handle is before its start is invalid")
    func endBeforeStart() async {
        let bearer = HostileBearer(always: PDUs.services([(0x0010, 0x0005, 0x1800)]))
        #expect(
            await gattError { try await GATTClient(bearer: bearer).discoverPrimaryServices() }?.isInvalidResponse
                == true)
        let found = HostileBearer(always: attPDU("07 1000 0500"))
        #expect(
            await gattError { try await GATTClient(bearer: found).discoverPrimaryServices(withUUID: 0x180D) }?
                .isInvalidResponse == true)
    }

    @Test("Vol 3 Part F §3.3 a response of the wrong opcode, or an Error Response for another request, is invalid")
    func wrongOpcode() async {
        let wrong = HostileBearer(always: PDUs.readResponse([0x01]))
        #expect(
            await gattError { try await GATTClient(bearer: wrong).discoverPrimaryServices() }?.isInvalidResponse == true
        )
        #expect(await gattError { try await GATTClient(bearer: wrong).readLongValue(handle: 0x0003) } == nil)
        let otherError = HostileBearer(
            always: ATT.ErrorResponse(requestOpcode: .readRequest, handle: 0x0001, errorCode: .attributeNotFound).pdu)
        #expect(
            await gattError { try await GATTClient(bearer: otherError).discoverPrimaryServices() }?.isInvalidResponse
                == true)
        let blob = HostileBearer(always: PDUs.blobResponse([0x01]))
        #expect(
            await gattError { try await GATTClient(bearer: blob).readValue(handle: 0x0003) }?.isInvalidResponse == true)
        #expect(
            await gattError { try await GATTClient(bearer: blob).writeValue([0x01], handle: 0x0003) }?.isInvalidResponse
                == true)
        #expect(
            await gattError { try await GATTClient(bearer: blob).readMultipleValues(handles: [1, 2]) }?
                .isInvalidResponse == true)
        #expect(
            await gattError { try await GATTClient(bearer: blob).readMultipleVariableValues(handles: [1, 2]) }?
                .isInvalidResponse == true)
    }

    @Test("Vol 3 Part G §4 a server answering random, mostly well-paired PDUs never traps nor loops")
    func randomServer() async {
        var total = 0
        for seed in 0..<200 {
            let bearer = FuzzBearer(seed: UInt64(seed))
            let client = GATTClient(bearer: bearer)
            _ = await gattError { try await client.discoverDatabase() }
            _ = await gattError { try await client.readLongValue(handle: 0x0003) }
            _ = await gattError { try await client.writeLongValue(ramp(100), handle: 0x0003) }
            _ = await gattError { try await client.reliableWrite([(0x0003, ramp(30)), (0x0004, [1])]) }
            _ = await gattError { try await client.readMultipleVariableValues(handles: [1, 2, 3]) }
            _ = await gattError { try await client.readValues(ofCharacteristic: 0x2A37, in: 0x0001...0x0100) }
            total += await bearer.count
        }
        // The answers were varied enough to drive procedures past their first request.
        #expect(total > 2_000)
    }
}

/// A server answering each request with random octets under, most of the time, the paired
/// response opcode, with list entries whose handles mostly increase from the request's start —
/// so that procedures run several rounds before the randomness breaks a rule.
actor FuzzBearer: ATTClientBearer {
    nonisolated let mtu = 23
    private var generator: SeededRandomGenerator
    private(set) var count = 0

    init(seed: UInt64) { generator = SeededRandomGenerator(seed: seed) }

    func command(_ pdu: ATTPDU) async throws(ATTBearerError) {}

    func request(_ pdu: ATTPDU) async throws(ATTBearerError) -> ATTPDU {
        count += 1
        guard count <= 20_000 else {
            Issue.record("the procedure sent more than 20000 requests")
            throw .transactionTimeout
        }
        for _ in 0..<20 {
            if let answer = try? ATTPDU(decoding: octets(answering: pdu)) { return answer }
        }
        return ATT.ErrorResponse(requestOpcode: pdu.opcode, handle: 0, errorCode: .attributeNotFound).pdu
    }

    private func random(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }

    private func octets(answering request: ATTPDU) -> [UInt8] {
        let roll = random(100)
        if roll < 8 {
            let code: UInt8 = [0x0A, 0x07, 0x0B, 0x01, 0x0E][random(5)]
            return [0x01, request.opcode.rawValue, 0x00, 0x00, code]
        }
        let opcode =
            roll < 92 ? (request.opcode.pairedResponse?.rawValue ?? 0x01) : UInt8(truncatingIfNeeded: random(0x24))
        var body = (0..<random(22)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        var start = 1
        switch request {
        case .readByGroupTypeRequest(let r): start = Int(r.startingHandle)
        case .readByTypeRequest(let r): start = Int(r.startingHandle)
        case .findInformationRequest(let r): start = Int(r.startingHandle)
        case .findByTypeValueRequest(let r): start = Int(r.startingHandle)
        case .prepareWriteRequest(let r) where random(4) != 0:
            // Mostly an honest echo, so that long and reliable writes get as far as Execute Write.
            return [0x17] + Array(r.encoded.dropFirst())
        default: break
        }
        // Entry layout: Length octet (Read By Type, Read By Group Type, Find Information format).
        let stride: Int
        let headed: Bool
        switch opcode {
        // Mostly a stride the procedure accepts, sometimes one it must refuse.
        case 0x09: stride = [7, 7, 7, 8, 8, 6, 6, 21, 21, 3][random(10)]; headed = true
        case 0x11: stride = [6, 6, 6, 6, 6, 20, 20, 20, 20, 5][random(10)]; headed = true
        case 0x05: stride = [4, 18][random(2)]; headed = true
        case 0x07: stride = 4; headed = false
        default: return [opcode] + body
        }
        var list: [UInt8] = []
        var handle = start + random(3)
        for _ in 0..<max(1, body.count / stride) {
            var entry = (0..<stride).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let h = UInt16(truncatingIfNeeded: handle)
            entry[0] = UInt8(truncatingIfNeeded: h)
            entry[1] = UInt8(h >> 8)
            switch (opcode, stride) {
            case (0x11, _), (0x07, _):
                // A group end a little after the handle.
                let end = UInt16(truncatingIfNeeded: handle + random(6))
                entry[2] = UInt8(truncatingIfNeeded: end)
                entry[3] = UInt8(end >> 8)
                handle += Int(end) - Int(h)
            case (0x09, 7), (0x09, 21):
                // A characteristic declaration: mostly its value right after it.
                let value = UInt16(truncatingIfNeeded: handle + random(3))
                entry[3] = UInt8(truncatingIfNeeded: value)
                entry[4] = UInt8(value >> 8)
                handle += 1
            default: break
            }
            list += entry
            handle += 1 + random(4)
        }
        body = headed ? [UInt8(opcode == 0x05 ? (stride == 4 ? 1 : 2) : stride)] + list : list
        return [opcode] + body
    }
}
