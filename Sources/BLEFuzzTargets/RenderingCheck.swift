import BLEWire
import Foundation

/// The renderer's promises, checked on every value a target decoded: text, JSON and the
/// value's `description` come out for any value (no trap, no endless recursion), and the JSON
/// parses.
enum RenderingCheck {
    static func check(_ value: Any, _ what: String) throws(FuzzFailure) {
        if let describable = value as? any CustomStringConvertible { _ = describable.description }
        let rendered = Rendering.render(value)
        _ = Rendering.text(of: rendered)
        let json = Rendering.json(of: rendered)
        let parsed = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        try require(parsed != nil, "\(what): the JSON rendering does not parse: \(json)")
    }
}
