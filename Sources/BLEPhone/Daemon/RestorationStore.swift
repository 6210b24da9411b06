import BLETransport
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// Where a daemon keeps its apps' restoration records between processes: an SQLite file
/// (GRDB) with one row per app (`RestorationStoreSchema` says why a row holds the record's
/// Codable form). What iOS's bluetoothd keeps for an app across its death, this file keeps
/// across the death of the whole process.
///
/// The file is created readable and writable by its owner only (0600; it names the user's
/// devices), and an existing one with a looser mode is brought back to 0600 once it proved to
/// be a restoration store. A file that is not one is never changed: not SQLite or damaged pages
/// are `.notADatabase`, migrations of a newer version `.newerSchema`, a path that is not a
/// regular file or cannot be opened `.cannotOpen` — each naming the file.
///
/// Calls are synchronous and short (one transaction each): a save returns once the record is
/// in the file, so a process killed after it loses nothing.
package final class RestorationStore: Sendable {
    let database: DatabaseQueue
    /// Where the store lives ("in memory" for an in-memory one).
    package let path: String
    private let now: @Sendable () -> Date

    /// Opens the store at `path`, creating it (mode 0600) when there is none and migrating an
    /// older one.
    package convenience init(path: String, now: @escaping @Sendable () -> Date = { Date() })
        throws(RestorationStoreError)
    {
        // SQLite would open a FIFO and wait on it, and take a device for a file: only a regular
        // file, or nothing (then created), is opened.
        do {
            try FileAccess.checkReplaceable(path)
        } catch {
            throw .cannotOpen(path: path, detail: error.reason)
        }
        try Self.createOwnerOnly(path)
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: path)
        } catch {
            throw RestorationStoreError.from(error, path: path, opening: true)
        }
        try self.init(database: database, path: path, now: now)
        // Only once the file proved to be a restoration store: anything else is left as it was.
        try Self.restrictMode(path)
    }

    /// A store in memory, gone with the value: for tests.
    package static func inMemory() throws(RestorationStoreError) -> RestorationStore {
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue()
        } catch {
            throw RestorationStoreError.from(error, path: "in memory", opening: true)
        }
        return try RestorationStore(database: database, path: "in memory", now: { Date() })
    }

    private init(database: DatabaseQueue, path: String, now: @escaping @Sendable () -> Date)
        throws(RestorationStoreError)
    {
        let migrator = RestorationStoreSchema.migrator
        do {
            // Checked before migrating: a newer file must not be touched.
            if try database.read({ try migrator.hasBeenSuperseded($0) }) {
                throw RestorationStoreError.newerSchema(path: path)
            }
            try migrator.migrate(database)
        } catch {
            throw RestorationStoreError.from(error, path: path, opening: true)
        }
        self.database = database
        self.path = path
        self.now = now
    }

    /// The record saved for `app`, or nil when there is none.
    package func record(for app: AppIdentifier) throws(RestorationStoreError) -> RestorationRecord? {
        let row: Row?
        do {
            row = try database.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT format, record FROM restorationRecord WHERE app = ?",
                    arguments: [app.bundleIdentifier])
            }
        } catch {
            throw RestorationStoreError.from(error, path: path, opening: false)
        }
        guard let row else { return nil }
        return try RestorationStoreSchema.record(row, app: app.bundleIdentifier, path: path)
    }

    /// Saves `record` as `app`'s, replacing the one before; nil (nothing preserved) removes it.
    package func save(_ record: RestorationRecord?, for app: AppIdentifier) throws(RestorationStoreError) {
        let date = now()
        do {
            try database.write { db in
                if let record {
                    try RestorationStoreSchema.save(record, for: app.bundleIdentifier, at: date, in: db)
                } else {
                    try db.execute(sql: "DELETE FROM restorationRecord WHERE app = ?", arguments: [app.bundleIdentifier])
                }
            }
        } catch {
            throw RestorationStoreError.from(error, path: path, opening: false)
        }
    }

    // MARK: The file

    /// Creates an empty file (an empty SQLite database) readable by its owner only when there
    /// is none. SQLite gives its journal the database file's mode.
    private static func createOwnerOnly(_ path: String) throws(RestorationStoreError) {
        guard !FileAccess.entryExists(path) else { return }
        do {
            // The process's umask can only take bits away from 0600.
            close(try FileAccess.openForWriting(path, truncate: false, mode: 0o600))
        } catch {
            throw .cannotOpen(path: path, detail: error.reason)
        }
    }

    /// Brings a store whose mode lets others in (group or world bits) back to 0600.
    private static func restrictMode(_ path: String) throws(RestorationStoreError) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        guard status.st_mode & 0o077 != 0 else { return }
        guard chmod(path, 0o600) == 0 else {
            throw .cannotOpen(
                path: path,
                detail: "its mode \(String(status.st_mode & 0o777, radix: 8)) lets others read it; "
                    + "it cannot be set to 600: \(String(cString: strerror(errno)))")
        }
    }
}
