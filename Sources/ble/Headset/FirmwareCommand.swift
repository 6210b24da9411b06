import ArgumentParser
import BLECompanion

/// `ble firmware inspect FILE`: what `ble ota --image FILE` would send, without a radio.
struct FirmwareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "firmware",
        abstract: "Inspect firmware files (raw, Intel HEX, MCUboot, Nordic DFU package).",
        subcommands: [FirmwareInspectCommand.self])
}

struct FirmwareInspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Recognise a firmware file by its content and say what it holds and what was verified.",
        discussion: """
            Prints the format, the version and where it came from, the size and SHA-256 of the \
            image `ble ota --image` would send, each check and each note; a damaged file exits \
            non-zero with the reason (docs/firmware-files.md).

            Example: ble firmware inspect zephyr.signed.bin
            """)

    @Argument(help: ArgumentHelp("The firmware file.", valueName: "file"))
    var file: String

    @Option(
        help: ArgumentHelp("The version to assume, MAJOR.MINOR.PATCH (as ble ota's --version).", valueName: "X.Y.Z"))
    var version: String?

    func run() throws {
        let recognised = try OTACommand.recognize(file, version: version, prefix: "")
        Console.out("file       \(file)")
        for line in recognised.summary { Console.out(line) }
    }
}
