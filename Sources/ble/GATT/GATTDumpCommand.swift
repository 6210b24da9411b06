import ArgumentParser
import BLE

/// `ble gatt-dump ADDRESS [--json]`: connects and prints the whole attribute database.
struct GATTDumpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt-dump",
        abstract: "Connect to a device and print its services, characteristics and descriptors.",
        discussion: """
            Runs a full discovery — primary services, the services they include (secondary ones \
            too, with their characteristics), characteristics, descriptors — and prints it as a tree \
            with handles and the names of well-known UUIDs, or with --json as one line, keys sorted:
              {"services":[{"characteristics":[{"declaration","descriptors":[{"handle","uuid"}],
               "properties":[…],"uuid","value"}],"end","includes":[{"end","start","uuid"}],
               "primary","start","uuid"}]}
            Handles are integers, 16-bit UUIDs four upper-case hex digits, 128-bit UUIDs \
            upper-case canonical, properties Core Bluetooth's names.

            Example: ble gatt-dump 00:00:5E:00:53:10 --json
            """)

    @OptionGroup var device: DeviceArguments

    @Flag(help: "Print the database as one JSON object.")
    var json = false

    func run() async throws {
        let dump = try await device.withPeripheral { peripheral, _ in
            try await GATTDatabaseDump.discover(peripheral)
        }
        if json {
            Console.out(try dump.json())
        } else {
            for line in dump.text { Console.out(line) }
        }
    }
}
