import BLEWire
import Testing

/// The README's `BLEWire` example, kept compiling and true.
@Suite("README example")
struct ReadmeExampleTests {
    @Test("Decode a Read By Type Response, build advertising data, encode a command, parse a stream")
    func readmeExample() throws {
        let pdu = try ATTPDU(decoding: [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A])
        guard case .readByTypeResponse(let response) = pdu else {
            Issue.record("expected a Read By Type Response")
            return
        }
        #expect(response.entries.map(\.handle) == [0x0002])
        #expect(Array(response.entries[0].value) == [0x02, 0x03, 0x00, 0x00, 0x2A])

        var builder = AdvertisingDataBuilder()
        try builder.append(.flags([.leGeneralDiscoverable, .brEdrNotSupported]))
        try builder.append(.serviceUUIDs(complete: true, [BluetoothUUID(0x180D)]))
        try builder.appendLocalName("Heart Rate Sensor")
        let advertisingData = try builder.build(limit: .legacy)
        #expect(advertisingData.encoded.count <= 31)
        #expect(advertisingData.localName == "Heart Rate Sensor")

        let command = HCI.LESetAdvertisingData(advertisingData: advertisingData.encoded)
        let h4 = H4Packet(command: command.packet).encoded

        var parser = H4StreamParser()
        parser.feed(h4[...])
        var decoded: [HCIPacket] = []
        while let packet = try parser.next() { decoded.append(try HCIPacket(packet)) }
        #expect(decoded.count == 1)
        guard case .command(let packet)? = decoded.first else {
            Issue.record("expected a command")
            return
        }
        #expect(try packet.decodeCommand() as? HCI.LESetAdvertisingData == command)
    }
}
