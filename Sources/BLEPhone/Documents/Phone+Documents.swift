import BLETransport
import Foundation

extension Phone {
    /// The phone's type registry: the system's types and those the installed apps export
    /// (`UTExportedTypeDeclarations`, taken in bundle-identifier order).
    public var uniformTypes: UniformTypeTree {
        UniformTypeTree(exporting: runtime.apps.keys.sorted().flatMap { runtime.apps[$0]!.declaration.exportedTypes })
    }

    /// The user shares a file (from Mail, say; `UIDocumentInteractionController` /
    /// `UIActivityViewController` in the sharing app): the phone finds its type and the apps that
    /// open it, best first (`DocumentHandlerRanking`), and shows the share sheet. Choose with
    /// `openIn(_:from:)`. Traced (`documentShared`, or `documentRefused` with the error).
    @discardableResult
    public func share(_ document: SharedDocument) throws(DocumentError) -> ShareSheet {
        do throws(DocumentError) {
            try SharedDocument.validate(name: document.name)
            guard document.bytes.count <= DocumentsRuntime.maximumFileSize else {
                throw .tooLarge(
                    file: document.name, size: document.bytes.count, limit: DocumentsRuntime.maximumFileSize)
            }
            let tree = uniformTypes
            let type: UniformTypeIdentifier
            if let declared = document.type {
                guard tree.knows(declared) else { throw .unknownType(declared.identifier) }
                type = declared
            } else {
                type = tree.type(forFileNamed: document.name)
            }
            let apps = runtime.apps.keys.sorted().map { ($0, runtime.apps[$0]!.declaration.documentTypes) }
            let handlers = DocumentHandlerRanking.handlers(for: type, among: apps, in: tree)
            guard !handlers.isEmpty else { throw .noHandler(file: document.name, type: type) }
            runtime.documents.lastSheetID += 1
            let sheet = ShareSheet(
                id: runtime.documents.lastSheetID, document: document, type: type, handlers: handlers)
            runtime.documents.sheets[sheet.id] = sheet
            runtime.documents.counters.shared += 1
            record(.document(.shared(file: document.name, type: type.identifier, handlers: sheet.apps)))
            return sheet
        } catch {
            refuse(document.name, error)
            throw error
        }
    }

    /// Shares a file bytes and name, from `sourceApplication` (Mail by default).
    @discardableResult
    public func share(
        _ bytes: [UInt8], named name: String, type: UniformTypeIdentifier? = nil,
        from sourceApplication: String = SharedDocument.mail
    ) throws(DocumentError) -> ShareSheet {
        try share(SharedDocument(name: name, bytes: bytes, type: type, sourceApplication: sourceApplication))
    }

    /// Shares a file the Files view lists (`filesView()`): an app that opens documents in place
    /// gets the original, the others a copy.
    @discardableResult
    public func share(_ item: FilesItem) throws(DocumentError) -> ShareSheet {
        let bytes: [UInt8]
        do throws(FileAccessError) {
            bytes = try FileAccess.read(item.path, limit: DocumentsRuntime.maximumFileSize)
        } catch {
            let failure: DocumentError =
                switch error {
                case .missing: .missingFile(item.name)
                case .tooLarge(_, let size, let limit): .tooLarge(file: item.fileName, size: size, limit: limit)
                default: .fileSystem(error.reason)
                }
            refuse(item.fileName, failure)
            throw failure
        }
        return try share(
            SharedDocument(
                name: item.fileName, bytes: bytes, sourceApplication: SharedDocument.files, filesPath: item.path))
    }

    /// The user picks `app` in the share sheet: the file goes to the app's Documents/Inbox (or
    /// stays where it is, for an app that opens documents in place, shared from the Files view on
    /// iOS 11+), and the app is launched in front (`LaunchReason.openDocument`, the URL in its
    /// launch options) or brought to the front; it gets the URL when it becomes active, through
    /// its profile's method (`OpenURLSignature`).
    public func openIn(_ app: AppIdentifier, from sheet: ShareSheet) throws(DocumentError) {
        try openIn(app, sheet: sheet.id)
    }

    /// `openIn(_:from:)` by the sheet's id (the last sheet shown when nil).
    public func openIn(_ app: AppIdentifier, sheet id: Int? = nil) throws(DocumentError) {
        guard let id = id ?? runtime.documents.sheets.keys.max(), let sheet = runtime.documents.sheets[id] else {
            throw refusing("(no file)", .noShareSheet, app: app)
        }
        let document = sheet.document
        guard sheet.apps.contains(app), let declaration = runtime.apps[app]?.declaration else {
            throw refusing(document.name, .notAHandler(app), app: app)
        }
        runtime.documents.sheets[id] = nil
        record(.document(.chosen(file: document.name, sheet: id)), app: app)
        let inPlace =
            document.filesPath != nil && declaration.supportsOpeningDocumentsInPlace && profile.majorVersion >= 11
        let url: URL
        if inPlace, let path = document.filesPath {
            url = URL(fileURLWithPath: path)
        } else {
            do throws(DocumentError) {
                url = URL(fileURLWithPath: try copyToInbox(document, of: app))
            } catch {
                throw refusing(document.name, error, app: app)
            }
        }
        let options = OpenURLOptions(sourceApplication: document.sourceApplication, openInPlace: inPlace)
        if runtime.awaitingFirstUnlock {
            firstUnlock()
        } else if runtime.locked {
            unlockScreen()
        }
        let launching = state(of: app) == .notRunning
        // With scenes, a launch's URL is in the connection options, not a method call.
        let delivery = PendingDelivery(url: url, options: options, viaLaunchOptions: launching && profile.hasScenes)
        if !launching, runtime.front == app, state(of: app) == .active {
            deliver(delivery, to: app)
        } else {
            runtime.documents.pendingDeliveries[app, default: []].append(delivery)
            bringToFront(app, reason: .openDocument(url.absoluteString))
        }
        restartIdleTimer()
    }

    /// The share sheets shown and not chosen from.
    public var openShareSheets: [ShareSheet] {
        runtime.documents.sheets.keys.sorted().map { runtime.documents.sheets[$0]! }
    }

    /// What the phone counted of documents and alerts.
    public var documentCounters: DocumentCounters { runtime.documents.counters }

    // MARK: Steps

    /// Copies the file into `<app folder>/Documents/Inbox/`, under its own name or, when taken,
    /// "name-1.ext", "name-2.ext", … (iOS's Inbox does the same); never through an existing
    /// entry (a planted link), never outside the folder (the name was validated).
    private func copyToInbox(_ document: SharedDocument, of app: AppIdentifier) throws(DocumentError) -> String {
        guard storageRoot != nil else { throw .noStorage }
        guard let folder = storageDirectory(for: app) else { throw .fileSystem("no storage directory for \(app)") }
        let inbox = folder + "/Documents/Inbox"
        do {
            try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem("cannot create Documents/Inbox: \(error)")
        }
        let (stem, suffix) = Self.split(document.name)
        var name = document.name
        var attempt = 0
        while FileAccess.entryExists(inbox + "/" + name) {
            attempt += 1
            name = "\(stem)-\(attempt)\(suffix)"
            // A name at the length limit cannot take a suffix.
            guard name.utf8.count <= 255 else { throw .invalidName(document.name) }
        }
        let path = inbox + "/" + name
        do throws(FileAccessError) {
            try FileAccess.writeAtomically(document.bytes, to: path, mode: 0o600)
        } catch {
            throw .fileSystem(error.description)
        }
        runtime.documents.counters.copiedToInbox += 1
        record(.document(.copiedToInbox(file: document.name, path: "Documents/Inbox/" + name)), app: app)
        return path
    }

    private static func split(_ name: String) -> (stem: String, suffix: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }

    /// Hands one document to the running app, through its profile's method.
    func deliver(_ delivery: PendingDelivery, to app: AppIdentifier) {
        guard let instance = runtime.apps[app]?.instance else { return }
        let signature: OpenURLSignature =
            delivery.viaLaunchOptions ? .sceneConnectionOptions : OpenURLSignature.of(profile)
        let url = delivery.url
        let options = delivery.options
        runtime.documents.counters.delivered += 1
        record(
            .document(
                .delivered(
                    url: shownPath(url), signature: signature, openInPlace: options.openInPlace,
                    source: options.sourceApplication)), app: app)
        guard !delivery.viaLaunchOptions, let context = runtime.apps[app]?.context else { return }
        // As a lifecycle callback runs (Phone+Apps): a task that calls the actor's method
        // directly, so it keeps its place before the callbacks queued after it.
        record(.callbackStarted(.openURL), app: app)
        let launch = context.launchNumber
        Task(executorPreference: context.executor) { [self] in
            let handled = await instance.receiveDocument(url, options: options, through: signature)
            await documentReturned(url, handled: handled, of: app, launch: launch)
        }
    }

    private func documentReturned(_ url: URL, handled: Bool?, of app: AppIdentifier, launch: Int) {
        guard isCurrent(app, launch: launch) else { return }
        record(.callbackFinished(.openURL), app: app)
        record(.document(.handled(url: shownPath(url), handled: handled)), app: app)
    }

    /// The file's path inside the phone's storage (the whole path for a file outside it).
    private func shownPath(_ url: URL) -> String {
        guard let storageRoot else { return url.path }
        let root = storageRoot.hasSuffix("/") ? storageRoot : storageRoot + "/"
        return url.path.hasPrefix(root) ? String(url.path.dropFirst(root.count)) : url.path
    }

    private func refuse(_ file: String, _ error: DocumentError, app: AppIdentifier? = nil) {
        runtime.documents.counters.refused += 1
        logger.notice("document refused: \(error)")
        record(.document(.refused(file: file, why: error.description)), app: app)
    }

    private func refusing(_ file: String, _ error: DocumentError, app: AppIdentifier?) -> DocumentError {
        refuse(file, error, app: app)
        return error
    }
}

extension PhoneApp {
    /// Calls the method `signature` names; nil for scenes, whose method returns nothing.
    fileprivate func receiveDocument(_ url: URL, options: OpenURLOptions, through signature: OpenURLSignature) async
        -> Bool?
    {
        switch signature {
        case .openURLSourceApplicationAnnotation:
            return await application(
                openURL: url, sourceApplication: options.sourceApplication, annotation: options.annotation)
        case .openURLOptions:
            return await application(open: url, options: options)
        case .sceneOpenURLContexts, .sceneConnectionOptions:
            await scene(openURLContexts: [OpenURLContext(url: url, options: options)])
            return nil
        }
    }
}
