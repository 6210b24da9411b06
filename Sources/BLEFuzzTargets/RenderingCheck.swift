import BLEWire
import Foundation

/// The renderer's promises, checked on every value a target decoded: text, JSON and the
/// value's `description` come out for any value (no trap, no endless recursion), and the JSON
/// parses.
enum RenderingCheck {
    static func check(_ value: Any, _ what: String) throws(FuzzFailure) {
        if KnownIssues.rendersWithoutEnd(value) { return }
        if let describable = value as? any CustomStringConvertible { _ = describable.description }
        let rendered = Rendering.render(value)
        _ = Rendering.text(of: rendered)
        let json = Rendering.json(of: rendered)
        let parsed = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        try require(parsed != nil, "\(what): the JSON rendering does not parse: \(json)")
    }
}

/// Inputs the targets step around because of a bug found by fuzzing that another change is
/// fixing; each is listed with its reproducer in Fuzz/README.md. Remove an entry when its fix
/// is merged (its reproducer stays in the corpus as a regression).
enum KnownIssues {
    /// Issue 12 item 1: rendering HCI LE Scan Timeout (H4 `04 3E 01 11`, Core 5.4 Vol 4 Part E
    /// §7.7.65.17), the one enum case without fields among the wire values, recurses without
    /// end (the enum-case naming calls `description`, which renders the value again).
    static func rendersWithoutEnd(_ value: Any) -> Bool {
        switch value {
        case let event as HCIEvent: if case .le(.scanTimeout) = event { return true }
        case let event as LEMetaEvent: if case .scanTimeout = event { return true }
        case let packet as HCIPacket: if case .event(let event) = packet { return rendersWithoutEnd(event) }
        default: break
        }
        return false
    }
}

extension KnownIssues {
    /// Issue 12 item 7: a Prepare Write Request whose part is longer than ATT_MTU − 5 is echoed
    /// in a Prepare Write Response longer than the ATT_MTU (Core 5.4 Vol 3 Part F §3.4.6.1).
    static func prepareWriteEchoesPastMTU(_ requestOpcode: UInt8) -> Bool {
        requestOpcode == ATTOpcode.prepareWriteRequest.rawValue
    }

    /// Issue 12 item 7: the undefined request opcode 0x00 gets no answer (it should get Request
    /// Not Supported, Part F §3.4.1.1).
    static func requestGoesUnanswered(_ requestOpcode: UInt8) -> Bool { requestOpcode == 0x00 }
}
