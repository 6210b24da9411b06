import Foundation
import GRDB

/// The restoration store's tables, built by numbered migrations (GRDB's `DatabaseMigrator`,
/// recorded in `grdb_migrations`); a released migration never changes — a new one is added.
///
/// One row per app, holding its whole `RestorationRecord` in its Codable (JSON) form, with the
/// form's version beside it. Why not a table per part (centrals, peripherals, subscriptions,
/// peripheral managers, subscribed centrals): the record is a small tree that is always read and
/// written whole, per app, in one transaction, and no query ever looks inside it; five tables
/// would add joins and a schema migration for every field Core Bluetooth's restoration grows,
/// where a new `format` (read by this file, written by the next) is enough. The database still
/// gives what a file of JSON would not: atomic replacement under a concurrent reader, a
/// damaged file told from an empty one, and migrations.
enum RestorationStoreSchema {
    static let table = "restorationRecord"
    /// The version of the Codable form in the `record` column this build writes and reads.
    static let format = 1

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: restoration records") { db in
            try db.create(table: table) { t in
                // The app's bundle identifier.
                t.column("app", .text).primaryKey()
                // The version of the record's encoding (`format`).
                t.column("format", .integer).notNull()
                // `RestorationRecord` as JSON (UTF-8).
                t.column("record", .blob).notNull()
                // When it was saved (seconds since 1970), for a person reading the file.
                t.column("savedAt", .double).notNull()
            }
        }
        return migrator
    }

    static func save(_ record: RestorationRecord, for app: String, at date: Date, in db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let encoded = try encoder.encode(record)
        try db.execute(
            sql: """
                INSERT INTO restorationRecord (app, format, record, savedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT(app) DO UPDATE SET format = excluded.format, record = excluded.record,
                    savedAt = excluded.savedAt
                """,
            arguments: [app, format, encoded, date.timeIntervalSince1970])
    }

    /// The row's record; a format or an encoding this version cannot read is a typed error
    /// (the row is left as it is).
    static func record(_ row: Row, app: String, path: String) throws(RestorationStoreError) -> RestorationRecord {
        func unreadable(_ detail: String) -> RestorationStoreError {
            .unreadableRecord(path: path, app: app, detail: detail)
        }
        guard let stored = row["format"] as DatabaseValue?, let version = Int64.fromDatabaseValue(stored) else {
            throw unreadable("no format version")
        }
        guard version == Int64(format) else {
            throw unreadable("format \(version), this version reads format \(format)")
        }
        guard let value = row["record"] as DatabaseValue?, let bytes = Data.fromDatabaseValue(value) else {
            throw unreadable("the record column holds no data")
        }
        do {
            return try JSONDecoder().decode(RestorationRecord.self, from: bytes)
        } catch {
            throw unreadable("\(error)")
        }
    }
}
