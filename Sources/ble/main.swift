import ArgumentParser
import BLEWire

@main
struct BLECommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ble", abstract: "swift-ble")
    func run() throws {}
}
