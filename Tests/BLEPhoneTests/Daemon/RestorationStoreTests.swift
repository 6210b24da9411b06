import BLETestSupport
import Foundation
import GRDB
import Testing

@testable import BLEPhone

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's restoration record on disk (`RestorationStore`): a GRDB file with migrations,
/// mode 0600, typed errors for a file that is not one, nothing of such a file touched.
@Suite("RestorationStore: the daemon's record in an SQLite file")
struct RestorationStoreTests {
    static let app = AppIdentifier("com.example.headset")
    static let headset = UUID(uuidString: "6E400001-0000-4000-8000-00005E005341")!

    /// A record with every part filled: a scan, a connected and a pending peripheral, a
    /// subscription, a peripheral manager with its advertising and a subscribed central.
    static let record = RestorationRecord(
        backgroundModes: [.bluetoothCentral, .bluetoothPeripheral],
        centrals: [
            RestorationRecord.Central(
                restoreIdentifier: "headset-central",
                scan: RestorationRecord.Scan(services: ["180D"], options: PhoneScanOptions()),
                peripherals: [
                    RestorationRecord.Peripheral(
                        identifier: headset, state: .connected, options: PhoneConnectOptions(notifyOnDisconnection: true)),
                    RestorationRecord.Peripheral(identifier: UUID(), state: .connecting),
                ],
                subscriptions: [
                    RestorationRecord.Subscription(
                        peripheral: headset, service: "180D", characteristic: "2A37", valueHandle: 0x0012)
                ])
        ],
        peripheralManagers: [
            RestorationRecord.PeripheralManager(
                restoreIdentifier: "server", services: ["180F"], localName: "phone", advertisedServiceUUIDs: ["180F"],
                subscribedCentrals: [RestorationRecord.SubscribedCentral(central: UUID(), characteristic: "2A19", valueHandle: 3)])
        ])

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ble-restoration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("Round trip: a record saved is the record read back, by a new store on the same file")
    func roundTrip() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("restoration.sqlite").path
        do {
            let store = try RestorationStore(path: path)
            #expect(try store.record(for: Self.app) == nil)
            try store.save(Self.record, for: Self.app)
        }
        let reopened = try RestorationStore(path: path)
        #expect(try reopened.record(for: Self.app) == Self.record)
        #expect(try reopened.record(for: AppIdentifier("com.example.other")) == nil)
    }

    @Test("A save replaces the app's record; saving nil (nothing preserved) removes it")
    func replaceAndRemove() throws {
        let store = try RestorationStore.inMemory()
        try store.save(Self.record, for: Self.app)
        var changed = Self.record
        changed.centrals[0].peripherals[0].state = .connecting
        changed.centrals[0].subscriptions = []
        try store.save(changed, for: Self.app)
        #expect(try store.record(for: Self.app) == changed)
        try store.save(nil, for: Self.app)
        #expect(try store.record(for: Self.app) == nil)
        let rows = try store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM restorationRecord") }
        #expect(rows == 0)
    }

    @Test("A new file is created with mode 0600; a looser one is brought back to 0600")
    func ownerOnly() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("restoration.sqlite").path
        try RestorationStore(path: path).save(Self.record, for: Self.app)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        chmod(path, 0o644)
        _ = try RestorationStore(path: path)
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test("A file that is not SQLite is a typed error naming it, and is left byte for byte as it was")
    func notADatabase() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("restoration.sqlite")
        let garbage = Data("not a database, my notes\n".utf8) + Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: url)
        chmod(url.path, 0o644)
        #expect {
            _ = try RestorationStore(path: url.path)
        } throws: { error in
            guard case .notADatabase(let path, _) = error as? RestorationStoreError else { return false }
            return path == url.path && "\(error)".contains(url.path)
        }
        #expect(try Data(contentsOf: url) == garbage)
        var status = stat()
        #expect(stat(url.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["restoration.sqlite"])
    }

    @Test("A store with damaged pages is a typed error, and is left as it was")
    func damagedPages() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("restoration.sqlite")
        try RestorationStore(path: url.path).save(Self.record, for: Self.app)
        // The header stays (it is SQLite), every page after the first is overwritten.
        var bytes = try Data(contentsOf: url)
        #expect(bytes.count > 4096)
        for index in 4096..<bytes.count { bytes[index] = 0xA5 }
        try bytes.write(to: url)
        #expect {
            let store = try RestorationStore(path: url.path)
            _ = try store.record(for: Self.app)
        } throws: { error in
            guard case .notADatabase(let path, _) = error as? RestorationStoreError else { return false }
            return path == url.path
        }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test("A file written by a newer version (an unknown migration) is refused and not touched")
    func newerSchema() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("restoration.sqlite").path
        try RestorationStore(path: path).database.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: RestorationStoreError.newerSchema(path: path)) { _ = try RestorationStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("A record of a newer format, or one that does not decode, is a typed error naming the app; the row stays")
    func unreadableRecord() throws {
        let store = try RestorationStore.inMemory()
        try store.save(Self.record, for: Self.app)
        try store.database.write { db in try db.execute(sql: "UPDATE restorationRecord SET format = 2") }
        #expect {
            _ = try store.record(for: Self.app)
        } throws: { error in
            guard case .unreadableRecord(_, let app, let detail) = error as? RestorationStoreError else { return false }
            return app == Self.app.bundleIdentifier && detail.contains("format 2")
        }
        try store.database.write { db in
            try db.execute(sql: "UPDATE restorationRecord SET format = 1, record = ?", arguments: [Data("{\"centrals\": 3}".utf8)])
        }
        #expect {
            _ = try store.record(for: Self.app)
        } throws: { error in
            guard case .unreadableRecord = error as? RestorationStoreError else { return false }
            return true
        }
        let rows = try store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM restorationRecord") }
        #expect(rows == 1)
    }

    @Test("Paths that are not a file (a directory, a FIFO, a device, a link loop, …) are typed errors, untouched")
    func damagedPaths() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        for damage in DamagedPaths.Damage.allCases {
            let path = paths.make(damage, at: paths.missing("\(damage)"))
            #expect(throws: RestorationStoreError.self, "\(damage)") { _ = try RestorationStore(path: path) }
        }
        // The FIFO is still a FIFO, the directory still empty.
        var status = stat()
        #expect(stat(paths.missing("fifo"), &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: paths.missing("directory")).isEmpty)
    }
}
