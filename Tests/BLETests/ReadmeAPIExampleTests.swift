import BLE
import Testing

/// The README's API example, kept compiling and true.
@Suite("README API example")
struct ReadmeAPIExampleTests {
    @Test("A sensor publishes Battery; a phone scans, connects, discovers and reads it")
    func example() async throws {
        let radio = VirtualRadio()
        let value = try await radio.simulation.run { () -> [UInt8]? in
            let sensor = try await PeripheralManager(radio: .virtual(radio))
            let phone = await CentralManager(radio: .virtual(radio, position: AirPosition(x: 3, y: 0, z: 0)))
            try await sensor.powerOn()
            try await phone.powerOn()

            try await sensor.add(
                MutableService(
                    uuid: 0x180F,
                    characteristics: [
                        MutableCharacteristic(
                            uuid: 0x2A19, properties: [.read, .notify], permissions: .readable, value: .stored([87]))
                    ]))
            try await sensor.startAdvertising(AdvertisementData(localName: "Sensor", serviceUUIDs: [0x180F]))

            var read: [UInt8]?
            for await discovery in try await phone.scanForPeripherals(withServices: [0x180F]) {
                await phone.stopScan()
                let peripheral = discovery.peripheral
                try await phone.connect(peripheral)
                let service = try await peripheral.discoverServices([0x180F])[0]
                let level = try await peripheral.discoverCharacteristics([0x2A19], for: service)[0]
                read = try await peripheral.readValue(for: level)
                break
            }
            await phone.close()
            await sensor.close()
            return read
        }
        #expect(value == [87])
    }
}
