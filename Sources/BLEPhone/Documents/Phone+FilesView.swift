import Foundation

/// A file the phone's Files view shows ("On My iPhone" › the app › …).
public struct FilesItem: Sendable, Hashable {
    /// The app whose Documents folder holds it.
    public var app: AppIdentifier
    /// Its path inside the app's Documents folder ("log.txt", "Inbox/headset-1.2.0.bin").
    public var name: String
    /// Where it is on disk.
    public var path: String
    public var size: Int

    /// The last component of `name`.
    public var fileName: String { name.split(separator: "/").last.map(String.init) ?? name }
}

extension Phone {
    /// Whether the Files view shows the app's Documents folder: iOS 11+ (the Files app) and the
    /// app declares both `LSSupportsOpeningDocumentsInPlace` and `UIFileSharingEnabled` —
    /// Apple's key references say each lets the user reach the folder; that the Files view needs
    /// both is what developers observe (O).
    public func documentsVisibleInFiles(_ app: AppIdentifier) -> Bool {
        guard let declaration = runtime.apps[app]?.declaration else { return false }
        return profile.majorVersion >= 11 && declaration.supportsOpeningDocumentsInPlace
            && declaration.fileSharingEnabled
    }

    /// The Files view: every file in the Documents folders it shows (`documentsVisibleInFiles`),
    /// by app then path; hidden files (a leading dot) are left out, as Files does. Symbolic links
    /// are not followed (nothing outside an app's folder is listed).
    public func filesView() -> [FilesItem] {
        guard let storageRoot else { return [] }
        var items: [FilesItem] = []
        for app in runtime.apps.keys.sorted() where documentsVisibleInFiles(app) {
            let documents = storageRoot + "/" + app.bundleIdentifier + "/Documents"
            items += Self.files(under: documents, prefix: "", app: app)
        }
        return items
    }

    private static func files(under folder: String, prefix: String, app: AppIdentifier) -> [FilesItem] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder) else { return [] }
        var items: [FilesItem] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = folder + "/" + name
            guard let attributes = try? manager.attributesOfItem(atPath: path),
                let type = attributes[.type] as? FileAttributeType
            else { continue }
            if type == .typeDirectory {
                items += files(under: path, prefix: prefix + name + "/", app: app)
            } else if type == .typeRegular {
                let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                items.append(FilesItem(app: app, name: prefix + name, path: path, size: size))
            }
        }
        return items
    }
}

extension AppContext {
    /// The app's Documents folder (`FileManager.urls(for: .documentDirectory, in:
    /// .userDomainMask)`), created if missing; nil when the phone gives apps no storage.
    public var documentsDirectory: String? {
        guard let storageDirectory else { return nil }
        let path = storageDirectory + "/Documents"
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            return nil
        }
        return path
    }
}
