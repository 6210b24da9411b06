import BLEHost
import BLETransport
import BLEWire
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// Bonds in an SQLite file (GRDB), readable and writable by its owner only: the keys in it let
/// whoever reads them impersonate either device (Core 5.4 Vol 3 Part H §2.4: an LTK, IRK or CSRK
/// is a secret), so the file is created with mode 0600 and an existing file with a looser mode is
/// brought back to 0600 when opened.
///
/// One row per bond, keyed by `(local identity, peer identity)`; this host's own IRK in a
/// table of its own (`localIdentity()`). The tables are built by numbered migrations (GRDB's
/// `DatabaseMigrator`, recorded in `grdb_migrations`); a released migration never changes, a
/// new one is added. Keys are stored as 16-octet BLOBs most significant octet first (the
/// order the specification prints them in); EDIV, Rand and SignCounters as integers (Rand's 64
/// bits as SQLite's signed integer, bit for bit); the GATT state in the binary forms of
/// `BondBlobs`.
///
/// A file that is not a bond store is never changed: not SQLite, damaged pages, migrations of a
/// newer version or a row this version cannot read are `BondStoreError.damaged`; a path that is
/// not a regular file (a directory, a FIFO, a device, a link loop or a dangling link) or cannot
/// be opened is `.cannotOpen`.
///
/// Calls are synchronous and short (one transaction each), as `BondStore` asks.
public final class SQLiteBondStore: BondStore {
    let database: DatabaseQueue
    /// Where the store lives ("in memory" for an in-memory one).
    public let path: String

    /// Opens the store at `path`, creating it (mode 0600) when there is none and migrating an
    /// older one.
    public convenience init(path: String) throws(BondStoreError) {
        // SQLite would open a FIFO and wait on it, and take a device for a file: only a regular
        // file, or nothing (then created), is opened.
        do {
            try FileAccess.checkReplaceable(path)
        } catch {
            throw .cannotOpen(path: path, reason: error.reason)
        }
        try Self.createOwnerOnly(path)
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: path)
        } catch {
            throw Self.failure(error, path: path, opening: true)
        }
        try self.init(database: database, path: path)
        // Only once the file proved to be a bond store: anything else is left as it was.
        try Self.restrictMode(path)
    }

    /// A store in memory, gone with the value: for tests.
    public static func inMemory() throws(BondStoreError) -> SQLiteBondStore {
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue()
        } catch {
            throw failure(error, path: "in memory", opening: true)
        }
        return try SQLiteBondStore(database: database, path: "in memory")
    }

    private init(database: DatabaseQueue, path: String) throws(BondStoreError) {
        let migrator = BondStoreSchema.migrator
        do {
            // Checked before migrating: a newer file must not be touched.
            if try database.read({ try migrator.hasBeenSuperseded($0) }) {
                throw BondStoreError.damaged(
                    path: path, reason: "written by a newer version of swift-ble (unknown migrations)")
            }
            try migrator.migrate(database)
        } catch {
            throw Self.failure(error, path: path, opening: true)
        }
        self.database = database
        self.path = path
    }

    // MARK: BondStore

    public func bonds() throws(BondStoreError) -> [Bond] {
        let rows = try read { db in try Row.fetchAll(db, sql: "SELECT * FROM bond ORDER BY \(BondStoreSchema.order)") }
        var bonds: [Bond] = []
        for row in rows { bonds.append(try BondStoreSchema.bond(row, path: path)) }
        return bonds
    }

    public func save(_ bond: Bond) throws(BondStoreError) {
        try write { db in try BondStoreSchema.save(bond, in: db) }
    }

    @discardableResult
    public func remove(local: LEAddress, peer: LEAddress) throws(BondStoreError) -> Bool {
        try write { db in
            try db.execute(
                sql: "DELETE FROM bond WHERE \(BondStoreSchema.keyCondition)",
                arguments: BondStoreSchema.key(local: local, peer: peer))
            return db.changesCount > 0
        }
    }

    public func localIdentity() throws(BondStoreError) -> SMPKey128? {
        let stored = try read { db in try Data.fetchOne(db, sql: "SELECT irk FROM localIdentity WHERE id = 1") }
        guard let stored else { return nil }
        guard let key = SMPKey128(storedOctets: Array(stored)) else {
            throw .damaged(path: path, reason: "this host's IRK is \(stored.count) octets, not 16")
        }
        return key
    }

    public func saveLocalIdentity(_ irk: SMPKey128) throws(BondStoreError) {
        try write { db in
            try db.execute(
                sql: "INSERT INTO localIdentity (id, irk) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET irk = excluded.irk",
                arguments: [Data(irk.bigEndianOctets)])
        }
    }

    // MARK: The file

    /// Creates an empty file (an empty SQLite database) readable by its owner only when there
    /// is none. SQLite gives its journal the database file's mode.
    private static func createOwnerOnly(_ path: String) throws(BondStoreError) {
        guard !FileAccess.entryExists(path) else { return }
        do {
            // The process's umask can only take bits away from 0600.
            close(try FileAccess.openForWriting(path, truncate: false, mode: 0o600))
        } catch {
            throw .cannotOpen(path: path, reason: error.reason)
        }
    }

    /// Brings a bond store whose mode lets others in (group or world bits) back to 0600.
    private static func restrictMode(_ path: String) throws(BondStoreError) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        guard status.st_mode & 0o077 != 0 else { return }
        guard chmod(path, 0o600) == 0 else {
            throw .cannotOpen(
                path: path, reason: "its mode \(String(status.st_mode & 0o777, radix: 8)) lets others read it; "
                    + "it cannot be set to 600: \(String(cString: strerror(errno)))")
        }
    }

    // MARK: Transactions

    private func read<T>(_ body: (Database) throws -> T) throws(BondStoreError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw Self.failure(error, path: path, opening: false)
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(BondStoreError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw Self.failure(error, path: path, opening: false)
        }
    }

    /// An SQLite failure in the store's terms.
    static func failure(_ error: any Error, path: String, opening: Bool) -> BondStoreError {
        if let error = error as? BondStoreError { return error }
        guard let error = error as? DatabaseError else { return .io("\(error)") }
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode.primaryResultCode {
        case .SQLITE_NOTADB: return .damaged(path: path, reason: "not an SQLite database (\(detail))")
        case .SQLITE_CORRUPT: return .damaged(path: path, reason: "damaged pages (\(detail))")
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return opening ? .cannotOpen(path: path, reason: detail) : .io(detail)
        default: return .io(detail)
        }
    }
}
