import Foundation
import GRDB

/// Why the known-devices registry failed. A file that is not a registry is never changed: it
/// is reported, and left as it was for the user to keep or remove.
public enum KnownDevicesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is not an SQLite database, or its pages are damaged (SQLITE_NOTADB,
    /// SQLITE_CORRUPT).
    case notADatabase(path: String, detail: String)
    /// The file cannot be opened or created (missing folder, permissions, a directory).
    case cannotOpen(path: String, detail: String)
    /// The file was written by a newer version of the registry, with migrations this one does
    /// not know; it is left untouched.
    case newerSchema(path: String)
    /// A row holds a value this version cannot read (the named column).
    case corruptRecord(key: String, column: String)
    /// Any other SQLite failure (disk full, read-only file, …).
    case database(String)

    public var description: String {
        switch self {
        case .notADatabase(let path, let detail): "\(path) is not a known-devices database: \(detail)"
        case .cannotOpen(let path, let detail): "cannot open \(path): \(detail)"
        case .newerSchema(let path): "\(path) was written by a newer version of the known-devices registry"
        case .corruptRecord(let key, let column): "the record \(key) has an unreadable \(column)"
        case .database(let detail): "known-devices database: \(detail)"
        }
    }

    /// An SQLite failure while opening `path`, in the registry's terms.
    static func opening(_ path: String, _ error: any Error) -> KnownDevicesError {
        if let error = error as? KnownDevicesError { return error }
        guard let error = error as? DatabaseError else { return .database("\(error)") }
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode.primaryResultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notADatabase(path: path, detail: detail)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: return .cannotOpen(path: path, detail: detail)
        default: return .database(detail)
        }
    }

    /// An SQLite failure after opening.
    static func operation(_ error: any Error, path: String) -> KnownDevicesError {
        if let error = error as? KnownDevicesError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode.primaryResultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notADatabase(path: path, detail: error.message ?? "")
            default: return .database(error.message ?? "\(error.resultCode)")
            }
        }
        return .database("\(error)")
    }
}
