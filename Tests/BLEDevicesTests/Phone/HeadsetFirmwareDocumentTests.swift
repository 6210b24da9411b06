import BLECompanion
import BLEController
import BLEDevices
import BLELocking
import BLEPhone
import BLESimulation
import Foundation
import Testing

/// The headset's phone app declares the firmware formats as documents: a firmware file shared
/// to it is recognised, the user is asked, and the update starts only on "Update".
@Suite("Headset app: firmware documents")
struct HeadsetFirmwareDocumentTests {
    static let app = AppIdentifier(HeadsetAppConfiguration.bundleIdentifier)
    static let image = [UInt8](repeating: 0xA5, count: 4096)

    /// Runs `body` with a phone (storage in a temporary folder) on which the headset app is
    /// installed; `started` records the images `startFirmwareUpdate` was given.
    func run(
        _ profile: PhoneProfile, _ body: @escaping @Sendable (Phone, VirtualRadio) async throws -> Void
    ) async throws -> (HeadsetAppObserver, [FirmwareImage]) {
        let radio = VirtualRadio()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headset-fw-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let observer = HeadsetAppObserver()
        let started = Locked<[FirmwareImage]>([])
        try await radio.simulation.run {
            let phone = await Phone(profile: profile, radio: radio, storageRoot: root)
            var configuration = HeadsetAppConfiguration.bluetoothCentral()
            configuration.startFirmwareUpdate = { image in started.withLock { $0.append(image) } }
            let made = configuration
            await phone.install(made.declaration) { context in
                HeadsetPhoneApp(context: context, configuration: made, observer: observer)
            }
            // An archiver that takes any zip as its Owner, to rank against.
            var archiver = AppDeclaration(bundleIdentifier: "com.example.archiver")
            archiver.documentTypes = [DocumentTypeDeclaration(name: "Zip", contentTypes: [.zip], handlerRank: .owner)]
            await phone.install(archiver) { context in PlainApp(context: context) }
            try await body(phone, radio)
        }
        return (observer, started.withLock { $0 })
    }

    @Test(
        "The share sheet: the headset app owns .bin, .hex and .img firmware; for a .zip it is an Alternate behind an archiver"
    )
    func declaredTypes() async throws {
        _ = try await run(.ios17) { phone, _ in
            for name in ["headset-1.4.0.bin", "headset-1.4.0.hex", "headset-1.4.0.img"] {
                let sheet = try await phone.share(Self.image, named: name)
                #expect(sheet.apps == [Self.app])
                #expect(sheet.handlers.first?.rank == .owner)
            }
            let zip = try await phone.share(Self.image, named: "headset-1.4.0.zip")
            #expect(zip.type == .zip)
            #expect(zip.apps == [AppIdentifier("com.example.archiver"), Self.app])
            let package = try await phone.share(Self.image, named: "pkg.zip", type: HeadsetFirmwareDocuments.dfuPackage)
            // The package type conforms to zip: the archiver follows, as Owner of a parent type.
            #expect(package.apps == [Self.app, AppIdentifier("com.example.archiver")])
            #expect(await phone.uniformTypes.conforms(HeadsetFirmwareDocuments.intelHex, to: .text))
        }
    }

    @Test(
        "Shared to the headset app, a firmware file asks the user; Update starts the update with the recognised image")
    func acceptStartsUpdate() async throws {
        for profile in [PhoneProfile.ios6, .ios12, .ios17] {
            let (observer, started) = try await run(profile) { phone, radio in
                try await phone.openIn(Self.app, from: try await phone.share(Self.image, named: "headset-1.4.0.bin"))
                try await radio.simulation.clock.sleep(for: .seconds(2))
                let prompts = await phone.prompts
                #expect(prompts.count == 1)
                #expect(prompts.first?.app == Self.app)
                #expect(prompts.first?.alert.actions == [HeadsetPhoneApp.cancelAction, HeadsetPhoneApp.updateAction])
                try await phone.respondToPrompt(choosing: HeadsetPhoneApp.updateAction)
                try await radio.simulation.clock.sleep(for: .seconds(1))
                let notes = await phone.trace.compactMap { if case .note(let text) = $0.event { text } else { nil } }
                #expect(notes.contains("firmware update to 1.4.0 started"))
            }
            #expect(observer.counts.firmwareFilesReceived == 1, "\(profile.name)")
            #expect(observer.counts.firmwareUpdatesStarted == 1, "\(profile.name)")
            #expect(observer.counts.lastFirmwareVersion == FirmwareVersion(major: 1, minor: 4, patch: 0))
            #expect(started.map(\.version) == [FirmwareVersion(major: 1, minor: 4, patch: 0)])
            #expect(started.first?.bytes == Self.image)
        }
    }

    @Test("Cancel does nothing: no update starts")
    func declineDoesNothing() async throws {
        let (observer, started) = try await run(.ios17) { phone, radio in
            try await phone.openIn(Self.app, from: try await phone.share(Self.image, named: "headset-2.0.1.img"))
            try await radio.simulation.clock.sleep(for: .seconds(2))
            try await phone.respondToPrompt(choosing: HeadsetPhoneApp.cancelAction)
            try await radio.simulation.clock.sleep(for: .seconds(1))
            #expect(await phone.prompts.isEmpty)
        }
        #expect(observer.counts.firmwareUpdatesDeclined == 1)
        #expect(observer.counts.firmwareUpdatesStarted == 0)
        #expect(started.isEmpty)
    }

    @Test("A file the recogniser refuses (no version in the name, or empty) is noted; no alert")
    func unrecognisedFile() async throws {
        let (observer, started) = try await run(.ios12) { phone, radio in
            try await phone.openIn(Self.app, from: try await phone.share(Self.image, named: "firmware.bin"))
            try await radio.simulation.clock.sleep(for: .seconds(2))
            try await phone.openIn(Self.app, from: try await phone.share([], named: "headset-1.0.0.bin"))
            try await radio.simulation.clock.sleep(for: .seconds(2))
            #expect(await phone.prompts.isEmpty)
        }
        #expect(observer.counts.firmwareFilesReceived == 2)
        #expect(observer.counts.firmwareFilesRejected == 2)
        #expect(started.isEmpty)
    }

    @Test("The default recogniser is FirmwareFile's: a raw file's version is the last MAJOR.MINOR.PATCH of its name")
    func versionFromName() throws {
        let recognize = HeadsetAppConfiguration.bluetoothCentral().firmwareRecognizer
        #expect(try recognize([1], "fw-v2.10.3-rc1.hex").version.description == "2.10.3")
        #expect(try recognize([1], "1.2.3.4.bin").version.description == "2.3.4")
        #expect(throws: FirmwareFileError.self) { try recognize([1], "2024.1.bin") }
        #expect(throws: FirmwareFileError.self) { try recognize([1], "1.2.300.bin") }
    }
}

/// An app with no behaviour.
actor PlainApp: PhoneApp {
    nonisolated let context: AppContext
    init(context: AppContext) { self.context = context }
}
