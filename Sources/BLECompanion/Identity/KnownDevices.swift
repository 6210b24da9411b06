import BLE
import BLEHost
import BLETransport
import Foundation
import GRDB

/// The devices an app knows, kept in an SQLite file (GRDB): each under a stable `DeviceKey` —
/// the MAC in its advertising data, its identity address, later its IRK — with the address and
/// `Peripheral.identifier` it last had, its name, when it was first and last seen, and the
/// user's label.
///
/// Scan results fed to `observe(_:)` keep the records current: a known device seen at a new
/// address is re-bound (its record takes the new address and identifier, and `.rebound` is
/// reported), so lookups by identifier and by address find it again.
///
/// Calls are synchronous and short (one SQLite transaction each), so they can be made from any
/// actor — on the virtual radio they do not let virtual time run ahead.
public final class KnownDevices: Sendable {
    let database: DatabaseQueue
    public let identification: DeviceIdentification
    /// Where the registry lives ("in memory" for an in-memory one).
    public let path: String
    private let now: @Sendable () -> Date
    private let broadcast = Broadcast<KnownDevicesEvent>()

    /// Opens the registry at `path`, creating the file if there is none and migrating an older
    /// one. A file that is not a registry is left untouched and reported as
    /// `.notADatabase`; one written by a newer version as `.newerSchema`; a path that is not a
    /// regular file (a directory, a FIFO, a device), cannot be followed (a symbolic link loop)
    /// or may not be opened as `.cannotOpen`.
    public convenience init(
        path: String, identification: DeviceIdentification = DeviceIdentification(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(KnownDevicesError) {
        // SQLite would open a FIFO and wait on it, and take a device for a file: only a
        // regular file, or nothing (created), is opened.
        do {
            try FileAccess.checkReplaceable(path)
        } catch {
            throw KnownDevicesError.cannotOpen(path: path, detail: error.reason)
        }
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: path)
        } catch {
            throw KnownDevicesError.opening(path, error)
        }
        try self.init(database: database, path: path, identification: identification, now: now)
    }

    /// A registry in memory, gone when the value is: for tests and for apps that keep nothing.
    public static func inMemory(
        identification: DeviceIdentification = DeviceIdentification(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(KnownDevicesError) -> KnownDevices {
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue()
        } catch {
            throw KnownDevicesError.opening("in memory", error)
        }
        return try KnownDevices(database: database, path: "in memory", identification: identification, now: now)
    }

    private init(
        database: DatabaseQueue, path: String, identification: DeviceIdentification,
        now: @escaping @Sendable () -> Date
    ) throws(KnownDevicesError) {
        let migrator = KnownDevicesSchema.migrator
        do {
            // Checked before migrating: a newer file must not be touched.
            if try database.read({ try migrator.hasBeenSuperseded($0) }) {
                throw KnownDevicesError.newerSchema(path: path)
            }
            try migrator.migrate(database)
        } catch {
            throw KnownDevicesError.opening(path, error)
        }
        self.database = database
        self.path = path
        self.identification = identification
        self.now = now
    }

    deinit { broadcast.finish() }

    /// Changes from now on: devices added, re-bound, forgotten.
    public func events() -> EventStream<KnownDevicesEvent> { broadcast.stream() }

    // MARK: Look-ups

    /// Every known device, most recently seen first.
    public func all() throws(KnownDevicesError) -> [KnownDevice] {
        try read { db in try KnownDevicesSchema.fetch(db, where: "1", [:]) }
    }

    public func device(forKey key: DeviceKey) throws(KnownDevicesError) -> KnownDevice? {
        try read { db in try KnownDevicesSchema.fetch(db, where: "key = ?", [key.storageKey]).first }
    }

    /// The device that last had this `Peripheral.identifier` (the most recently seen, should
    /// two records share it).
    public func device(withIdentifier identifier: UUID) throws(KnownDevicesError) -> KnownDevice? {
        try read { db in try KnownDevicesSchema.fetch(db, where: "identifier = ?", [identifier.uuidString]).first }
    }

    /// The device last seen at this address.
    public func device(at address: LEAddress) throws(KnownDevicesError) -> KnownDevice? {
        try read { db in
            try KnownDevicesSchema.fetch(
                db, where: "address = ? AND addressType = ?", [address.address.description, Int(address.type.rawValue)]
            ).first
        }
    }

    // MARK: Changes

    /// Records a scan result. A known device's record is brought up to date — re-bound when
    /// its address or identifier changed; an unknown one is remembered when `rememberNew` is
    /// true. A device `identification` cannot name — one on a resolvable private address — is
    /// the known device whose IRK resolves its address (`device(resolving:)`). Nil when the
    /// device cannot be identified or is unknown and not to be remembered.
    @discardableResult
    public func observe(_ discovery: Discovery, rememberNew: Bool = false) throws(KnownDevicesError)
        -> KnownDeviceObservation?
    {
        var key = identification.key(for: discovery)
        if key == nil { key = try device(resolving: discovery.peripheral.address)?.key }
        guard let key else { return nil }
        return try observe(
            key: key, address: discovery.peripheral.address, identifier: discovery.peripheral.identifier,
            name: discovery.advertisementData.localName, rememberNew: rememberNew)
    }

    /// Remembers the device behind a scan result (or updates it); nil when it cannot be
    /// identified.
    @discardableResult
    public func remember(_ discovery: Discovery, label: String? = nil) throws(KnownDevicesError) -> KnownDevice? {
        guard let observation = try observe(discovery, rememberNew: true) else { return nil }
        guard let label else { return observation.device }
        return try setLabel(label, forKey: observation.device.key)
    }

    /// Records that the device `key` was seen at `address` with `identifier`.
    @discardableResult
    public func observe(
        key: DeviceKey, address: LEAddress, identifier: UUID, name: String?, rememberNew: Bool = true
    ) throws(KnownDevicesError) -> KnownDeviceObservation? {
        let time = now()
        let observation: KnownDeviceObservation? = try write { db in
            guard var device = try KnownDevicesSchema.fetch(db, where: "key = ?", [key.storageKey]).first else {
                guard rememberNew else { return nil }
                let device = KnownDevice(
                    key: key, address: address, identifier: identifier, name: name, firstSeen: time, lastSeen: time)
                try KnownDevicesSchema.save(device, in: db)
                return .added(device)
            }
            let old = device
            device.address = address
            device.identifier = identifier
            device.name = name ?? device.name
            device.lastSeen = max(time, device.lastSeen)
            try KnownDevicesSchema.save(device, in: db)
            return old.address != address || old.identifier != identifier
                ? .rebound(old: old, new: device) : .seen(device)
        }
        switch observation {
        case .added(let device): broadcast.yield(.added(device))
        case .rebound(let old, let new): broadcast.yield(.rebound(old: old, new: new))
        case .seen, nil: break
        }
        return observation
    }

    /// Sets (or, with nil, clears) the user's label; returns the record, nil for an unknown key.
    @discardableResult
    public func setLabel(_ label: String?, forKey key: DeviceKey) throws(KnownDevicesError) -> KnownDevice? {
        try update(key) { $0.label = label }
    }

    /// Stores the device's IRK once bonding gives one.
    @discardableResult
    public func setIRK(_ irk: [UInt8], forKey key: DeviceKey) throws(KnownDevicesError) -> KnownDevice? {
        try update(key) { $0.irk = irk }
    }

    /// Changes one record in a transaction; nil (and nothing written) for an unknown key.
    private func update(
        _ key: DeviceKey, _ change: (inout KnownDevice) -> Void
    ) throws(KnownDevicesError) -> KnownDevice? {
        try write { db in
            guard var device = try KnownDevicesSchema.fetch(db, where: "key = ?", [key.storageKey]).first else {
                return nil
            }
            change(&device)
            try KnownDevicesSchema.save(device, in: db)
            return device
        }
    }

    /// Forgets a device; returns its last record, nil if it was not known.
    @discardableResult
    public func forget(_ key: DeviceKey) throws(KnownDevicesError) -> KnownDevice? {
        let forgotten: KnownDevice? = try write { db in
            guard let device = try KnownDevicesSchema.fetch(db, where: "key = ?", [key.storageKey]).first else {
                return nil
            }
            try db.execute(sql: "DELETE FROM knownDevice WHERE key = ?", arguments: [key.storageKey])
            return device
        }
        if let forgotten { broadcast.yield(.forgotten(forgotten)) }
        return forgotten
    }

    // MARK: Transactions

    func read<T>(_ body: (Database) throws -> T) throws(KnownDevicesError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw KnownDevicesError.operation(error, path: path)
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(KnownDevicesError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw KnownDevicesError.operation(error, path: path)
        }
    }
}
