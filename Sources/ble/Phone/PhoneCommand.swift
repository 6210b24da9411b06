import ArgumentParser

/// `ble phone`: the simulated phone (docs/phone-scenarios.md).
struct PhoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phone",
        abstract: "Run apps on a simulated phone (iOS execution rules) in virtual time.",
        subcommands: [PhoneRunCommand.self, PhoneDaemonCommand.self])
}
