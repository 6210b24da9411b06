import BLEWire
import PropertyBased
import Testing

/// Touches everything a decoded PDU exposes (entries, tuples, rendering); none of it may trap.
func exerciseATTPDU(_ pdu: ATTPDU) -> Int {
    var seen = 0
    switch pdu {
    case .findInformationResponse(let p):
        seen = p.entries.reduce(0) { $0 &+ Int($1.handle) &+ $1.uuid.hashValue }
    case .findByTypeValueResponse(let p): seen = p.entries.reduce(0) { $0 &+ Int($1.groupEndHandle) }
    case .readByTypeResponse(let p): seen = p.entries.reduce(0) { $0 &+ $1.value.count }
    case .readByGroupTypeResponse(let p): seen = p.entries.reduce(0) { $0 &+ $1.value.count }
    case .readMultipleRequest(let p): seen = p.setOfHandles.reduce(0) { $0 &+ Int($1) }
    case .readMultipleVariableRequest(let p): seen = p.setOfHandles.count
    case .readMultipleVariableResponse(let p):
        seen = p.tuples.reduce(0) { $0 &+ $1.value.count } &+ (p.isTruncated ? 1 : 0)
    case .multipleHandleValueNotification(let p): seen = p.tuples.reduce(0) { $0 &+ $1.value.count }
    default: break
    }
    return seen &+ pdu.description.count &+ pdu.json.count
}

@Suite("ATT PDU decoding never traps (Core 5.4 Vol 3 Part F §3.4)")
struct ATTFuzzTests {
    @Test("Random octets never trap ATTPDU decoding; accepted PDUs re-encode to the same value")
    func randomBytesNeverTrap() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(ATTPDU.self, bytes)
            if let pdu = try? ATTPDU(decoding: bytes) {
                _ = exerciseATTPDU(pdu)
                #expect(pdu.encoded == bytes)
            }
        }
    }

    @Test("Random parameters after every known opcode never trap; accepted PDUs re-encode byte-exact")
    func knownOpcodesNeverTrap() async {
        let opcodes = ATTOpcode.table.map(\.opcode.rawValue)
        await propertyCheck(count: 6000, input: Gen.element(of: opcodes), randomBytes) { opcode, parameters in
            guard let opcode else { return }
            let bytes = [opcode] + parameters
            expectNoTrap(ATTPDU.self, bytes)
            if let pdu = try? ATTPDU(decoding: bytes) {
                _ = exerciseATTPDU(pdu)
                #expect(pdu.opcode.rawValue == opcode)
                #expect(pdu.encoded == bytes)
            }
        }
    }

    @Test("List PDUs built from random shapes never trap and keep their entries in order")
    func structuredLists() async {
        await propertyCheck(count: 1000, input: Gen.uint8(in: 0...40), Gen.uint8(in: 0...8), randomBytes) {
            length, count, filler in
            let list = (0..<Int(count) * Int(length)).map {
                filler.isEmpty ? UInt8(truncatingIfNeeded: $0) : filler[$0 % filler.count]
            }
            for opcode: UInt8 in [0x09, 0x11] {
                let bytes = [opcode, length] + list
                let decoded = try? ATTPDU(decoding: bytes)
                let minimum = opcode == 0x09 ? 2 : 4
                #expect((decoded != nil) == (Int(length) >= minimum && count > 0), "\(Hex.string(bytes))")
                guard let decoded else { continue }
                _ = exerciseATTPDU(decoded)
                let stride = Int(length)
                func handle(_ i: Int, _ at: Int) -> UInt16 {
                    UInt16(list[i * stride + at]) | UInt16(list[i * stride + at + 1]) << 8
                }
                switch decoded {
                case .readByTypeResponse(let response):
                    #expect(response.entries.count == Int(count))
                    for (i, entry) in response.entries.enumerated() {
                        #expect(entry.handle == handle(i, 0))
                        #expect(entry.value == list[(i * stride + 2)..<((i + 1) * stride)])
                    }
                case .readByGroupTypeResponse(let response):
                    #expect(response.entries.count == Int(count))
                    for (i, entry) in response.entries.enumerated() {
                        #expect(entry.handle == handle(i, 0) && entry.endGroupHandle == handle(i, 2))
                        #expect(entry.value == list[(i * stride + 4)..<((i + 1) * stride)])
                    }
                default:
                    Issue.record("decoded as \(decoded.opcode)")
                }
            }
        }
    }

    @Test("Decoding a 244-octet Handle Value Notification copies nothing: the value is a slice of the input")
    func notificationSharesStorage() throws {
        let bytes = [0x1B, 0x0E, 0x00] + (0..<241).map { UInt8(truncatingIfNeeded: $0) }
        #expect(bytes.count == 244)
        guard case .handleValueNotification(let notification) = try ATTPDU(decoding: bytes) else {
            Issue.record("not a notification")
            return
        }
        #expect(notification.value.count == 241)
        let input = bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        let value = notification.value.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(value == input + 3)
    }

    @Test("Decoding a 23-octet Read By Type Response copies nothing: entries are read from the input")
    func readByTypeSharesStorage() throws {
        let bytes = hex("09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a 06 00 02 07 00 04 2a")
        guard case .readByTypeResponse(let response) = try ATTPDU(decoding: bytes) else {
            Issue.record("not a Read By Type Response")
            return
        }
        let input = bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        let list = response.entries.bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(list == input + 2)
        for (i, entry) in response.entries.enumerated() {
            let value = entry.value.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            #expect(value == input + 2 + UInt(i) * 7 + 2)
        }
    }
}
