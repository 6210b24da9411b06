import Foundation
import Testing

/// Every module locks through BLELocking's `Locked`, which ThreadSanitizer sees; a
/// `Synchronization.Mutex` it cannot see on Linux would bring back a false race report on every
/// contended access (`scripts/sanitize thread`).
@Suite("Locking: one lock ThreadSanitizer can see")
struct LockingTests {
    @Test("No source or test file declares a Synchronization.Mutex")
    func noMutex() throws {
        let mutex = try NSRegularExpression(pattern: #"\bMutex\s*[<(]"#)
        var checked = 0
        for folder in ["Sources", "Tests"] {
            let url = ModuleGraphTests.root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else {
                throw PackageGraph.Malformed(description: "no folder \(folder)")
            }
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                let range = NSRange(text.startIndex..., in: text)
                #expect(mutex.firstMatch(in: text, range: range) == nil, "\(file.lastPathComponent) uses Mutex")
                checked += 1
            }
        }
        #expect(checked > 100)
    }
}
