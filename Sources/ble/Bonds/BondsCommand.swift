import ArgumentParser
import BLE
import BLEHost
import BLEWire

/// `ble bonds list|remove`: the bonds a `--bonds` file holds (Core 5.4 Vol 3 Part H §2.4.1:
/// the keys pairing distributed, kept for reconnection).
struct BondsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bonds",
        abstract: "List or remove the bonds kept in a bonds file.",
        discussion: """
            Bonds are what pairing keeps to encrypt again without pairing: keys, and whether they \
            were authenticated. They live in an SQLite file readable by its owner only; --bonds \
            names it (default: $XDG_STATE_HOME/swift-ble/bonds.sqlite, else \
            ~/.local/state/swift-ble/bonds.sqlite). A file that is not a bonds file is reported \
            (exit 1) and left untouched.
            """,
        subcommands: [BondsListCommand.self, BondsRemoveCommand.self],
        defaultSubcommand: BondsListCommand.self
    )
}

/// `ble bonds list [--bonds FILE] [--show-keys]`.
struct BondsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the bonds: peer and local identity, authenticated, Secure Connections, key size, keys held.",
        discussion: """
            One line per bond. No key material is printed unless --show-keys is given (then each \
            key follows its bond, most significant octet first as the specification prints keys).
            """)

    @OptionGroup var bonds: BondsFileOption

    @Flag(help: "Also print the keys (LTKs with EDIV and Rand, IRK, CSRK).")
    var showKeys = false

    func run() throws {
        let path = bonds.resolvedPath
        guard let store = try bonds.existingStore() else {
            Console.out("no bonds (\(path) does not exist)")
            return
        }
        let all: [Bond]
        do {
            all = try store.bonds()
        } catch {
            throw CommandFailure(error.description)
        }
        guard !all.isEmpty else {
            Console.out("no bonds in \(path)")
            return
        }
        let header = ["PEER", "LOCAL", "AUTHENTICATED", "SC", "KEY SIZE", "IRK", "CSRK"]
        let rows = all.map { bond in
            [
                Self.identity(bond.peer), Self.identity(bond.local), bond.authenticated ? "yes" : "no",
                bond.secureConnections ? "yes" : "no", "\(bond.keySize)", bond.peerIRK != nil ? "yes" : "no",
                bond.peerCSRK != nil ? "yes" : "no",
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingTrailingSpaces
        }
        Console.out(line(header))
        for (bond, row) in zip(all, rows) {
            Console.out(line(row))
            if showKeys { for key in Self.keys(of: bond) { Console.out("    " + key) } }
        }
    }

    /// "public 00:00:5E:00:53:10" / "random C0:…".
    static func identity(_ address: LEAddress) -> String {
        "\(address.type.isRandom ? "random" : "public") \(address.address)"
    }

    static func keys(of bond: Bond) -> [String] {
        var lines: [String] = []
        if let key = bond.peerLongTermKey {
            lines.append("peer LTK \(key.key) EDIV \(key.ediv) Rand \(key.rand)")
        }
        if let key = bond.localLongTermKey {
            lines.append("local LTK \(key.key) EDIV \(key.ediv) Rand \(key.rand)")
        }
        if let irk = bond.peerIRK { lines.append("peer IRK \(irk)") }
        if let csrk = bond.peerCSRK {
            lines.append("peer CSRK \(csrk) SignCounter \(bond.peerSignCounter.map { "\($0)" } ?? "none")")
        }
        if let csrk = bond.localCSRK { lines.append("local CSRK \(csrk) SignCounter \(bond.localSignCounter)") }
        return lines
    }
}

/// `ble bonds remove PEER [--bonds FILE]`.
struct BondsRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove the bonds with a peer (under every local identity).",
        discussion: "Exit status 1 when the file holds no bond with that peer.")

    @Argument(help: ArgumentHelp("The peer's identity address, F0:F1:F2:F3:F4:F5.", valueName: "PEER"))
    var peer: String

    @OptionGroup var bonds: BondsFileOption

    func run() throws {
        guard let address = BluetoothAddress(peer) else {
            throw ValidationError("\(peer) is not an address: use F0:F1:F2:F3:F4:F5")
        }
        let path = bonds.resolvedPath
        guard let store = try bonds.existingStore() else {
            throw CommandFailure("no bond with \(address): \(path) does not exist")
        }
        var removed = 0
        do {
            for bond in try store.bonds() where bond.peer.address == address {
                if try store.remove(local: bond.local, peer: bond.peer) { removed += 1 }
            }
        } catch {
            throw CommandFailure(error.description)
        }
        guard removed > 0 else { throw CommandFailure("no bond with \(address) in \(path)") }
        Console.out("removed \(removed) bond\(removed == 1 ? "" : "s") with \(address)")
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
