import ArgumentParser
import BLE
import Foundation

/// `--io CAPABILITY [--passkey N] [--confirm yes|no]`: how this side of a pairing takes part
/// (Core 5.4 Vol 3 Part H §2.3.2, §2.3.5): what it can show and type, and the user's answers
/// for scripts. Without the answers, they are asked on standard input (a terminal's prompt).
struct PairingOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The IO capability announced in pairing: "
                + IOCapabilityArgument.allCases.map(\.rawValue).joined(separator: ", ") + ".",
            valueName: "capability"))
    var io: IOCapabilityArgument = .noInputNoOutput

    @Option(
        help: ArgumentHelp(
            "Passkey Entry where this side types: the passkey (0–999999) the other device shows; "
                + "without it, it is asked on standard input.",
            valueName: "n"))
    var passkey: UInt32?

    @Option(
        help: ArgumentHelp(
            "Numeric Comparison: the answer (yes or no) to whether both devices show the same number; "
                + "without it, it is asked on standard input.",
            valueName: "yes|no"))
    var confirm: ConfirmAnswer?

    func validate() throws {
        if let passkey, passkey > 999_999 {
            throw ValidationError("--passkey \(passkey): a passkey has six decimal digits, 0 to 999999")
        }
    }

    /// The policy to pair with: the host's default with this IO capability.
    func applied(to configuration: HostConfiguration) -> HostConfiguration {
        var configuration = configuration
        configuration.security.ioCapability = io.capability
        configuration.pairingAgent = TerminalPairingAgent(
            passkey: passkey, confirm: confirm.map { $0 == .yes })
        return configuration
    }

    /// Whether pairing may ask the user something no flag answers (then the command follows
    /// the wall clock on the virtual radio, so that the SMP timeout is 30 real seconds).
    var mayPrompt: Bool {
        switch io {
        case .noInputNoOutput, .displayOnly: false
        case .displayYesNo: confirm == nil
        case .keyboardOnly: passkey == nil
        case .keyboardDisplay: passkey == nil || confirm == nil
        }
    }
}

/// The IO capabilities by their command-line names.
enum IOCapabilityArgument: String, CaseIterable, ExpressibleByArgument, Sendable {
    case displayOnly = "display-only"
    case displayYesNo = "display-yes-no"
    case keyboardOnly = "keyboard-only"
    case noInputNoOutput = "no-input-no-output"
    case keyboardDisplay = "keyboard-display"

    var capability: IOCapability {
        switch self {
        case .displayOnly: .displayOnly
        case .displayYesNo: .displayYesNo
        case .keyboardOnly: .keyboardOnly
        case .noInputNoOutput: .noInputNoOutput
        case .keyboardDisplay: .keyboardDisplay
        }
    }
}

enum ConfirmAnswer: String, CaseIterable, ExpressibleByArgument, Sendable {
    case yes
    case no
}
