import BLECompanion
import BLEPhone
import BLETransport
import BLEWire
import Foundation

/// A firmware file shared to the app ("Open in…"): the app reads it, recognises it
/// (`HeadsetAppConfiguration.firmwareRecognizer`), asks the user to confirm, and only then starts
/// the update (`updateFirmware(to:)`). A file it cannot read or recognise is noted and left.
extension HeadsetPhoneApp {
    // Each profile hands the URL through its own method (`OpenURLSignature`): the app answers all.
    public func application(open url: URL, options: OpenURLOptions) async -> Bool {
        await receiveFirmwareFile(url)
    }

    public func application(openURL url: URL, sourceApplication: String?, annotation: String?) async -> Bool {
        await receiveFirmwareFile(url)
    }

    public func scene(openURLContexts contexts: [OpenURLContext]) async {
        for context in contexts { _ = await receiveFirmwareFile(context.url) }
    }

    /// A scene app launched for a file finds it in the connection options, not in a call.
    public func sceneWillConnect() async {
        guard let text = context.launchOptions.url, let url = URL(string: text) else { return }
        _ = await receiveFirmwareFile(url)
    }

    /// The title of the alert's confirming button.
    public static let updateAction = "Update"
    public static let cancelAction = "Cancel"

    /// Reads and recognises the file, then asks; returns whether it was a firmware file.
    func receiveFirmwareFile(_ url: URL) async -> Bool {
        observer.update { $0.firmwareFilesReceived += 1 }
        // The name came from outside: shown escaped (`TerminalText`), given as it is.
        let name = TerminalText.escaped(url.lastPathComponent)
        let image: FirmwareImage
        do {
            let bytes = try FileAccess.read(url.path)
            image = try configuration.firmwareRecognizer(bytes, url.lastPathComponent)
        } catch {
            observer.update { $0.firmwareFilesRejected += 1 }
            await note("not a firmware file: \(name): \(error)")
            return false
        }
        // Runs as a task of its own: the delegate method returns at once (iOS expects it to), and
        // the update waits for the user.
        Task(executorPreference: context.executor) { [self] in await confirmUpdate(to: image, from: name) }
        return true
    }

    func confirmUpdate(to image: FirmwareImage, from name: String) async {
        let alert = AppAlert(
            title: "Update the headset?",
            message: "Install firmware \(image.version) (\(image.size) bytes, from \(name)) on the headset.",
            actions: [Self.cancelAction, Self.updateAction])
        guard await context.presentAlert(alert) == Self.updateAction else {
            observer.update { $0.firmwareUpdatesDeclined += 1 }
            await note("firmware update to \(image.version) declined")
            return
        }
        observer.update {
            $0.firmwareUpdatesStarted += 1
            $0.lastFirmwareVersion = image.version
        }
        await note("firmware update to \(image.version) started")
        await updateFirmware(to: image)
    }
}
