import GRDB

/// Why a daemon's restoration store failed. A file that is not a restoration store is never
/// changed: it is reported, naming the file, and left as it was for the user to keep or remove.
public enum RestorationStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is not an SQLite database, or its pages are damaged (SQLITE_NOTADB,
    /// SQLITE_CORRUPT).
    case notADatabase(path: String, detail: String)
    /// The path cannot be opened or created: a directory, a FIFO, a device, a missing folder,
    /// permissions.
    case cannotOpen(path: String, detail: String)
    /// The file was written by a newer version of swift-ble (migrations this one does not know).
    case newerSchema(path: String)
    /// An app's stored record cannot be read by this version (its format or its encoding).
    case unreadableRecord(path: String, app: String, detail: String)
    /// Any other SQLite failure (disk full, a read-only file, …).
    case database(path: String, detail: String)

    public var path: String {
        switch self {
        case .notADatabase(let path, _), .cannotOpen(let path, _), .newerSchema(let path),
            .unreadableRecord(let path, _, _), .database(let path, _):
            path
        }
    }

    public var description: String {
        switch self {
        case .notADatabase(let path, let detail): "\(path) is not a restoration store: \(detail)"
        case .cannotOpen(let path, let detail): "cannot open the restoration store \(path): \(detail)"
        case .newerSchema(let path):
            "\(path) was written by a newer version of swift-ble (unknown migrations); it is left untouched"
        case .unreadableRecord(let path, let app, let detail): "\(path): the record of \(app) cannot be read: \(detail)"
        case .database(let path, let detail): "restoration store \(path): \(detail)"
        }
    }

    /// An SQLite failure in the store's terms (`opening`: while opening and migrating).
    static func from(_ error: any Error, path: String, opening: Bool) -> RestorationStoreError {
        if let error = error as? RestorationStoreError { return error }
        guard let error = error as? DatabaseError else { return .database(path: path, detail: "\(error)") }
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode.primaryResultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notADatabase(path: path, detail: detail)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return opening ? .cannotOpen(path: path, detail: detail) : .database(path: path, detail: detail)
        default: return .database(path: path, detail: detail)
        }
    }
}
