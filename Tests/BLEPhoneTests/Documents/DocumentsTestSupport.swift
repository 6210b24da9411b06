import BLEController
import BLESimulation
import Foundation

@testable import BLEPhone

/// A test app that records the document methods the phone calls (and its lifecycle callbacks).
actor DocumentApp: PhoneApp {
    nonisolated let context: AppContext
    let log: CallLog

    init(context: AppContext, log: CallLog) {
        self.context = context
        self.log = log
    }

    func didFinishLaunching(options: LaunchOptions) async {
        log.add("didFinishLaunching url=\(options.url.map { URL(string: $0)!.lastPathComponent } ?? "-")")
    }
    func didBecomeActive() async { log.add("didBecomeActive") }
    func willEnterForeground() async { log.add("willEnterForeground") }
    func sceneWillConnect() async { log.add("sceneWillConnect") }
    func sceneWillEnterForeground() async { log.add("sceneWillEnterForeground") }
    func sceneDidBecomeActive() async { log.add("sceneDidBecomeActive") }

    func application(open url: URL, options: OpenURLOptions) async -> Bool {
        log.add("open:options \(Self.describe(url, options))")
        return true
    }

    func application(openURL url: URL, sourceApplication: String?, annotation: String?) async -> Bool {
        log.add("openURL:sourceApplication \(url.lastPathComponent) from=\(sourceApplication ?? "-")")
        return true
    }

    func scene(openURLContexts contexts: [OpenURLContext]) async {
        for context in contexts { log.add("scene:openURLContexts \(Self.describe(context.url, context.options))") }
    }

    /// Writes a file into the app's Documents folder (a log, say).
    func write(_ name: String, _ text: String) throws {
        guard let folder = context.documentsDirectory else { return }
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    /// Shows an alert and logs the answer.
    func ask(_ alert: AppAlert) async {
        let answer = await context.presentAlert(alert)
        log.add("answer \(answer ?? "nil")")
    }

    static func describe(_ url: URL, _ options: OpenURLOptions) -> String {
        "\(url.lastPathComponent) from=\(options.sourceApplication ?? "-") inPlace=\(options.openInPlace)"
    }
}

/// A phone with a storage root in a fresh temporary folder.
struct DocumentsWorld: Sendable {
    let radio: VirtualRadio
    let phone: Phone
    let log: CallLog
    let root: String

    static func make(_ profile: PhoneProfile, radio: VirtualRadio, storage: Bool = true) async -> DocumentsWorld {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "documents-tests-\(UUID().uuidString)"
        ).path
        let phone = await Phone(profile: profile, radio: radio, storageRoot: storage ? root : nil)
        let log = CallLog(simulation: radio.simulation)
        log.start.withLock { $0 = radio.simulation.now }
        return DocumentsWorld(radio: radio, phone: phone, log: log, root: root)
    }

    /// Installs a document app with these declarations.
    @discardableResult
    func install(
        _ name: String, types: [DocumentTypeDeclaration] = [], exported: [ExportedTypeDeclaration] = [],
        inPlace: Bool = false, fileSharing: Bool = false
    ) async -> AppIdentifier {
        var declaration = AppDeclaration(bundleIdentifier: name)
        declaration.documentTypes = types
        declaration.exportedTypes = exported
        declaration.supportsOpeningDocumentsInPlace = inPlace
        declaration.fileSharingEnabled = fileSharing
        let log = self.log
        await phone.install(declaration) { context in DocumentApp(context: context, log: log) }
        return AppIdentifier(name)
    }

    func at(_ seconds: Double) async throws {
        let start = log.start.withLock { $0 }
        try await radio.simulation.clock.sleep(until: start.advanced(by: .milliseconds(Int64(seconds * 1000))))
    }

    /// The document events of the trace.
    func documentEvents() async -> [DocumentEvent] {
        await phone.trace.compactMap { if case .document(let event) = $0.event { event } else { nil } }
    }

    func app(_ app: AppIdentifier) async -> DocumentApp? {
        await phone.instance(of: app) as? DocumentApp
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: root)
    }
}

extension DocumentTypeDeclaration {
    static func json(_ rank: HandlerRank = .default) -> Self {
        DocumentTypeDeclaration(name: "JSON", contentTypes: [.json], handlerRank: rank)
    }
}
