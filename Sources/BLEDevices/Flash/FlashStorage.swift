import BLETransport

/// The non-volatile memory under a device's firmware store: two image slots and two small
/// records (which slot is active; how far the staging has come). Each operation is the unit a
/// power loss can interrupt, so the store orders them to stay consistent at every cut.
public protocol FlashStorage: Sendable {
    /// The record's bytes, or nil when it does not exist.
    func read(_ record: FlashRecord) throws(FlashStorageError) -> [UInt8]?
    /// Replaces the record atomically: after a power loss it holds the old bytes or the new.
    func replace(_ record: FlashRecord, with bytes: [UInt8]) throws(FlashStorageError)
    /// Appends to the record (created when absent); a power loss may leave any prefix of `bytes`.
    func append(_ bytes: [UInt8], to record: FlashRecord) throws(FlashStorageError)
    /// Cuts the record to its first `length` bytes.
    func truncate(_ record: FlashRecord, to length: Int) throws(FlashStorageError)
    /// Deletes the record (nothing when absent).
    func remove(_ record: FlashRecord) throws(FlashStorageError)
}

/// The two firmware slots.
public enum FlashSlot: String, Sendable, Hashable, Codable, CaseIterable {
    case a
    case b

    public var other: FlashSlot { self == .a ? .b : .a }
}

/// What the storage holds.
public enum FlashRecord: Sendable, Hashable {
    case slot(FlashSlot)
    /// Which slot is active, with its version and digest.
    case slotTable
    /// The staging progress of an update under way.
    case staging

    /// The file a directory-backed storage keeps it in.
    public var fileName: String {
        switch self {
        case .slot(let slot): "slot-\(slot.rawValue).bin"
        case .slotTable: "slots.json"
        case .staging: "staging.json"
        }
    }
}

/// Why the storage failed.
public enum FlashStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The (simulated) power went: this operation may be partly done, nothing after it happens.
    case powerLost
    /// A file operation failed.
    case io(String)
    /// A record's file is there but cannot be read or written as one (what is wrong with it).
    case file(FileAccessError)
    /// A record's bytes do not decode.
    case corrupt(String)

    public var description: String {
        switch self {
        case .powerLost: "power lost"
        case .io(let what): "storage I/O failed: \(what)"
        case .file(let error): "storage file \(error)"
        case .corrupt(let what): "corrupt storage: \(what)"
        }
    }
}
