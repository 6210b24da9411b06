import BLE
import BLEWire
import Foundation
import GRDB

/// The registry's tables, built by numbered migrations (GRDB's `DatabaseMigrator` records which
/// ran in `grdb_migrations`); a migration, once released, never changes — a new one is added.
enum KnownDevicesSchema {
    static let table = "knownDevice"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: known devices") { db in
            try db.create(table: table) { t in
                // `mac:…`, `public:…`, `static:…` or `irk:…` (DeviceKey.storageKey).
                t.column("key", .text).primaryKey()
                t.column("address", .text).notNull()
                // The HCI address type octet (Core 5.4 Vol 4 Part E §7.7.65.1).
                t.column("addressType", .integer).notNull()
                t.column("identifier", .text).notNull().indexed()
                t.column("name", .text)
                t.column("firstSeen", .double).notNull()
                t.column("lastSeen", .double).notNull()
                t.column("label", .text)
                // Filled once pairing gives the device's IRK.
                t.column("irk", .blob)
            }
            try db.create(index: "knownDevice_address", on: table, columns: ["address", "addressType"])
        }
        return migrator
    }

    static func arguments(_ device: KnownDevice) -> StatementArguments {
        [
            "key": device.key.storageKey, "address": device.address.address.description,
            "addressType": Int(device.address.type.rawValue), "identifier": device.identifier.uuidString,
            "name": device.name, "firstSeen": device.firstSeen.timeIntervalSince1970,
            "lastSeen": device.lastSeen.timeIntervalSince1970, "label": device.label,
            "irk": device.irk.map { Data($0) },
        ]
    }

    static func save(_ device: KnownDevice, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO knownDevice (key, address, addressType, identifier, name, firstSeen, lastSeen, label, irk)
                VALUES (:key, :address, :addressType, :identifier, :name, :firstSeen, :lastSeen, :label, :irk)
                ON CONFLICT(key) DO UPDATE SET address = :address, addressType = :addressType,
                    identifier = :identifier, name = :name, firstSeen = :firstSeen, lastSeen = :lastSeen,
                    label = :label, irk = :irk
                """, arguments: arguments(device))
    }

    /// The records a query selects, most recently seen first.
    static func fetch(_ db: Database, where condition: String, _ arguments: StatementArguments) throws
        -> [KnownDevice]
    {
        let rows = try Row.fetchAll(
            db, sql: "SELECT * FROM knownDevice WHERE \(condition) ORDER BY lastSeen DESC, key", arguments: arguments)
        return try rows.map(device)
    }

    /// A row as a record; a value this version cannot read is a typed error naming its column
    /// (GRDB's typed subscripts would trap on a mismatch, so values are converted by hand).
    static func device(_ row: Row) throws(KnownDevicesError) -> KnownDevice {
        func value<T: DatabaseValueConvertible>(_ column: String) -> T? {
            guard let stored = row[column] as DatabaseValue?, !stored.isNull else { return nil }
            return T.fromDatabaseValue(stored)
        }
        let keyText: String = value("key") ?? ""
        func bad(_ column: String) -> KnownDevicesError { .corruptRecord(key: keyText, column: column) }
        guard let key = DeviceKey(storageKey: keyText) else { throw bad("key") }
        guard let addressText: String = value("address"), let address = BluetoothAddress(addressText) else {
            throw bad("address")
        }
        guard let typeValue: Int64 = value("addressType"), let type = UInt8(exactly: typeValue) else {
            throw bad("addressType")
        }
        guard let identifierText: String = value("identifier"), let identifier = UUID(uuidString: identifierText)
        else { throw bad("identifier") }
        guard let firstSeen: Double = value("firstSeen"), let lastSeen: Double = value("lastSeen") else {
            throw bad("firstSeen/lastSeen")
        }
        let irk: Data? = value("irk")
        return KnownDevice(
            key: key, address: LEAddress(address, type: AddressType(rawValue: type)), identifier: identifier,
            name: value("name"), firstSeen: Date(timeIntervalSince1970: firstSeen),
            lastSeen: Date(timeIntervalSince1970: lastSeen), label: value("label"), irk: irk.map { Array($0) })
    }
}
