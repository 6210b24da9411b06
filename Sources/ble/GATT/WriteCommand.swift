import ArgumentParser
import BLE
import BLEWire

/// `ble write ADDRESS UUID HEX [--without-response]`: Write Characteristic Value (Core 5.4
/// Vol 3 Part G §4.9.3; long values §4.9.4), or Write Without Response (§4.9.1).
struct WriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write a value, given in hex, to a characteristic.",
        discussion: """
            With a response (the default) the device acknowledges or answers with an ATT error; \
            values longer than one request go as prepared writes. --without-response sends a \
            Write Command, which needs the writeWithoutResponse property and fits in one packet.

            Example: ble write 00:00:5E:00:53:20 9C5A0003-7A3E-4B8F-9D6C-2F1E0B5A4C3D 02
            """)

    @OptionGroup var device: DeviceArguments

    @Argument(help: ArgumentHelp("The characteristic's UUID (180D, or 8-4-4-4-12).", valueName: "uuid"))
    var characteristic: String

    @Argument(help: ArgumentHelp("The value in hex (spaces and colons ignored).", valueName: "hex"))
    var value: String

    @Flag(help: "Send a Write Command (no response) instead of a Write Request.")
    var withoutResponse = false

    func validate() throws {
        _ = try parseUUID(characteristic)
        _ = try bytes()
    }

    func bytes() throws -> [UInt8] {
        guard let bytes = Hex.bytes(value) else {
            throw ValidationError("'\(value)' is not hex: use pairs of digits 0-9, a-f")
        }
        return bytes
    }

    func run() async throws {
        let uuid = try parseUUID(characteristic)
        let data = try bytes()
        let type: WriteType = withoutResponse ? .withoutResponse : .withResponse
        try await device.withPeripheral { peripheral, _ in
            let found = try await peripheral.characteristic(uuid)
            try await attempt("writing \(uuid.labelled)") {
                try await peripheral.writeValue(data, for: found, type: type)
            }
        }
        Console.out(
            "wrote \(data.count) octet\(data.count == 1 ? "" : "s") to \(uuid.labelled)"
                + (withoutResponse ? " (without response)" : ""))
    }
}
