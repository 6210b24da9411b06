import BLE
import Foundation
import Testing

@testable import BLECompanion

@Suite("Known devices: identity, records, re-binding, the SQLite file")
struct KnownDevicesTests {
    static let mac = BluetoothAddress(0xC4_7C_8D_6A_12_34)
    static let first = LEAddress(BluetoothAddress(0x00_1B_DC_00_00_01), type: .public)
    static let second = LEAddress(BluetoothAddress(0xD0_11_22_33_44_55), type: .random)

    static func advertisement(mac: BluetoothAddress?, company: UInt16 = 0xFFFF) -> AdvertisementData {
        AdvertisementData(
            localName: "wearable",
            manufacturerData: mac.map { ManufacturerData(companyIdentifier: company, data: $0.octets.reversed()) })
    }

    /// A fresh folder for files of one test.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("known-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("Identity: the MAC in manufacturer data (company ID + 6 octets, least significant first) names the device")
    func macFromManufacturerData() {
        let identification = DeviceIdentification()
        #expect(identification.key(for: Self.advertisement(mac: Self.mac), address: Self.second) == .mac(Self.mac))
        // Most significant first, and only one company's data.
        let printed = DeviceIdentification(
            macExtractor: DeviceIdentification.manufacturerDataMAC(
                companyIdentifier: 0x05F1, order: .mostSignificantFirst))
        let data = AdvertisementData(
            manufacturerData: ManufacturerData(companyIdentifier: 0x05F1, data: Self.mac.octets))
        #expect(printed.key(for: data, address: Self.second) == .mac(Self.mac))
        #expect(printed.macExtractor(Self.advertisement(mac: Self.mac)) == nil)
        // Five or seven octets are not a MAC.
        let short = AdvertisementData(
            manufacturerData: ManufacturerData(companyIdentifier: 0xFFFF, data: [1, 2, 3, 4, 5]))
        #expect(identification.macExtractor(short) == nil)
    }

    @Test("Identity: without a MAC, a public or random static address identifies; private addresses do not")
    func identityAddress() {
        let identification = DeviceIdentification()
        let none = Self.advertisement(mac: nil)
        #expect(identification.key(for: none, address: Self.first) == .identityAddress(Self.first))
        #expect(identification.key(for: none, address: Self.second) == .identityAddress(Self.second))
        let resolvable = LEAddress(BluetoothAddress(0x4A_11_22_33_44_55), type: .random)
        let nonResolvable = LEAddress(BluetoothAddress(0x0A_11_22_33_44_55), type: .random)
        #expect(identification.key(for: none, address: resolvable) == nil)
        #expect(identification.key(for: none, address: nonResolvable) == nil)
        #expect(DeviceIdentification(usesIdentityAddress: false).key(for: none, address: Self.first) == nil)
    }

    @Test("Identity: every key survives its stored text; malformed text is refused")
    func storageKeys() {
        let keys: [DeviceKey] = [
            .mac(Self.mac), .identityAddress(Self.first), .identityAddress(Self.second), .irk(Array(0..<16)),
        ]
        for key in keys { #expect(DeviceKey(storageKey: key.storageKey) == key) }
        for text in ["", "mac", "mac:zz", "static:0A:11:22:33:44:55", "irk:0102", "other:00:00:00:00:00:00"] {
            #expect(DeviceKey(storageKey: text) == nil)
        }
    }

    @Test("Registry: a device remembered is found by key, by identifier and by address, with name, dates, label")
    func lookups() throws {
        let dates = ManualDates()
        let registry = try KnownDevices.inMemory(now: dates.now)
        let identifier = Self.first.peerIdentifier
        let added = try registry.observe(key: .mac(Self.mac), address: Self.first, identifier: identifier, name: "w")
        guard case .added(let device) = added else { throw TestFailure("not added: \(String(describing: added))") }
        dates.advance(by: 60)
        try registry.setLabel("left ear", forKey: .mac(Self.mac))
        let seen = try registry.observe(key: .mac(Self.mac), address: Self.first, identifier: identifier, name: nil)
        guard case .seen(let again) = seen else { throw TestFailure("not seen: \(String(describing: seen))") }
        #expect(again.firstSeen == device.firstSeen)
        #expect(again.lastSeen == device.firstSeen.addingTimeInterval(60))
        #expect(again.name == "w")
        #expect(again.label == "left ear")
        #expect(try registry.device(forKey: .mac(Self.mac)) == again)
        #expect(try registry.device(withIdentifier: identifier) == again)
        #expect(try registry.device(at: Self.first) == again)
        #expect(try registry.device(at: Self.second) == nil)
        // Unknown devices are not remembered unless asked.
        #expect(
            try registry.observe(
                key: .mac(.zero), address: Self.second, identifier: UUID(), name: nil, rememberNew: false) == nil)
        #expect(try registry.all() == [again])
        #expect(try registry.forget(.mac(Self.mac)) == again)
        #expect(try registry.all().isEmpty)
    }

    @Test("Re-binding: a known key at a new address updates the record and reports rebound(old:new:)")
    func rebinding() async throws {
        let registry = try KnownDevices.inMemory()
        var events = registry.events().makeAsyncIterator()
        try registry.observe(key: .mac(Self.mac), address: Self.first, identifier: Self.first.peerIdentifier, name: "w")
        let observation = try registry.observe(
            key: .mac(Self.mac), address: Self.second, identifier: Self.second.peerIdentifier, name: nil)
        guard case .rebound(let old, let new) = observation else { throw TestFailure("not rebound") }
        #expect(old.address == Self.first && new.address == Self.second)
        #expect(new.identifier == Self.second.peerIdentifier)
        #expect(try registry.device(withIdentifier: Self.second.peerIdentifier)?.key == .mac(Self.mac))
        #expect(try registry.device(withIdentifier: Self.first.peerIdentifier) == nil)
        #expect(try registry.device(at: Self.first) == nil)
        guard case .added = await events.next() else { throw TestFailure("no added event") }
        guard case .rebound(let eventOld, let eventNew)? = await events.next() else { throw TestFailure("no rebound") }
        #expect(eventOld == old && eventNew == new)
    }

    @Test("File: records survive closing and reopening; the IRK column is kept")
    func persistence() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("devices.sqlite").path
        do {
            let registry = try KnownDevices(path: path)
            try registry.observe(
                key: .mac(Self.mac), address: Self.second, identifier: Self.second.peerIdentifier, name: "w")
            try registry.setLabel("mine", forKey: .mac(Self.mac))
            try registry.setIRK(Array(repeating: 0xA5, count: 16), forKey: .mac(Self.mac))
        }
        let reopened = try KnownDevices(path: path)
        let device = try #require(try reopened.device(withIdentifier: Self.second.peerIdentifier))
        #expect(device.key == .mac(Self.mac))
        #expect(device.address == Self.second)
        #expect(device.label == "mine")
        #expect(device.irk == Array(repeating: 0xA5, count: 16))
    }

    @Test("File: a garbage file is a typed error (not a database) and is left byte for byte as it was")
    func garbageFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("devices.sqlite")
        var generator = SystemRandomNumberGenerator()
        let garbage =
            Data("my notes, not a database\n".utf8)
            + Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try garbage.write(to: url)
        #expect {
            _ = try KnownDevices(path: url.path)
        } throws: { error in
            guard case .notADatabase(let path, _) = error as? KnownDevicesError else { return false }
            return path == url.path
        }
        #expect(try Data(contentsOf: url) == garbage)
        // No journal was left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["devices.sqlite"])
    }

    @Test("File: a folder that does not exist is a typed error (cannot open)")
    func unopenable() throws {
        #expect {
            _ = try KnownDevices(path: "/nonexistent-\(UUID().uuidString)/devices.sqlite")
        } throws: { error in
            guard case .cannotOpen = error as? KnownDevicesError else { return false }
            return true
        }
    }

    @Test("File: one written by a newer version (an unknown migration) is refused and not touched")
    func newerSchema() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("devices.sqlite").path
        try KnownDevices(path: path).database.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: KnownDevicesError.newerSchema(path: path)) { _ = try KnownDevices(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("File: a row this version cannot read is a typed error naming the column")
    func corruptRecord() throws {
        let registry = try KnownDevices.inMemory()
        try registry.database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO knownDevice (key, address, addressType, identifier, firstSeen, lastSeen)
                    VALUES ('mac:C4:7C:8D:6A:12:34', 'not an address', 0, ?, 0, 0)
                    """, arguments: [UUID().uuidString])
        }
        #expect(throws: KnownDevicesError.corruptRecord(key: "mac:C4:7C:8D:6A:12:34", column: "address")) {
            _ = try registry.all()
        }
        try registry.database.write { db in
            try db.execute(sql: "UPDATE knownDevice SET address = 'C4:7C:8D:6A:12:34', addressType = 'x'")
        }
        #expect(throws: KnownDevicesError.corruptRecord(key: "mac:C4:7C:8D:6A:12:34", column: "addressType")) {
            _ = try registry.device(forKey: .mac(Self.mac))
        }
    }
}
