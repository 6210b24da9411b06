import ArgumentParser
import BLE
import BLEController
import BLEDevices
import Foundation

/// `ble bench ota`: a firmware update of the virtual headset through the public API, on the link
/// the phone's policy negotiates, against the air-time model's rule-B prediction for it.
struct OTABenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ota",
        abstract: "Measure OTA goodput through the public API on the negotiated link.",
        discussion: """
            A phone (CentralManager) connects to the virtual headset with the interval asked for, \
            lets its link policy negotiate data length, PHY and ATT_MTU, and sends a random image \
            with the OTA engine. The sending phase is timed in virtual time (flash time excluded) \
            and compared with rule B's prediction for Write Commands of ATT_MTU − 3 octets on the \
            negotiated link: "as writes" counts the octets of each Write Command (frame and packet \
            header included), "firmware" each image byte once.
            Example: ble bench ota --interval 15 --link-policy iphone-modern
            """)

    @Option(help: "Image size in octets.") var size: Int = 512 * 1024
    @Option(help: "Connection interval in ms (a multiple of 1.25).") var interval: Double = 15
    @Option(name: .customLong("fault-rate"), help: "OTA packets the headset faults, 0…1.") var faultRate: Double = 0
    @OptionGroup var link: LinkPolicyOption

    func validate() throws {
        guard (1...16 * 1024 * 1024).contains(size) else { throw ValidationError("--size must be 1…16777216") }
        guard (7.5...4000).contains(interval), (interval / 1.25).rounded() * 1.25 == interval else {
            throw ValidationError("--interval must be 7.5…4000 ms, a multiple of 1.25")
        }
        guard (0...1).contains(faultRate) else { throw ValidationError("--fault-rate must be 0…1") }
    }

    func run() async throws {
        var parameters = HeadsetOTABenchmark.Parameters()
        parameters.imageSize = size
        parameters.interval = .microseconds(Int((interval * 1000).rounded()))
        parameters.linkPolicy = link.policy
        parameters.faultRate = faultRate
        let result = try await HeadsetOTABenchmark.run(parameters)
        print(Self.text(result))
    }

    /// Rule B's goodput for Write Commands of ATT_MTU − 3 octets on `link`, in kbit/s.
    static func prediction(for link: LinkParameters) -> Double {
        GoodputPrediction(link: LinkTiming(link), attMTU: link.attMTU, traffic: .writeWithoutResponse).goodputB
    }

    static func text(_ result: HeadsetOTABenchmark.Result) -> String {
        let predicted = prediction(for: result.link)
        func percent(_ value: Double) -> String { String(format: "%.1f %%", value / predicted * 100) }
        let summary = result.outcome.summary
        return [
            "ble bench ota — \(result.imageSize) bytes on \(result.link.summary)",
            "  outcome    \(result.outcome.failure.map { "failed: \($0)" } ?? "succeeded"), "
                + "\(summary.packetCount) packets of \(summary.packetSize), \(summary.packetsResent) resent",
            "  sending    \(String(format: "%.3f", Double(result.sendingTime.components.seconds) + Double(result.sendingTime.components.attoseconds) / 1e18)) s virtual",
            "  as writes  \(String(format: "%.0f", result.writeKbps)) kbit/s (\(percent(result.writeKbps)) of rule B)",
            "  firmware   \(String(format: "%.0f", result.firmwareKbps)) kbit/s (\(percent(result.firmwareKbps)) of rule B)",
            "  rule B     \(String(format: "%.0f", predicted)) kbit/s of Write Commands on this link",
        ].joined(separator: "\n")
    }
}
