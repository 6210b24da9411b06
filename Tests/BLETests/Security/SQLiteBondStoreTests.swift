import BLEHost
import BLETestSupport
import BLEWire
import Foundation
import GRDB
import Testing

@testable import BLE

#if canImport(Glibc)
    import Glibc
#endif

/// A bond with every field set, GATT state included.
enum BondSamples {
    static let centralIdentity = LEAddress(BluetoothAddress(0xC0_00_00_00_00_01), type: .random)
    static let peripheralIdentity = LEAddress(BluetoothAddress(0x00_00_5E_00_53_10), type: .public)

    static func key(_ seed: UInt64) -> SMPKey128 { SMPKey128(high: 0x0123_4567_89AB_CDEF ^ seed, low: seed) }

    static var full: Bond {
        var bond = Bond(
            local: centralIdentity, peer: peripheralIdentity,
            peerLongTermKey: LongTermKey(key: key(1), ediv: 0xBEEF, rand: 0xFEDC_BA98_7654_3210),
            localLongTermKey: LongTermKey(key: key(2), ediv: 7, rand: 1), peerIRK: key(3), peerCSRK: key(4),
            peerSignCounter: 41, localCSRK: key(5), localSignCounter: 9, authenticated: true, secureConnections: false,
            keySize: 12)
        bond.gattClientState = GATTBondedClientState(
            clientConfigurations: [0x0012: 0x0001, 0x0009: 0x0002], clientSupportedFeatures: [0x07],
            isChangeAware: false, databaseHash: Array(0..<16), lastSignCounter: 77)
        bond.gattDatabase = cache
        bond.gattDatabaseHash = Array(repeating: 0xA5, count: 16)
        return bond
    }

    /// A cache with a primary service holding an include, a characteristic with a descriptor,
    /// a 128-bit UUID, and a range still to discover.
    static var cache: GATTDatabaseCache {
        let battery = DiscoveredService(uuid: 0x180F, handleRange: 0x0001...0x0005)
        let custom = DiscoveredService(
            uuid: BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!, handleRange: 0x0010...0x0018,
            isPrimary: false)
        let level = DiscoveredCharacteristic(
            uuid: 0x2A19, declarationHandle: 0x0002, valueHandle: 0x0003, properties: [.read, .notify],
            endHandle: 0x0005)!
        var cache = GATTDatabaseCache()
        cache.store(
            [
                .init(
                    service: battery,
                    includedServices: [
                        DiscoveredIncludedService(handle: 0x0004, includedServiceRange: 0x0010...0x0018, uuid: 0x1234)
                    ],
                    characteristics: [
                        .init(characteristic: level, descriptors: [DiscoveredDescriptor(uuid: 0x2902, handle: 0x0005)])
                    ]),
                .init(service: custom),
            ], discoveredIn: 0x0001...0x0020)
        return cache
    }
}

@Suite("SQLiteBondStore: bonds in a GRDB file (Core 5.4 Vol 3 Part H §2.4.1 bonding, §3.6.1 distributed keys)")
struct SQLiteBondStoreTests {
    let damage = DamagedPaths()

    @Test("Every field of a bond round-trips through the file, GATT state and Database Hash included")
    func roundTrip() throws {
        let path = damage.missing("bonds.sqlite")
        defer { damage.remove() }
        let bond = BondSamples.full
        #expect(BondSamples.cache.staleRanges == [0x0021...0xFFFF])
        do {
            let store = try SQLiteBondStore(path: path)
            try store.save(bond)
        }
        let reopened = try SQLiteBondStore(path: path)
        #expect(try reopened.bonds() == [bond])
        // A bond with nothing optional.
        var bare = Bond(
            local: BondSamples.centralIdentity, peer: LEAddress(BluetoothAddress(0xC1_02_03_04_05_06), type: .random),
            authenticated: false, secureConnections: true, keySize: 16)
        try reopened.save(bare)
        #expect(try reopened.bonds().contains(bare))
        // Saving again replaces.
        bare.keySize = 7
        try reopened.save(bare)
        #expect(try reopened.bonds().filter { $0.peer == bare.peer } == [bare])
    }

    @Test("Bonds are keyed by (local identity, peer identity): one peer under two local identities is two bonds")
    func keyedByBothIdentities() throws {
        let store = try SQLiteBondStore.inMemory()
        var first = BondSamples.full
        var second = BondSamples.full
        second.local = LEAddress(BluetoothAddress(0x00_11_22_33_44_55), type: .public)
        second.keySize = 16
        try store.save(first)
        try store.save(second)
        #expect(try store.bonds().count == 2)
        #expect(try store.remove(local: first.local, peer: first.peer))
        #expect(try !store.remove(local: first.local, peer: first.peer))
        #expect(try store.bonds() == [second])
        first.peer = LEAddress(first.peer.address, type: .random)
        try store.save(first)
        #expect(try store.bonds().count == 2, "the address type is part of the identity")
    }

    @Test("This host's IRK is kept (Vol 3 Part H §2.4.2.1): nil until saved, then the same key")
    func localIdentity() throws {
        let path = damage.missing("identity.sqlite")
        defer { damage.remove() }
        #expect(try SQLiteBondStore(path: path).localIdentity() == nil)
        try SQLiteBondStore(path: path).saveLocalIdentity(BondSamples.key(9))
        #expect(try SQLiteBondStore(path: path).localIdentity() == BondSamples.key(9))
    }

    @Test("A new file is created with mode 0600; a looser mode is brought back to 0600 on open")
    func ownerOnly() throws {
        let path = damage.missing("mode.sqlite")
        defer { damage.remove() }
        let previous = umask(0o022)
        defer { umask(previous) }
        try SQLiteBondStore(path: path).save(BondSamples.full)
        #expect(try mode(path) == 0o600)
        chmod(path, 0o644)
        _ = try SQLiteBondStore(path: path)
        #expect(try mode(path) == 0o600)
    }

    @Test("An empty file is migrated into a bond store (v1), keeping nothing but what is saved")
    func migratesEmptyFile() throws {
        let path = damage.missing("empty.sqlite")
        defer { damage.remove() }
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let store = try SQLiteBondStore(path: path)
        #expect(try store.bonds().isEmpty)
        let migrations = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(migrations == ["v1: bonds and this host's IRK"])
    }

    @Test("A file that is not SQLite is .damaged and left byte for byte as it was")
    func notSQLite() throws {
        let path = damage.missing("text.sqlite")
        defer { damage.remove() }
        let text = Data(repeating: 0x41, count: 4096)
        #expect(FileManager.default.createFile(atPath: path, contents: text, attributes: [.posixPermissions: 0o644]))
        #expect(throws: BondStoreError.self) { try SQLiteBondStore(path: path) }
        do {
            _ = try SQLiteBondStore(path: path)
        } catch {
            guard case .damaged(let reported, let reason) = error else {
                Issue.record("not .damaged: \(error)")
                return
            }
            #expect(reported == path)
            #expect(reason.contains("not an SQLite database"))
        }
        #expect(FileManager.default.contents(atPath: path) == text)
        #expect(try mode(path) == 0o644)
    }

    @Test("A file from a newer version (an unknown migration) is .damaged and not migrated")
    func newerSchema() throws {
        let path = damage.missing("newer.sqlite")
        defer { damage.remove() }
        _ = try SQLiteBondStore(path: path)
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: from the future')")
        }
        #expect {
            try SQLiteBondStore(path: path)
        } throws: { error in
            guard case .damaged(_, let reason) = error as? BondStoreError else { return false }
            return reason.contains("newer version")
        }
    }

    @Test("Damaged rows — a key of the wrong length, a bad flag, a bad GATT blob — are .damaged, never a trap")
    func damagedRows() throws {
        let path = damage.missing("rows.sqlite")
        defer { damage.remove() }
        let damages = [
            "UPDATE bond SET peerIRK = x'0102'", "UPDATE bond SET authenticated = 5", "UPDATE bond SET keySize = 40",
            "UPDATE bond SET peerEDIV = 70000", "UPDATE bond SET localType = 2", "UPDATE bond SET peerAddress = 'x'",
            "UPDATE bond SET gattDatabase = x'01FFFF'", "UPDATE bond SET gattClientState = x'02'",
            "UPDATE bond SET gattClientState = 'text'", "UPDATE bond SET localSignCounter = -1",
        ]
        for statement in damages {
            try? FileManager.default.removeItem(atPath: path)
            try SQLiteBondStore(path: path).save(BondSamples.full)
            try DatabaseQueue(path: path).write { try $0.execute(sql: statement) }
            #expect(Comment(rawValue: statement)) {
                try SQLiteBondStore(path: path).bonds()
            } throws: { error in
                if case .damaged = error as? BondStoreError { return true }
                return false
            }
        }
        try? FileManager.default.removeItem(atPath: path)
        try SQLiteBondStore(path: path).saveLocalIdentity(BondSamples.key(1))
        try DatabaseQueue(path: path).write { try $0.execute(sql: "UPDATE localIdentity SET irk = x'00'") }
        #expect(throws: BondStoreError.self) { try SQLiteBondStore(path: path).localIdentity() }
    }

    @Test("Every damaged path (directory, FIFO, device, link loop, dangling link, below a file) is .cannotOpen")
    func damagedPaths() throws {
        defer { damage.remove() }
        for kind in DamagedPaths.Damage.allCases {
            let path = damage.make(kind, at: damage.missing("\(kind)"))
            #expect(Comment(rawValue: "\(kind)")) {
                try SQLiteBondStore(path: path)
            } throws: { error in
                if case .cannotOpen(let reported, _) = error as? BondStoreError { return reported == path }
                return false
            }
        }
    }

    @Test("Every truncation of the GATT blobs is a DecodeError (untrusted bytes, never a trap)")
    func truncatedBlobs() throws {
        let state = BondBlobs.encode(BondSamples.full.gattClientState!)
        let cache = BondBlobs.encode(BondSamples.cache)
        #expect(try BondBlobs.clientState(state) == BondSamples.full.gattClientState)
        #expect(try BondBlobs.databaseCache(cache) == BondSamples.cache)
        for length in 0..<state.count {
            #expect(throws: DecodeError.self) { try BondBlobs.clientState(Array(state.prefix(length))) }
        }
        for length in 0..<cache.count {
            #expect(throws: DecodeError.self) { try BondBlobs.databaseCache(Array(cache.prefix(length))) }
        }
        #expect(throws: DecodeError.self) { try BondBlobs.databaseCache(cache + [0]) }
        // Overlapping services are not a cache the store wrote.
        // (format, stale count, one stale range, service count, primary, start: the first
        // service's end handle, low octet first, follows.)
        var overlapping = cache
        let firstServiceEnd = 1 + 2 + 4 + 2 + 1 + 2
        overlapping[firstServiceEnd] = 0x12
        #expect(throws: DecodeError.self) { try BondBlobs.databaseCache(overlapping) }
    }

    private func mode(_ path: String) throws -> mode_t {
        var status = stat()
        guard stat(path, &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return status.st_mode & 0o777
    }
}
