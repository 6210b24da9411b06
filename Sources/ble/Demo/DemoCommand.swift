import ArgumentParser

/// `ble demo`: the main job — a headset and its phone app on the virtual radio, the whole story.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A headset and its phone app on the virtual radio: scan, connect, events, OTA, reconnect.",
        discussion: """
            Two hosts of swift-ble, each on its own virtual controller, on one virtual air with an \
            air-time model, in virtual time. The phone finds the headset by the MAC in its \
            advertisement, connects, prints its gestures and sensor events, runs a job on its \
            heartbeats, and updates its firmware (256 KiB, with injected packet errors and a link \
            loss mid-transfer, resumed), then finds it again by its MAC at its new address. \
            --heart-rate tells the shorter story of a heart-rate sensor (GATT read, write, \
            notifications). --wire-tour instead shows the packets of such a connection through \
            every layer of the wire format. --capture FILE records the phone's HCI packets, both \
            ways, into a btsnoop file. Chapter 2 puts the app on a simulated iPhone (iOS 17 rules): \
            a foreground-only app misses the headset's events until reopened; with bluetooth-central \
            the heartbeat wakes it while its own timer stands; a background task ends at its \
            budget; a memory-pressure kill is undone by state restoration; a force-quit is not. \
            --timeline FILE draws that chapter's timeline as SVG.
            """)

    @Flag(name: .customLong("heart-rate"), help: "Tell the heart-rate sensor's story instead.")
    var heartRate = false

    @Flag(name: .customLong("wire-tour"), help: "Tour the packets of a connection through the wire format instead.")
    var wireTour = false

    @Flag(help: "With --wire-tour: print each packet's bytes as well.")
    var bytes = false

    @Option(help: "Write the phone's HCI traffic to FILE as a btsnoop capture (Wireshark, ble decode --btsnoop).")
    var capture: String?

    @Option(help: ArgumentHelp("Draw chapter 2's phone timeline into this SVG file.", valueName: "file.svg"))
    var timeline: String?

    @OptionGroup var logging: LoggingOptions
    @OptionGroup var link: LinkPolicyOption

    func run() async throws {
        if wireTour {
            var story = DemoStory(showBytes: bytes)
            try story.tell()
        } else if heartRate {
            try await HeartRateDemo.run(capturePath: capture, phoneHost: link.applied(to: logging.hostConfiguration))
        } else {
            try await HeadsetDemo.run(capturePath: capture, phoneHost: link.applied(to: logging.hostConfiguration))
            try await PhoneChapter(timelinePath: timeline).tell()
        }
    }
}
