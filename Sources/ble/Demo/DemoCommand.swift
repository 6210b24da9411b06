import ArgumentParser

/// `ble demo`: the main job — a heart-rate sensor and a phone on the virtual radio.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A heart-rate sensor and a phone on the virtual radio: scan, connect, GATT, notifications.",
        discussion: """
            Two hosts of swift-ble, each on its own virtual controller, on one virtual air with an
            air-time model, in virtual time. --wire-tour instead shows the packets of such a
            connection through every layer of the wire format. --capture FILE records the phone's
            HCI packets, both ways, into a btsnoop file.
            """)

    @Flag(name: .customLong("wire-tour"), help: "Tour the packets of a connection through the wire format instead.")
    var wireTour = false

    @Flag(help: "With --wire-tour: print each packet's bytes as well.")
    var bytes = false

    @Option(help: "Write the phone's HCI traffic to FILE as a btsnoop capture (Wireshark, ble decode --btsnoop).")
    var capture: String?

    func run() async throws {
        if wireTour {
            var story = DemoStory(showBytes: bytes)
            try story.tell()
        } else {
            try await HeartRateDemo.run(capturePath: capture)
        }
    }
}
