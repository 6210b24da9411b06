import BLEHost
import BLEWire
import Foundation
import GRDB

/// The bond store's tables, built by numbered migrations; a migration, once released, never
/// changes — a new one is added.
enum BondStoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: bonds and this host's IRK") { db in
            try db.create(table: "bond") { t in
                // Identity addresses as text (F0:F1:…) and their HCI address type octet (0x00
                // public, 0x01 random static; Core 5.4 Vol 4 Part E §7.7.65.1).
                t.column("localAddress", .text).notNull()
                t.column("localType", .integer).notNull()
                t.column("peerAddress", .text).notNull()
                t.column("peerType", .integer).notNull()
                // Keys: 16 octets, most significant first. EDIV and Rand name legacy LTKs
                // (Vol 3 Part H §3.6.2–§3.6.3); Rand's 64 bits as a signed integer.
                t.column("peerLTK", .blob)
                t.column("peerEDIV", .integer)
                t.column("peerRand", .integer)
                t.column("localLTK", .blob)
                t.column("localEDIV", .integer)
                t.column("localRand", .integer)
                t.column("peerIRK", .blob)
                t.column("peerCSRK", .blob)
                t.column("peerSignCounter", .integer)
                t.column("localCSRK", .blob)
                t.column("localSignCounter", .integer).notNull()
                t.column("authenticated", .boolean).notNull()
                t.column("secureConnections", .boolean).notNull()
                t.column("keySize", .integer).notNull()
                // BondBlobs' forms.
                t.column("gattClientState", .blob)
                t.column("gattDatabase", .blob)
                t.column("gattDatabaseHash", .blob)
                t.primaryKey(["localAddress", "localType", "peerAddress", "peerType"])
            }
            try db.create(table: "localIdentity") { t in
                t.column("id", .integer).primaryKey().check { $0 == 1 }
                t.column("irk", .blob).notNull()
            }
        }
        return migrator
    }

    static let order = "localAddress, localType, peerAddress, peerType"
    static let keyCondition = "localAddress = :localAddress AND localType = :localType "
        + "AND peerAddress = :peerAddress AND peerType = :peerType"

    static func key(local: LEAddress, peer: LEAddress) -> StatementArguments {
        [
            "localAddress": local.address.description, "localType": Int(local.type.rawValue),
            "peerAddress": peer.address.description, "peerType": Int(peer.type.rawValue),
        ]
    }

    static func save(_ bond: Bond, in db: Database) throws {
        var arguments = key(local: bond.local, peer: bond.peer)
        let values: [String: (any DatabaseValueConvertible)?] = [
            "peerLTK": bond.peerLongTermKey.map { Data($0.key.bigEndianOctets) },
            "peerEDIV": bond.peerLongTermKey.map { Int($0.ediv) },
            "peerRand": bond.peerLongTermKey.map { Int64(bitPattern: $0.rand) },
            "localLTK": bond.localLongTermKey.map { Data($0.key.bigEndianOctets) },
            "localEDIV": bond.localLongTermKey.map { Int($0.ediv) },
            "localRand": bond.localLongTermKey.map { Int64(bitPattern: $0.rand) },
            "peerIRK": bond.peerIRK.map { Data($0.bigEndianOctets) },
            "peerCSRK": bond.peerCSRK.map { Data($0.bigEndianOctets) },
            "peerSignCounter": bond.peerSignCounter.map { Int64($0) },
            "localCSRK": bond.localCSRK.map { Data($0.bigEndianOctets) },
            "localSignCounter": Int64(bond.localSignCounter),
            "authenticated": bond.authenticated, "secureConnections": bond.secureConnections,
            "keySize": bond.keySize,
            "gattClientState": bond.gattClientState.map { Data(BondBlobs.encode($0)) },
            "gattDatabase": bond.gattDatabase.map { Data(BondBlobs.encode($0)) },
            "gattDatabaseHash": bond.gattDatabaseHash.map { Data($0) },
        ]
        arguments += StatementArguments(values)
        let columns = ["localAddress", "localType", "peerAddress", "peerType"] + values.keys.sorted()
        let updates = values.keys.sorted().map { "\($0) = :\($0)" }.joined(separator: ", ")
        try db.execute(
            sql: """
                INSERT INTO bond (\(columns.joined(separator: ", ")))
                VALUES (\(columns.map { ":" + $0 }.joined(separator: ", ")))
                ON CONFLICT(localAddress, localType, peerAddress, peerType) DO UPDATE SET \(updates)
                """, arguments: arguments)
    }

    /// A row as a bond; a value this version cannot read is `.damaged`, naming the bond and the
    /// column (GRDB's typed subscripts would trap on a mismatch, so values are converted by hand).
    static func bond(_ row: Row, path: String) throws(BondStoreError) -> Bond {
        func value<T: DatabaseValueConvertible>(_ column: String) -> T? {
            guard let stored = row[column] as DatabaseValue?, !stored.isNull else { return nil }
            return T.fromDatabaseValue(stored)
        }
        func isNull(_ column: String) -> Bool { (row[column] as DatabaseValue?)?.isNull ?? true }
        let name = "\(value("peerAddress") ?? "?") of \(value("localAddress") ?? "?")"
        func bad(_ column: String) -> BondStoreError {
            .damaged(path: path, reason: "the bond with \(name) has an unreadable \(column)")
        }
        func address(_ prefix: String) throws(BondStoreError) -> LEAddress {
            guard let text: String = value(prefix + "Address"), let address = BluetoothAddress(text) else {
                throw bad(prefix + "Address")
            }
            guard let type: Int64 = value(prefix + "Type"), type == 0 || type == 1 else { throw bad(prefix + "Type") }
            return LEAddress(address, type: AddressType(rawValue: UInt8(type)))
        }
        func key(_ column: String) throws(BondStoreError) -> SMPKey128? {
            if isNull(column) { return nil }
            guard let data: Data = value(column), let key = SMPKey128(storedOctets: Array(data)) else { throw bad(column) }
            return key
        }
        func longTermKey(_ prefix: String) throws(BondStoreError) -> LongTermKey? {
            guard let key = try key(prefix + "LTK") else { return nil }
            guard let ediv: Int64 = value(prefix + "EDIV"), let ediv = UInt16(exactly: ediv) else {
                throw bad(prefix + "EDIV")
            }
            guard let rand: Int64 = value(prefix + "Rand") else { throw bad(prefix + "Rand") }
            return LongTermKey(key: key, ediv: ediv, rand: UInt64(bitPattern: rand))
        }
        func counter(_ column: String) throws(BondStoreError) -> UInt32? {
            if isNull(column) { return nil }
            guard let stored: Int64 = value(column), let counter = UInt32(exactly: stored) else { throw bad(column) }
            return counter
        }
        func flag(_ column: String) throws(BondStoreError) -> Bool {
            guard let stored: Int64 = value(column), stored == 0 || stored == 1 else { throw bad(column) }
            return stored == 1
        }
        func blob<T>(_ column: String, _ decode: ([UInt8]) throws(DecodeError) -> T) throws(BondStoreError) -> T? {
            if isNull(column) { return nil }
            guard let data: Data = value(column) else { throw bad(column) }
            do {
                return try decode(Array(data))
            } catch {
                throw .damaged(path: path, reason: "the bond with \(name) has an unreadable \(column): \(error)")
            }
        }
        guard let keySize: Int64 = value("keySize"), (7...16).contains(keySize) else { throw bad("keySize") }
        guard let localSignCounter = try counter("localSignCounter") else { throw bad("localSignCounter") }
        var bond = Bond(
            local: try address("local"), peer: try address("peer"), peerLongTermKey: try longTermKey("peer"),
            localLongTermKey: try longTermKey("local"), peerIRK: try key("peerIRK"), peerCSRK: try key("peerCSRK"),
            peerSignCounter: try counter("peerSignCounter"), localCSRK: try key("localCSRK"),
            localSignCounter: localSignCounter, authenticated: try flag("authenticated"),
            secureConnections: try flag("secureConnections"), keySize: Int(keySize))
        bond.gattClientState = try blob("gattClientState", BondBlobs.clientState)
        bond.gattDatabase = try blob("gattDatabase", BondBlobs.databaseCache)
        bond.gattDatabaseHash = try blob("gattDatabaseHash") { (bytes: [UInt8]) throws(DecodeError) in bytes }
        return bond
    }
}
