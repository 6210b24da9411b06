import BLEWire
import Testing

@testable import BLEHost

@Suite("GATT client: discovered attribute values")
struct DiscoveredAttributesTests {
    @Test("Vol 3 Part G §3.3.1.1 Characteristic Properties bits carry Core Bluetooth's names")
    func properties() {
        let all: [(CharacteristicProperties, UInt8)] = [
            (.broadcast, 0x01), (.read, 0x02), (.writeWithoutResponse, 0x04), (.write, 0x08), (.notify, 0x10),
            (.indicate, 0x20), (.authenticatedSignedWrites, 0x40), (.extendedProperties, 0x80),
        ]
        for (property, bit) in all { #expect(property.rawValue == bit) }
        #expect(CharacteristicProperties(rawValue: 0x12).description == "[read, notify]")
        #expect(CharacteristicProperties(rawValue: 0xFF).description.split(separator: ",").count == 8)
    }

    @Test("Vol 3 Part G §3.3 a characteristic's value lies after its declaration and within its end")
    func characteristicInvariant() {
        func make(_ declaration: UInt16, _ value: UInt16, _ end: UInt16) -> DiscoveredCharacteristic? {
            DiscoveredCharacteristic(
                uuid: 0x2A37, declarationHandle: declaration, valueHandle: value, properties: [], endHandle: end)
        }
        #expect(make(0x0010, 0x0011, 0x0011)?.descriptorRange == nil)
        #expect(make(0x0010, 0x0011, 0x0014)?.descriptorRange == 0x0012...0x0014)
        #expect(make(0x0010, 0x0011, 0x0014)?.handleRange == 0x0010...0x0014)
        #expect(make(0x0010, 0x0010, 0x0014) == nil)
        #expect(make(0x0010, 0x000F, 0x0014) == nil)
        #expect(make(0x0010, 0x0015, 0x0014) == nil)
    }

    @Test("Vol 3 Part G §3.3.3.3 Client Characteristic Configuration values are two little-endian octets")
    func cccdOctets() {
        #expect(ClientCharacteristicConfiguration.notifications.octets == [0x01, 0x00])
        #expect(ClientCharacteristicConfiguration.indications.octets == [0x02, 0x00])
        #expect(ClientCharacteristicConfiguration([]).octets == [0x00, 0x00])
    }

    @Test("GATTError describes every case")
    func errorDescriptions() {
        let errors: [GATTError] = [
            .att(.attributeNotFound, handle: 0x0010, request: .readRequest), .bearer(.transactionTimeout),
            .invalidResponse("why"), .valueTooLong(length: 30, maximum: 20),
            .propertyNotSupported(required: [.notify, .indicate]),
        ]
        #expect(
            errors.map(\.description) == [
                "ATT error Attribute Not Found (0x0A) on handle 0x0010 for ATT_READ_REQ (0x0A)",
                "ATT bearer: transactionTimeout", "invalid response: why", "value of 30 octets exceeds 20",
                "characteristic lacks [notify, indicate]",
            ])
    }
}
