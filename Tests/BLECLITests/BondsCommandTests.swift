import BLE
import BLEHost
import BLEWire
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ble bonds list|remove` on a bonds file written by `SQLiteBondStore` (Core 5.4 Vol 3 Part H
/// §2.4.1: the keys bonding keeps).
@Suite("ble bonds: list and remove the bonds of a file (Vol 3 Part H §2.4.1)")
struct BondsCommandTests {
    static let local = LEAddress(BluetoothAddress(0x00_00_5E_00_53_01), type: .public)
    static let sensor = LEAddress(BluetoothAddress(0x00_00_5E_00_53_10), type: .public)
    static let tag = LEAddress(BluetoothAddress(0xC0_11_22_33_44_55), type: .random)
    static let secret = SMPKey128(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)

    static func folder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ble-bonds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static func seed(_ path: String) throws {
        let store = try SQLiteBondStore(path: path)
        try store.save(
            Bond(
                local: local, peer: sensor, peerLongTermKey: LongTermKey(key: secret), peerIRK: secret,
                authenticated: true, secureConnections: true, keySize: 16))
        try store.save(
            Bond(
                local: local, peer: tag, peerLongTermKey: LongTermKey(key: secret, ediv: 0x1234, rand: 99),
                peerCSRK: secret, authenticated: false, secureConnections: false, keySize: 7))
    }

    @Test("list: one line per bond — identities, authenticated, SC, key size, IRK/CSRK held — and no key material")
    func list() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/bonds.sqlite"
        try Self.seed(path)
        let result = try CLI.run("bonds", "list", "--bonds", path)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        // Columns are separated by two spaces or more.
        let rows = lines.map { line in
            line.replacingOccurrences(of: "  +", with: "|", options: .regularExpression).split(separator: "|")
                .map(String.init)
        }
        #expect(rows.first == ["PEER", "LOCAL", "AUTHENTICATED", "SC", "KEY SIZE", "IRK", "CSRK"])
        #expect(
            rows.contains(["public 00:00:5E:00:53:10", "public 00:00:5E:00:53:01", "yes", "yes", "16", "yes", "no"]),
            "\(result.standardOutput)")
        #expect(
            rows.contains(["random C0:11:22:33:44:55", "public 00:00:5E:00:53:01", "no", "no", "7", "no", "yes"]),
            "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("0123456789ABCDEF"))
        #expect(!result.standardOutput.uppercased().contains("0123456789ABCDEF"))
        // --show-keys prints them.
        let keys = try CLI.run("bonds", "list", "--bonds", path, "--show-keys")
        #expect(keys.status == 0)
        #expect(keys.standardOutput.uppercased().contains("0123456789ABCDEFFEDCBA9876543210"))
        #expect(keys.standardOutput.contains("EDIV 4660 Rand 99"))
    }

    @Test("remove: the bonds with PEER go, the others stay; an unknown peer is exit 1")
    func remove() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/bonds.sqlite"
        try Self.seed(path)
        let removed = try CLI.run("bonds", "remove", "00:00:5E:00:53:10", "--bonds", path)
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(removed.standardOutput.contains("removed 1 bond with 00:00:5E:00:53:10"))
        #expect(try SQLiteBondStore(path: path).bonds().map(\.peer) == [Self.tag])
        let again = try CLI.run("bonds", "remove", "00:00:5E:00:53:10", "--bonds", path)
        #expect(again.status == 1)
        #expect(again.standardError.contains("no bond with 00:00:5E:00:53:10"))
        let bad = try CLI.run("bonds", "remove", "not-an-address", "--bonds", path)
        #expect(bad.status != 0)
    }

    @Test("A missing file lists no bonds and is not created; the default lives under $XDG_STATE_HOME")
    func missingAndDefault() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/none.sqlite"
        let result = try CLI.run("bonds", "list", "--bonds", path)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("no bonds"))
        #expect(!FileManager.default.fileExists(atPath: path))
        let help = try CLI.run("bonds", "list", "--help")
        #expect(help.standardOutput.contains("XDG_STATE_HOME"))
    }

    @Test("A damaged file (not SQLite, a directory, a FIFO) is exit 1 with the reason, and left untouched")
    func damaged() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = folder + "/text.sqlite"
        let contents = Data(repeating: 0x42, count: 2048)
        #expect(FileManager.default.createFile(atPath: text, contents: contents))
        let fifo = folder + "/fifo.sqlite"
        mkfifo(fifo, 0o644)
        let cases: [(String, String)] = [
            (text, "is damaged: not an SQLite database"), (folder, "is a directory, not a file"),
            (fifo, "is a named pipe (FIFO), not a regular file"),
        ]
        for (path, message) in cases {
            for arguments in [["bonds", "list", "--bonds", path], ["bonds", "remove", "00:00:5E:00:53:10", "--bonds", path]] {
                let result = try CLI.run(arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.standardError.contains(path), "\(result.standardError)")
                #expect(result.standardError.contains(message), "\(result.standardError)")
            }
        }
        #expect(FileManager.default.contents(atPath: text) == contents)
    }
}
