import BLE
import Foundation

/// The user's part in pairing at a terminal (Core 5.4 Vol 3 Part H §2.3.5): the method and a
/// passkey to show are printed; a passkey to type and a numeric comparison are taken from the
/// command's flags, else asked on standard input (one line; end of input declines).
struct TerminalPairingAgent: PairingAgent {
    let passkey: UInt32?
    let confirm: Bool?

    func authorizePairing(_ request: PairingRequestInfo) async -> Bool {
        Console.out("pairing with \(request.peer): \(request.method)")
        return true
    }

    func displayPasskey(_ passkey: UInt32, for request: PairingRequestInfo) async {
        Console.out("passkey: \(Self.sixDigits(passkey)) (type it on the other device)")
    }

    func requestPasskey(for request: PairingRequestInfo) async -> UInt32? {
        if let passkey { return passkey }
        Console.err("enter the passkey the other device shows:")
        guard let line = await Self.readLine(), let value = UInt32(line), value <= 999_999 else {
            Console.err("no passkey: pairing fails (Passkey Entry Failed)")
            return nil
        }
        return value
    }

    func confirmNumericComparison(_ value: UInt32, for request: PairingRequestInfo) async -> Bool {
        Console.out("numeric comparison: \(Self.sixDigits(value))")
        if let confirm {
            Console.out(confirm ? "confirmed (--confirm yes)" : "rejected (--confirm no)")
            return confirm
        }
        Console.err("does the other device show \(Self.sixDigits(value))? [y/n]")
        let answer = await Self.readLine()?.lowercased()
        return answer == "y" || answer == "yes"
    }

    func outOfBandData(for request: PairingRequestInfo) async -> OutOfBandData? { nil }

    static func sixDigits(_ value: UInt32) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// One line of standard input, trimmed; read off the radio's executor (it blocks).
    private static func readLine() async -> String? {
        await Task.detached { Swift.readLine()?.trimmingCharacters(in: .whitespaces) }.value
    }
}
