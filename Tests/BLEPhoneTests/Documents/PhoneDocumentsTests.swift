import BLEController
import BLESimulation
import Foundation
import Testing

@testable import BLEPhone

/// Sharing a file and "Open in…": the share sheet's order, the launch or the foregrounding of
/// the chosen app, the delegate method each profile calls, the copy into Documents/Inbox.
@Suite("Documents: open in")
struct PhoneDocumentsTests {
    static let json = Array(#"{"volume": 3}"#.utf8)

    @Test(
        "iOS 12: the chosen app is launched in front with the URL; application(_:open:options:) runs after didFinishLaunching, before didBecomeActive; the file is copied to Documents/Inbox"
    )
    func launchDeliversThroughOpenOptions() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios12, radio: radio) }
        defer { world.cleanUp() }
        let (log, sheet, launches, events) = try await radio.simulation.run {
            let viewer = await world.install("com.example.viewer", types: [.json()])
            await world.install("com.example.owner", types: [.json(.owner)])
            try await world.at(1)
            let sheet = try await world.phone.share(Self.json, named: "config.json")
            try await world.phone.openIn(viewer, from: sheet)
            try await world.at(2)
            #expect(await world.phone.state(of: viewer) == .active)
            #expect(await world.phone.frontApp == viewer)
            let launches = await world.phone.trace.compactMap { entry -> LaunchReason? in
                if case .launched(let reason) = entry.event { reason } else { nil }
            }
            return (world.log.all, sheet, launches, await world.documentEvents())
        }
        #expect(sheet.apps == [AppIdentifier("com.example.owner"), AppIdentifier("com.example.viewer")])
        #expect(sheet.type == .json)
        #expect(
            log == [
                "didFinishLaunching url=config.json@1",
                "open:options config.json from=com.apple.mobilemail inPlace=false@1", "didBecomeActive@1",
            ])
        let inbox = world.root + "/com.example.viewer/Documents/Inbox/config.json"
        #expect(FileManager.default.contents(atPath: inbox).map(Array.init) == Self.json)
        #expect(launches == [.openDocument(URL(fileURLWithPath: inbox).absoluteString)])
        #expect(events.contains(.copiedToInbox(file: "config.json", path: "Documents/Inbox/config.json")))
        #expect(events.contains(.handled(url: "com.example.viewer/Documents/Inbox/config.json", handled: true)))
    }

    @Test("iOS 6 (before iOS 9): the file comes through application(_:openURL:sourceApplication:annotation:)")
    func oldSignatureOnIOS6() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios6, radio: radio) }
        defer { world.cleanUp() }
        let log = try await radio.simulation.run {
            let viewer = await world.install("com.example.viewer", types: [.json()])
            let sheet = try await world.phone.share(Self.json, named: "config.json", from: "com.example.mail")
            try await world.phone.openIn(viewer, from: sheet)
            try await world.at(1)
            return world.log.all
        }
        #expect(
            log == [
                "didFinishLaunching url=config.json@0", "openURL:sourceApplication config.json from=com.example.mail@0",
                "didBecomeActive@0",
            ])
    }

    @Test(
        "iOS 17 scenes: a launch finds the URL in the connection options (no method call); a suspended app is brought back and gets scene(_:openURLContexts:); a taken Inbox name gets -1"
    )
    func scenesLaunchThenForeground() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios17, radio: radio) }
        defer { world.cleanUp() }
        let (log, launches, signatures) = try await radio.simulation.run {
            let viewer = await world.install("com.example.viewer", types: [.json()])
            try await world.phone.openIn(viewer, from: try await world.phone.share(Self.json, named: "config.json"))
            try await world.at(5)
            await world.phone.home()
            try await world.at(10)
            #expect(await world.phone.state(of: viewer) == .suspended)
            try await world.phone.openIn(viewer, from: try await world.phone.share(Self.json, named: "config.json"))
            try await world.at(11)
            let signatures = await world.documentEvents().compactMap { event -> OpenURLSignature? in
                if case .delivered(_, let signature, _, _) = event { signature } else { nil }
            }
            return (world.log.all, await world.phone.launchCount(of: viewer), signatures)
        }
        #expect(
            log == [
                "didFinishLaunching url=config.json@0", "sceneWillConnect@0", "sceneWillEnterForeground@0",
                "sceneDidBecomeActive@0", "sceneWillEnterForeground@10",
                "scene:openURLContexts config-1.json from=com.apple.mobilemail inPlace=false@10",
                "sceneDidBecomeActive@10",
            ])
        #expect(launches == 1)
        #expect(signatures == [.sceneConnectionOptions, .sceneOpenURLContexts])
        let inbox = world.root + "/com.example.viewer/Documents/Inbox"
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: inbox).sorted()) == ["config-1.json", "config.json"])
    }

    @Test(
        "iOS 12: a suspended app comes back (willEnterForeground, open, didBecomeActive); one in front gets it at once")
    func foregroundAndInFront() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios12, radio: radio) }
        defer { world.cleanUp() }
        let log = try await radio.simulation.run {
            let viewer = await world.install("com.example.viewer", types: [.json()])
            await world.phone.open(viewer)
            try await world.at(2)
            await world.phone.home()
            try await world.at(10)
            try await world.phone.openIn(viewer, from: try await world.phone.share(Self.json, named: "a.json"))
            try await world.at(20)
            try await world.phone.openIn(viewer, from: try await world.phone.share(Self.json, named: "b.json"))
            try await world.at(21)
            #expect(await world.phone.launchCount(of: viewer) == 1)
            return world.log.all.filter { !$0.hasPrefix("didFinishLaunching") }
        }
        #expect(
            log == [
                "didBecomeActive@0", "willEnterForeground@10",
                "open:options a.json from=com.apple.mobilemail inPlace=false@10", "didBecomeActive@10",
                "open:options b.json from=com.apple.mobilemail inPlace=false@20",
            ])
    }

    @Test(
        "Open in place (LSSupportsOpeningDocumentsInPlace, iOS 11+): a Files item goes to such an app as the original, to the others as a copy"
    )
    func openInPlaceVersusCopy() async throws {
        let radio = VirtualRadio()
        let world = try await radio.simulation.run { await DocumentsWorld.make(.ios12, radio: radio) }
        defer { world.cleanUp() }
        let (log, item) = try await radio.simulation.run {
            let logger = await world.install("com.example.logger", inPlace: true, fileSharing: true)
            let text = [DocumentTypeDeclaration(name: "Text", contentTypes: [.text])]
            let reader = await world.install("com.example.reader", types: text, inPlace: true)
            let copier = await world.install("com.example.copier", types: text)
            await world.phone.open(logger)
            try await world.at(1)
            try await world.app(logger)?.write("tasks.log", "refresh ran\n")
            let items = await world.phone.filesView()
            #expect(items.map(\.name) == ["tasks.log"])
            let item = try #require(items.first)
            try await world.phone.openIn(reader, from: try await world.phone.share(item))
            try await world.at(2)
            try await world.phone.openIn(copier, from: try await world.phone.share(item))
            try await world.at(3)
            return (world.log.all.filter { $0.hasPrefix("open:") }, item)
        }
        #expect(
            log == [
                "open:options tasks.log from=com.apple.DocumentsApp inPlace=true@1",
                "open:options tasks.log from=com.apple.DocumentsApp inPlace=false@2",
            ])
        #expect(!FileManager.default.fileExists(atPath: world.root + "/com.example.reader/Documents/Inbox"))
        let copy = world.root + "/com.example.copier/Documents/Inbox/tasks.log"
        #expect(FileManager.default.contents(atPath: copy) == Data("refresh ran\n".utf8))
        #expect(FileManager.default.fileExists(atPath: item.path))
    }

    @Test(
        "Files view: an app's Documents folder shows only with LSSupportsOpeningDocumentsInPlace and UIFileSharingEnabled, on iOS 11+; hidden files are left out, folders walked"
    )
    func filesViewVisibility() async throws {
        for profile in [PhoneProfile.ios6, .ios17] {
            let radio = VirtualRadio()
            let world = try await radio.simulation.run { await DocumentsWorld.make(profile, radio: radio) }
            defer { world.cleanUp() }
            let names = try await radio.simulation.run {
                let apps = [
                    await world.install("com.example.both", types: [.json()], inPlace: true, fileSharing: true),
                    await world.install("com.example.in-place", inPlace: true),
                    await world.install("com.example.sharing", fileSharing: true),
                ]
                for app in apps {
                    await world.phone.open(app)
                    try await world.at(1)
                    try await world.app(app)?.write("log.txt", "x")
                    try await world.app(app)?.write(".hidden", "x")
                }
                try await world.phone.openIn(
                    apps[0], from: try await world.phone.share(Self.json, named: "settings.json"))
                try await world.at(2)
                return await world.phone.filesView().map { "\($0.app) \($0.name) \($0.size)" }
            }
            if profile.majorVersion >= 11 {
                #expect(names == ["com.example.both Inbox/settings.json 13", "com.example.both log.txt 1"])
            } else {
                #expect(names.isEmpty)
            }
        }
    }
}
