import ArgumentParser
import BLEWire

@main
struct BLECommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ble",
        abstract: "swift-ble: a Bluetooth Low Energy stack and companion-device toolkit.",
        discussion: """
            Today the wire layer is built: `ble decode` turns bytes into readable packets and
            `ble demo` tours the packets of a typical connection. Scanning, connecting, GATT and
            the virtual radio arrive with the host and radio issues (see the README).
            """,
        subcommands: [DemoCommand.self, DecodeCommand.self, BenchCommand.self, ControllerCommand.self]
    )
}
