import ArgumentParser
import BLE
import BLEDevices
import BLEPhone
import Foundation

/// `ble bench phone`: a day of a backgrounded app and its headset on the simulated phone, timed.
struct PhoneBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phone",
        abstract: "Time a day of a backgrounded app connected to a headset that beats once a second.",
        discussion: """
            The headset's phone app (bluetooth-central, state restoration) connects to a virtual \
            headset on a simulated phone, then goes to the background for --hours of virtual time \
            while the headset sends a heartbeat every second, each one through the air, the phone's \
            host, the system Bluetooth service and the phone's inbox. With the profile's 10 s wake \
            window the app stays awake between heartbeats; --wake-window 0.5 suspends it after each \
            and wakes it for the next. Prints the wall time, what the app handled and what the \
            phone did. Build with -c release for the figure the README reports.
            Example: .build/release/ble bench phone --hours 24 --wake-window 0.5
            """)

    @Option(help: "Virtual hours in the background.") var hours: Double = 24
    @Option(name: .customLong("wake-window"), help: "The phone's wake window in seconds (0–30; default: the profile's).")
    var wakeWindow: Double?
    @Option(help: "The phone's profile: ios6, ios12, ios17 or ios26.") var profile: String = "ios17"

    func validate() throws {
        guard hours > 0, hours <= 24 * 7 else { throw ValidationError("--hours must be above 0 and at most 168") }
        if let wakeWindow, !(0...30).contains(wakeWindow) {
            throw ValidationError("--wake-window must be 0…30 seconds")
        }
        guard PhoneProfile.named(profile) != nil else {
            throw ValidationError(
                "--profile \(profile): expected one of \(PhoneProfile.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() async throws {
        var parameters = PhoneBackgroundBenchmark.Parameters()
        parameters.duration = .milliseconds(Int64((hours * 3_600_000).rounded()))
        parameters.wakeWindow = wakeWindow.map { .milliseconds(Int64(($0 * 1000).rounded())) }
        parameters.profile = PhoneProfile.named(profile) ?? .ios17
        let result = try await PhoneBackgroundBenchmark.run(parameters)
        print(Self.text(result))
    }

    static func text(_ result: PhoneBackgroundBenchmark.Result) -> String {
        let seconds = AirtimeBenchCommand.seconds
        let virtual = seconds(result.parameters.duration)
        let wall = seconds(result.wall)
        let window = result.parameters.wakeWindow ?? result.parameters.profile.wakeWindow
        return [
            "ble bench phone — \(String(format: "%g", virtual / 3600)) h in the background on \(result.parameters.profile), "
                + "wake window \(String(format: "%g", seconds(window))) s",
            "  link       \(result.link?.summary ?? "unknown")",
            "  heartbeats \(result.heartbeatsSent) sent, \(result.counts.heartbeats) handled by the app, "
                + "\(result.counts.jobRuns) runs of its device-driven job, \(result.counts.appTimerFirings) of its own timer",
            "  phone      \(result.phone.wakes) wakes, \(result.phone.eventsDelivered) events delivered, "
                + "\(result.phone.eventsQueued) queued, \(result.phone.eventsDropped) dropped, \(result.phone.kills) kills; "
                + "\(result.traceEntries) trace entries",
            "  scheduling \(result.scheduling.jobs) jobs, \(result.scheduling.events) air events",
            "  wall       \(String(format: "%.3f", wall)) s for \(String(format: "%.0f", virtual)) s of virtual time "
                + "(\(String(format: "%.0f", wall > 0 ? virtual / wall : 0))× real time)",
        ].joined(separator: "\n")
    }
}
