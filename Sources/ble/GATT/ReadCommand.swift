import ArgumentParser
import BLE
import BLEWire

/// `ble read ADDRESS UUID`: reads a characteristic's whole value (Core 5.4 Vol 3 Part G §4.8.1,
/// and Read Long Characteristic Values, §4.8.3, when it fills a response).
struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read a characteristic's value and print it in hex.",
        discussion: """
            Values longer than one response are read to the end with Read Blob requests. An ATT \
            error, a characteristic that is not there or lacks the read property ends with a \
            message and exit status 1.

            Example: ble read 00:00:5E:00:53:20 9C5A0002-7A3E-4B8F-9D6C-2F1E0B5A4C3D
            """)

    @OptionGroup var device: DeviceArguments

    @Argument(help: ArgumentHelp("The characteristic's UUID (180D, or 8-4-4-4-12).", valueName: "uuid"))
    var characteristic: String

    func validate() throws { _ = try parseUUID(characteristic) }

    func run() async throws {
        let uuid = try parseUUID(characteristic)
        let value = try await device.withPeripheral { peripheral, _ in
            let found = try await peripheral.characteristic(uuid)
            return try await attempt("reading \(uuid.labelled)") { try await peripheral.readValue(for: found) }
        }
        Console.out(Hex.string(value))
    }
}
