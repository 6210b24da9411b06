import ArgumentParser
import BLE
import BLEWire
import Foundation

/// `ble l2cap …`: L2CAP connection-oriented channels (LE credit based, Core 5.4 Vol 3 Part A
/// §4.22–§4.24).
struct L2CAPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "l2cap", abstract: "Open or accept L2CAP connection-oriented channels.",
        subcommands: [L2CAPListenCommand.self, L2CAPConnectCommand.self])

    /// A PSM argument: 0x-prefixed hex or decimal, 1…255 (LE SPSMs, §4.22).
    static func parsePSM(_ text: String) throws -> L2CAPPSM {
        let value: UInt16? =
            text.lowercased().hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text, radix: 10)
        guard let value, (1...0xFF).contains(value) else {
            throw ValidationError("'\(text)' is not an LE PSM: expected 1…255 or 0x01…0xFF (published ones are 0x80…0xFF)")
        }
        return value
    }

    static func format(_ psm: L2CAPPSM) -> String { "\(Hex.prefixed(psm, width: 4)) (\(psm))" }

    /// One SDU from a peer, for the terminal: its length, its hex and its text (Console escapes
    /// control characters and invalid UTF-8, so a peer cannot drive the terminal).
    static func render(_ sdu: [UInt8], from peer: String) -> String {
        let shown = sdu.prefix(64)
        let more = sdu.count > shown.count ? "…" : ""
        let line = "\(peer): \(sdu.count) octet\(sdu.count == 1 ? "" : "s") \(Hex.string(Array(shown)))\(more)"
        // The text beside the hex only when it is text; line breaks shown as escapes so that one
        // SDU stays one line.
        guard let text = String(validating: shown, as: UTF8.self) else { return line }
        let oneLine = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r")
        return line + " \"\(oneLine)\(more)\""
    }
}
