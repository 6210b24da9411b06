import BLEController
import BLESimulation
import Foundation
import Testing

@testable import BLEPhone

/// Bad input to sharing, "Open in…" and alerts: each a typed error, traced and counted; nothing
/// written outside an app's folder; names from outside shown escaped.
@Suite("Documents: bad input")
struct PhoneDocumentErrorTests {
    static let bytes: [UInt8] = Array("{}".utf8)

    @Test("Unknown type, no handler, invalid names, too large: typed errors, each traced as documentRefused")
    func shareErrors() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios17, radio: radio) }
        defer { world.cleanUp() }
        let (errors, refused, counters) = try await radio.simulation.run {
            await world.install("com.example.viewer", types: [.json()])
            var errors: [DocumentError] = []
            func attempt(_ name: String, type: UniformTypeIdentifier? = nil, bytes: [UInt8] = Self.bytes) async {
                do throws(DocumentError) {
                    try await world.phone.share(bytes, named: name, type: type)
                    errors.append(.noPrompt)  // not expected: marks a share that succeeded
                } catch {
                    errors.append(error)
                }
            }
            await attempt("a.json", type: "com.example.never-declared")
            await attempt("photo.png")
            await attempt("../escape.json")
            await attempt("folder/escape.json")
            await attempt("")
            await attempt(".")
            await attempt("..")
            await attempt("clear\u{1B}[2J.json")
            await attempt("innocent\u{202E}nosj.exe")
            await attempt(String(repeating: "a", count: 251) + ".json")
            await attempt("big.json", bytes: [UInt8](repeating: 0x20, count: DocumentsRuntime.maximumFileSize + 1))
            let refused = await world.documentEvents().count { if case .refused = $0 { true } else { false } }
            return (errors, refused, await world.phone.documentCounters)
        }
        #expect(
            errors == [
                .unknownType("com.example.never-declared"), .noHandler(file: "photo.png", type: .png),
                .invalidName("../escape.json"), .invalidName("folder/escape.json"), .invalidName(""),
                .invalidName("."), .invalidName(".."), .invalidName("clear\u{1B}[2J.json"),
                .invalidName("innocent\u{202E}nosj.exe"), .invalidName(String(repeating: "a", count: 251) + ".json"),
                .tooLarge(
                    file: "big.json", size: DocumentsRuntime.maximumFileSize + 1,
                    limit: DocumentsRuntime.maximumFileSize),
            ])
        #expect(refused == errors.count)
        #expect(counters.refused == errors.count)
        #expect(counters.shared == 0)
        #expect(!FileManager.default.fileExists(atPath: world.root))
    }

    @Test("Names from outside reach the trace's lines escaped: no control character, one line per entry")
    func terminalSafeTrace() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios17, radio: radio) }
        defer { world.cleanUp() }
        let text = try await radio.simulation.run {
            await world.install("com.example.viewer", types: [.json()])
            _ = try? await world.phone.share(Self.bytes, named: "x\u{1B}]0;pwned\u{07}\n.json")
            return PhoneTraceText.lines(await world.phone.trace)
        }
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" })
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.contains("\\u{1B}"))
    }

    @Test("Open in: not a listed app, a sheet already chosen from, no storage, a Files item gone: typed errors")
    func openInErrors() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios17, radio: radio) }
        defer { world.cleanUp() }
        try await radio.simulation.run {
            let viewer = await world.install("com.example.viewer", types: [.json()])
            let other = await world.install("com.example.other")
            let sheet = try await world.phone.share(Self.bytes, named: "a.json")
            await #expect(throws: DocumentError.notAHandler(other)) { try await world.phone.openIn(other, from: sheet) }
            await #expect(throws: DocumentError.notAHandler(AppIdentifier("com.example.absent"))) {
                try await world.phone.openIn(AppIdentifier("com.example.absent"), from: sheet)
            }
            try await world.phone.openIn(viewer, from: sheet)
            await #expect(throws: DocumentError.noShareSheet) { try await world.phone.openIn(viewer, from: sheet) }
            await #expect(throws: DocumentError.noShareSheet) { try await world.phone.openIn(viewer) }
            let gone = FilesItem(app: viewer, name: "gone.json", path: world.root + "/nothing/gone.json", size: 2)
            await #expect(throws: DocumentError.missingFile("gone.json")) { try await world.phone.share(gone) }
        }
        let bare = try await radio.simulation.run { await DocumentsWorld.make(.ios17, radio: radio, storage: false) }
        try await radio.simulation.run {
            let viewer = await bare.install("com.example.viewer", types: [.json()])
            let sheet = try await bare.phone.share(Self.bytes, named: "a.json")
            await #expect(throws: DocumentError.noStorage) { try await bare.phone.openIn(viewer, from: sheet) }
            #expect(await bare.phone.state(of: viewer) == .notRunning)
            #expect(await bare.phone.filesView().isEmpty)
        }
    }

    @Test("A document chosen for an app that crashes before it becomes active is lost with it: traced, counted")
    func lostWithTheApp() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios12, radio: radio) }
        defer { world.cleanUp() }
        let (events, counters, log) = try await radio.simulation.run {
            let viewer = await world.install("com.example.viewer", types: [.json()])
            try await world.phone.openIn(viewer, from: try await world.phone.share(Self.bytes, named: "a.json"))
            await world.phone.crash(viewer)
            try await world.at(1)
            return (await world.documentEvents(), await world.phone.documentCounters, world.log.all)
        }
        #expect(events.last == .refused(file: "a.json", why: "the app ended first (crash)"))
        #expect(counters.delivered == 0)
        #expect(counters.refused == 1)
        #expect(!log.contains { $0.hasPrefix("open:") })
    }

    @Test("An Inbox entry that is a planted link is never written through: the copy takes the next name")
    func plantedLink() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios17, radio: radio) }
        defer { world.cleanUp() }
        let inbox = world.root + "/com.example.viewer/Documents/Inbox"
        let outside = world.root + "/outside.json"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: inbox + "/a.json", withDestinationPath: outside)
        try await radio.simulation.run {
            let viewer = await world.install("com.example.viewer", types: [.json()])
            try await world.phone.openIn(viewer, from: try await world.phone.share(Self.bytes, named: "a.json"))
            try await world.at(1)
        }
        #expect(!FileManager.default.fileExists(atPath: outside))
        #expect(FileManager.default.contents(atPath: inbox + "/a-1.json").map(Array.init) == Self.bytes)
    }
}

/// Alerts an app shows (`AppContext.presentAlert`) and the user's answer.
@Suite("Documents: alerts")
struct PhonePromptTests {
    static let alert = AppAlert(title: "Update?", message: "Install 1.2.0", actions: ["Cancel", "Update"])

    @Test("The user answers an alert on the screen; wrong button, alert not in front, no alert: typed errors")
    func answer() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios12, radio: radio) }
        defer { world.cleanUp() }
        let log = try await radio.simulation.run {
            let app = await world.install("com.example.app")
            await world.phone.open(app)
            try await world.at(1)
            let instance = try #require(await world.app(app))
            Task(executorPreference: radio.simulation.executor) { await instance.ask(Self.alert) }
            try await world.at(2)
            let prompts = await world.phone.prompts
            #expect(prompts.map(\.alert) == [Self.alert])
            await #expect(throws: DocumentError.unknownPromptAction("OK")) {
                try await world.phone.respondToPrompt(choosing: "OK")
            }
            await world.phone.home()
            await #expect(throws: DocumentError.promptNotVisible(app)) {
                try await world.phone.respondToPrompt(choosing: "Update")
            }
            await world.phone.open(app)
            try await world.at(3)
            try await world.phone.respondToPrompt(prompts[0].id, choosing: "Update")
            try await world.at(4)
            await #expect(throws: DocumentError.noPrompt) { try await world.phone.respondToPrompt(choosing: "Update") }
            return world.log.all.filter { $0.hasPrefix("answer") }
        }
        #expect(log == ["answer Update@3"])
    }

    @Test("An alert goes away unanswered when its app is killed (traced as dismissed)")
    func dismissedByKill() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios17, radio: radio) }
        defer { world.cleanUp() }
        let (prompts, events) = try await radio.simulation.run {
            let app = await world.install("com.example.app")
            await world.phone.open(app)
            try await world.at(1)
            let instance = try #require(await world.app(app))
            Task(executorPreference: radio.simulation.executor) { await instance.ask(Self.alert) }
            try await world.at(2)
            await world.phone.forceQuit(app)
            try await world.at(10)
            return (await world.phone.prompts, await world.documentEvents())
        }
        #expect(prompts.isEmpty)
        #expect(events.last == .promptAnswered(id: 1, action: nil))
    }
}
