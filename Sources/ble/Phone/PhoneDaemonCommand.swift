import ArgumentParser
import BLE
import BLEDevices
import BLEPhone
import BLETransport
import BLEWire

/// `ble phone daemon`: the headset's phone app as a Linux daemon on a real radio, its
/// restoration record kept in a state directory across restarts (docs/phone-runtime.md).
struct PhoneDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Run the headset's phone app as a daemon on a controller, restoring its Bluetooth state across restarts.",
        discussion: """
            Runs the headset's phone app (bluetooth-central, restore identifier \
            'headset-central') on a simulated phone whose Bluetooth service is a host on the \
            controller at --transport, on wall-clock time. The app finds the headset (by \
            --headset-mac, or the first one), connects and subscribes to its heartbeats. Its \
            restoration record is saved in --state-dir at every change; a restarted daemon \
            restores it, launches the app for restoration (willRestoreState with the headset) and \
            the app connects and subscribes again. Prints a time-stamped line per launch, state \
            change, callback, record saved and what the app says, and one per \
            --heartbeats-per-line heartbeats.

            SIGTERM or SIGINT stops it gracefully: the app gets willTerminate, the record is saved \
            and the transport closed within --grace seconds; exit status 0. A second signal ends \
            it at once (status 128 + the signal's number), so does the end of the grace period \
            (status 3); status 2 when the app ended by itself, 1 when the daemon cannot start (a \
            record file that is not usable is named and left untouched).

            Example: ble phone daemon --transport tcp-client:127.0.0.1:9002 --state-dir /var/lib/headset-app
            """)

    @Option(
        name: .customLong("transport"),
        help: ArgumentHelp(
            "Where the phone's controller is: "
                + TransportMoniker.Scheme.allCases.filter { $0 != .virtual }.map(\.usage).joined(separator: ", ")
                + ".",
            valueName: "MONIKER"))
    var transport: String

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp("Keep the restoration record and the known peripherals here.", valueName: "directory"))
    var stateDir: String

    @Option(help: ArgumentHelp("The phone's profile: ios6, ios12, ios17 or ios26.", valueName: "name"))
    var profile = "ios17"

    @Option(
        name: .customLong("headset-mac"),
        help: ArgumentHelp("The headset to use: the MAC in its advertisement (default: the first).", valueName: "address"))
    var headsetMAC: String?

    @Option(help: ArgumentHelp("Seconds the app has to end after SIGTERM or SIGINT.", valueName: "seconds"))
    var grace: Double = 5

    @Option(
        name: .customLong("heartbeats-per-line"),
        help: ArgumentHelp("Print a line each time this many more heartbeats were handled.", valueName: "N"))
    var heartbeatsPerLine = 10

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        _ = try moniker()
        _ = try phoneProfile()
        _ = try mac()
        try checkSeconds(grace, option: "--grace")
        guard heartbeatsPerLine > 0 else {
            throw ValidationError("--heartbeats-per-line \(heartbeatsPerLine): expected a positive number")
        }
    }

    func moniker() throws -> TransportMoniker {
        let moniker: TransportMoniker
        do {
            moniker = try TransportMoniker(parsing: transport)
        } catch {
            throw ValidationError("--transport \(transport): \(error)")
        }
        guard moniker != .virtual else {
            throw ValidationError(
                "--transport virtual: the daemon runs on a controller over a transport; `ble phone run` runs apps on the virtual radio")
        }
        return moniker
    }

    func phoneProfile() throws -> PhoneProfile {
        guard let profile = PhoneProfile.named(profile) else {
            throw ValidationError(
                "--profile \(profile): expected one of " + PhoneProfile.all.map(\.name).joined(separator: ", "))
        }
        return profile
    }

    func mac() throws -> BluetoothAddress? {
        guard let headsetMAC else { return nil }
        guard let address = BluetoothAddress(headsetMAC) else {
            throw ValidationError(
                "--headset-mac '\(headsetMAC)' is not an address; expected six octets in hex: F0:F1:F2:F3:F4:F5")
        }
        return address
    }

    func run() async throws {
        let moniker = try moniker()
        let printer = DaemonPrinter(heartbeatsPerLine: heartbeatsPerLine)
        let observer = HeadsetAppObserver { line in printer.appSaid(line) }
        printer.watch(observer)
        let app = HeadsetAppConfiguration.bluetoothCentral(headsetMAC: try mac())
        let configuration = AppDaemonConfiguration(
            stateDirectory: stateDir, profile: try phoneProfile(), gracePeriod: .milliseconds(Int64(grace * 1000)),
            logger: logging.logger("ble.daemon"))
        let transportLogger = logging.logger("ble.transport")
        let daemon: AppDaemon
        do {
            daemon = try AppDaemon(
                app.declaration, configuration: configuration,
                radio: {
                    do {
                        return .transport(try await moniker.openHostTransport(logger: transportLogger))
                    } catch {
                        throw CommandFailure("--transport \(moniker): \(error)")
                    }
                },
                onEvent: { event in printer.print(event) },
                make: { context in HeadsetPhoneApp(context: context, configuration: app, observer: observer) })
        } catch {
            throw CommandFailure("\(error)")
        }
        printer.line(
            "daemon: \(app.declaration.bundleIdentifier) on \(moniker), state in \(stateDir)"
                + (daemon.savedRecord == nil ? "" : " (a saved record to restore)"))
        let exit: AppDaemonExit
        do {
            exit = try await daemon.runUntilSignalled()
        } catch {
            throw CommandFailure("\(error)")
        }
        guard exit.isClean else {
            printer.line("stopped at once: \(exit)", toErrors: true)
            throw ExitCode(exit.status)
        }
        printer.line("stopped: record saved, transport closed")
    }
}
