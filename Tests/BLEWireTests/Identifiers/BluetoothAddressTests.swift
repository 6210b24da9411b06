import BLEWire
import PropertyBased
import Testing

@Suite("Device address (Core 5.4 Vol 6 Part B §1.3)")
struct BluetoothAddressTests {
    @Test("Printed most significant octet first, sent least significant first")
    func byteOrder() throws {
        let address = try #require(BluetoothAddress("F0:F1:F2:F3:F4:F5"))
        #expect(address.description == "F0:F1:F2:F3:F4:F5")
        var writer = ByteWriter()
        address.encode(into: &writer)
        #expect(writer.bytes == [0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0])
        var reader = ByteReader(writer.bytes)
        #expect(try BluetoothAddress(from: &reader) == address)
    }

    @Test("Random address sub-types come from the two most significant bits (§1.3.2)")
    func randomKinds() throws {
        func kind(_ text: String, _ type: AddressType) throws -> AddressKind {
            LEAddress(try #require(BluetoothAddress(text)), type: type).kind
        }
        #expect(try kind("C0:00:00:00:00:01", .random) == .randomStatic)
        #expect(try kind("40:00:00:00:00:01", .random) == .resolvablePrivate)
        #expect(try kind("00:00:00:00:00:01", .random) == .nonResolvablePrivate)
        #expect(try kind("80:00:00:00:00:01", .random) == .reservedRandom)
        #expect(try kind("C0:00:00:00:00:01", .public) == .public)
    }

    @Test("Parsing rejects malformed text")
    func parsingRejects() {
        #expect(BluetoothAddress("F0:F1:F2:F3:F4") == nil)
        #expect(BluetoothAddress("F0:F1:F2:F3:F4:F5:F6") == nil)
        #expect(BluetoothAddress("G0:F1:F2:F3:F4:F5") == nil)
        #expect(BluetoothAddress("F0:F1:F2:F3:F4:F") == nil)
        #expect(BluetoothAddress("F0-F1-F2-F3-F4-F5") != nil)
    }

    @Test("A truncated address is a typed error naming the field")
    func truncated() {
        var reader = ByteReader([1, 2, 3], context: "test")
        #expect(
            throws: DecodeError(
                context: "test", field: "Address", offset: 0, reason: .truncated(needed: 6, available: 3))
        ) {
            try BluetoothAddress(from: &reader)
        }
    }

    @Test("Any 48-bit value round-trips through text")
    func randomRoundTrip() async {
        await propertyCheck(input: Gen.uint64(in: 0...0xFFFF_FFFF_FFFF)) { value in
            let address = BluetoothAddress(value)
            #expect(BluetoothAddress(address.description) == address)
        }
    }
}
