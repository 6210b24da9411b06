import ArgumentParser
import BLE

/// `--link-policy NAME`: how the command's host negotiates its links (`LinkPolicy`: data length,
/// PHY, ATT_MTU, the connection parameters it accepts).
struct LinkPolicyOption: ParsableArguments {
    @Option(
        name: .customLong("link-policy"),
        help: ArgumentHelp(
            "How links are negotiated, as a phone would: "
                + LinkPolicy.profiles.map(\.name).joined(separator: ", ") + ".",
            valueName: "NAME"))
    var name = LinkPolicy.iphoneModern.name

    func validate() throws {
        guard LinkPolicy(named: name) != nil else {
            throw ValidationError(
                "--link-policy \(name): not one of \(LinkPolicy.profiles.map(\.name).joined(separator: ", "))")
        }
    }

    var policy: LinkPolicy { LinkPolicy(named: name) ?? .iphoneModern }

    /// `configuration` with this policy.
    func applied(to configuration: HostConfiguration) -> HostConfiguration {
        var configuration = configuration
        configuration.linkPolicy = policy
        return configuration
    }
}
