import BLEController
import BLETransport
import BLEWire
import Foundation
import Testing

@testable import BLE

/// `retrievePeripherals(withIdentifiers:)` across managers and processes: the identities a
/// central has seen, kept in a file.
@Suite("Known peripherals: a new manager retrieves a peripheral seen before and connects without scanning")
struct KnownPeripheralsTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("known-\(UUID().uuidString).json").path
    }

    @Test(
        "A manager of a later process retrieves the peripheral from the file and connects with LE Create Connection alone"
    )
    func retrieveAcrossManagers() async throws {
        let path = Self.temporaryPath()
        defer { unlink(path) }
        try await TwoDevices.run { devices in
            try await devices.publish()
            let first = try await CentralManager(
                radio: .virtual(devices.radio, position: AirPosition(x: 3, y: 0, z: 0)), knownPeripheralsFile: path)
            try await first.powerOn()
            let discoveries = try await first.scanForPeripherals(withServices: [Fixture.serviceUUID])
            var iterator = discoveries.makeAsyncIterator()
            let seen = try #require(await iterator.next()).peripheral
            await first.close()

            var status = stat()
            #expect(stat(path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)

            let later = try await CentralManager(
                radio: .virtual(devices.radio, position: AirPosition(x: 4, y: 0, z: 0)), knownPeripheralsFile: path)
            try await later.powerOn()
            let retrieved = await later.retrievePeripherals(withIdentifiers: [UUID(), seen.identifier])
            #expect(retrieved.map(\.identifier) == [seen.identifier])
            let peripheral = try #require(retrieved.first)
            #expect(peripheral.address == seen.address)
            // Retrieved twice: the same object.
            #expect(await later.retrievePeripherals(withIdentifiers: [seen.identifier]).first === peripheral)
            try await later.connect(peripheral)
            #expect(await peripheral.state == .connected)
            #expect(await later.isScanning == false)
            await later.close()
        }
    }

    @Test("A manager without a file retrieves only what it has seen itself")
    func withoutFile() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            let other = await CentralManager(radio: .virtual(devices.radio, position: AirPosition(x: 5, y: 0, z: 0)))
            #expect(await other.retrievePeripherals(withIdentifiers: [peripheral.identifier]).isEmpty)
            await other.close()
        }
    }

    @Test("A damaged file is a typed error and is left as it was")
    func damagedFile() async throws {
        let radio = VirtualRadio()
        for contents in [
            "not json", #"{"version": 99, "peripherals": []}"#,
            #"{"version": 1, "peripherals": [{"identifier": "00000000-0000-0000-0000-000000000000", "address": "01:02:03:04:05:06", "isRandom": false}]}"#,
        ] {
            let path = Self.temporaryPath()
            defer { unlink(path) }
            try FileAccess.writeAtomically(Array(contents.utf8), to: path)
            do {
                _ = try await CentralManager(radio: .virtual(radio), knownPeripheralsFile: path)
                Issue.record("a damaged file was accepted: \(contents)")
            } catch {
                guard case .damaged(let reported, _) = error else {
                    Issue.record("not reported as damaged: \(error)")
                    continue
                }
                #expect(reported == path)
            }
            #expect(try FileAccess.read(path) == Array(contents.utf8))
        }
    }

    @Test("A path that is not a file is a typed file error")
    func directoryPath() async throws {
        let radio = VirtualRadio()
        await #expect(throws: KnownPeripheralsError.self) {
            _ = try await CentralManager(
                radio: .virtual(radio), knownPeripheralsFile: FileManager.default.temporaryDirectory.path)
        }
    }
}
