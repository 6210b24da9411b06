import BLEWire
import PropertyBased
import Testing

@Suite("Bluetooth UUID (Core 5.4 Vol 3 Part B §2.5.1)")
struct BluetoothUUIDTests {
    @Test("A 16-bit UUID equals and hashes as its 128-bit form on the Base UUID")
    func shortEqualsLong() throws {
        let short = BluetoothUUID(0x180D)
        let long = try #require(BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB"))
        #expect(short == long)
        #expect(short.hashValue == long.hashValue)
        #expect(Set([short, long]).count == 1)
        #expect(long.uuid16 == 0x180D)
        #expect(BluetoothUUID(uuid32: 0x180D) == short)
    }

    @Test("Printing: 4 hex digits for 16-bit, 8 for 32-bit, canonical upper case for 128-bit")
    func printing() throws {
        #expect(BluetoothUUID(0x2A37).description == "2A37")
        #expect(BluetoothUUID(uuid32: 0x1234_5678).description == "12345678")
        let custom = try #require(BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"))
        #expect(custom.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(custom.uuid16 == nil)
        #expect(custom.uuid32 == nil)
        #expect(BluetoothUUID(0x180D).uuidString == "0000180D-0000-1000-8000-00805F9B34FB")
    }

    @Test("Parsing rejects malformed text")
    func parsingRejects() {
        #expect(BluetoothUUID("18D") == nil)
        #expect(BluetoothUUID("XYZW") == nil)
        #expect(BluetoothUUID("0000180D00001000800000805F9B34FB") == nil)
        #expect(BluetoothUUID("0000180D-0000-1000-8000-00805F9B34F") == nil)
        #expect(BluetoothUUID("0000180D0-000-1000-8000-00805F9B34FB") == nil)
    }

    @Test("Wire forms are little-endian; ATT uses 16-bit when possible, else 128-bit (Vol 3 Part F §3.2.1)")
    func wireForms() throws {
        var writer = ByteWriter()
        BluetoothUUID(0x2800).encodeATT(into: &writer)
        #expect(writer.bytes == [0x00, 0x28])

        let custom = try #require(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        writer = ByteWriter()
        custom.encodeATT(into: &writer)
        #expect(writer.bytes == hex("9ecadc240ee5a9e093f3a3b5010040 6e"))
        #expect(try BluetoothUUID(decodingLittleEndian: writer.bytes[...]) == custom)

        // A 32-bit alias goes as 128 bits in ATT.
        writer = ByteWriter()
        BluetoothUUID(uuid32: 0x1234_5678).encodeATT(into: &writer)
        #expect(writer.bytes.count == 16)
    }

    @Test("A UUID of a width other than 2, 4 or 16 octets is a typed error")
    func badWidth() {
        #expect(throws: DecodeError.self) { try BluetoothUUID(decodingLittleEndian: [1, 2, 3][...]) }
    }

    @Test("Random 128-bit values round-trip through text and wire")
    func randomRoundTrip() async {
        await propertyCheck(input: Gen.uint64(), Gen.uint64()) { high, low in
            let uuid = BluetoothUUID(high: high, low: low)
            #expect(BluetoothUUID(uuid.uuidString) == uuid)
            var writer = ByteWriter()
            uuid.encode(into: &writer, width: 16)
            #expect((try? BluetoothUUID(decodingLittleEndian: writer.bytes[...])) == uuid)
        }
    }
}
