import ArgumentParser
import BLEWire

@main
struct BLECommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ble",
        abstract: "swift-ble: a Bluetooth Low Energy stack and companion-device toolkit.",
        discussion: """
            `ble demo` tells the story of a headset and its phone app on the virtual radio, OTA \
            included (`--heart-rate`: a heart-rate sensor's). \
            `ble scan`, `gatt-dump`, `read`, `write` and `subscribe` are a GATT client, and \
            `ble serve` a GATT server described by a JSON file; by default they run on the virtual \
            radio among sample devices (HRS-1 at 00:00:5E:00:53:10, LOG-2 at 00:00:5E:00:53:20, \
            TAG-3 at 00:00:5E:00:53:30, HEADSET at 00:00:5E:00:53:40), or with --transport on any \
            controller over HCI. `ble headset` runs a virtual headset and `ble ota` updates one's \
            firmware over the air. `ble l2cap listen` and `ble l2cap connect` accept and open L2CAP \
            connection-oriented channels. \
            `ble controller` serves virtual controllers to other hosts over TCP or UNIX sockets, \
            `ble decode` turns bytes into readable packets and `ble bench` measures the air-time \
            model. `ble bonds` lists and removes the bonds kept in a bonds file. \
            `ble firmware inspect` says what a firmware file holds and what was verified.
            """,
        subcommands: [
            DemoCommand.self, ScanCommand.self, GATTDumpCommand.self, ReadCommand.self, WriteCommand.self,
            SubscribeCommand.self, ServeCommand.self, HeadsetCommand.self, OTACommand.self, ControllerCommand.self,
            DecodeCommand.self, BenchCommand.self, L2CAPCommand.self, BondsCommand.self, PairCommand.self,
            PhoneCommand.self, FirmwareCommand.self,
        ]
    )
}
