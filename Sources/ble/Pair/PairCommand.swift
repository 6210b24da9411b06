import ArgumentParser
import BLE
import BLEWire

/// `ble pair ADDRESS [--io CAPABILITY] [--passkey N] [--confirm yes|no] [--bonds FILE] [--show-keys]`: connects,
/// pairs (Core 5.4 Vol 3 Part H) and prints the method, the link's security and the keys the
/// bond holds.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Connect to a device, pair with it, and print the method, the link's security and the bond.",
        discussion: """
            The method follows from both sides' IO capabilities (--io): Just Works, Passkey Entry \
            (a passkey shown here is printed; one to type comes from --passkey or standard input) \
            or Numeric Comparison (the number is printed; the answer comes from --confirm or \
            standard input). The bond goes to the bonds file (--bonds; `ble bonds list` shows it). \
            Key material is not printed unless --show-keys is given. A failed \
            pairing ends with its reason and exit status 1.

            Example: ble pair 00:00:5E:00:53:C0 --io display-yes-no --confirm yes
            """)

    @OptionGroup var device: DeviceArguments
    @OptionGroup var pairing: PairingOptions
    @Flag(help: "Print the keys of the bond (LTK, IRK, CSRK) in hex.")
    var showKeys = false

    func run() async throws {
        let pairing = self.pairing
        let showKeys = self.showKeys
        let pacing: RadioOptions.VirtualPacing = pairing.mayPrompt ? .wallClock : .unpaced
        // The bond is kept in the bonds file (`ble bonds list` shows it; DeviceArguments).
        let configure: @Sendable (HostConfiguration) -> HostConfiguration = { base in
            pairing.applied(to: base)
        }
        let lines = try await device.withPeripheral(pacing: pacing, configuration: configure) {
            peripheral, _ in
            let events = await peripheral.events()
            let security = try await attempt("pairing") { try await peripheral.pair() }
            var method: PairingMethod?
            var bond: Bond?
            for await event in events {
                if case .pairingStarted(let chosen) = event { method = chosen }
                if case .paired(let made) = event {
                    bond = made
                    break
                }
            }
            return PairingSummary(method: method, security: security, bond: bond).lines(showKeys: showKeys)
        }
        for line in lines { Console.out(line) }
    }
}

/// What `ble pair` prints once paired.
struct PairingSummary: Sendable {
    var method: PairingMethod?
    var security: LinkSecurity
    var bond: Bond?

    func lines(showKeys: Bool) -> [String] {
        var lines = ["paired: \(method.map { "\($0)" } ?? "method unknown")", "security: \(Self.describe(security))"]
        guard let bond else {
            lines.append("bond: none (one side does not bond)")
            return lines
        }
        var keys: [String] = []
        if bond.peerLongTermKey != nil || bond.localLongTermKey != nil { keys.append("LTK") }
        if bond.peerIRK != nil { keys.append("IRK") }
        if bond.peerCSRK != nil { keys.append("CSRK") }
        lines.append("bond: \(bond.peer), keys: \(keys.isEmpty ? "none" : keys.joined(separator: ", "))")
        guard showKeys else { return lines }
        if let ltk = bond.peerLongTermKey {
            lines.append(
                "LTK: \(ltk.key) EDIV \(Hex.prefixed(ltk.ediv, width: 4)) Rand \(Hex.prefixed(ltk.rand, width: 16))")
        }
        if let irk = bond.peerIRK { lines.append("IRK: \(irk)") }
        if let csrk = bond.peerCSRK { lines.append("CSRK: \(csrk)") }
        return lines
    }

    static func describe(_ security: LinkSecurity) -> String {
        switch security {
        case .unencrypted(let keyAvailable): keyAvailable ? "unencrypted (a bond's key is available)" : "unencrypted"
        case .encrypted(let keySize, let authenticated, let secureConnections):
            "encrypted, \(keySize)-octet key, "
                + (authenticated ? "authenticated (MITM protection)" : "unauthenticated (no MITM protection)")
                + (secureConnections ? ", LE Secure Connections" : ", LE legacy pairing")
        }
    }
}
