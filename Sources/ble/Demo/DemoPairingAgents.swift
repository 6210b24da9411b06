import BLE

/// The demo's two people at pairing time (Core 5.4 Vol 3 Part H §2.3.5.6.2, Numeric
/// Comparison): the phone (display and keyboard, as an iPhone) and the headset (an LED
/// display of six digits and a yes button) show the same number and each user says yes.
struct DemoPairingAgent: PairingAgent {
    let who: String
    let log: StoryLog

    func authorizePairing(_ request: PairingRequestInfo) async -> Bool { true }

    func displayPasskey(_ passkey: UInt32, for request: PairingRequestInfo) async {
        log.say("\(who): shows the passkey \(Self.digits(passkey))")
    }

    func requestPasskey(for request: PairingRequestInfo) async -> UInt32? { nil }

    func confirmNumericComparison(_ value: UInt32, for request: PairingRequestInfo) async -> Bool {
        log.say("\(who): shows \(Self.digits(value)); the user checks the other screen and confirms")
        return true
    }

    func outOfBandData(for request: PairingRequestInfo) async -> OutOfBandData? { nil }

    static func digits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }
}

extension HostConfiguration {
    /// This configuration with an IO capability and an agent for the demo's pairing.
    func pairing(as io: IOCapability, agent: DemoPairingAgent) -> HostConfiguration {
        var configuration = self
        configuration.security.ioCapability = io
        configuration.pairingAgent = agent
        return configuration
    }
}
