import Logging
import Testing

@testable import ble

@Suite("The CLI's log handler escapes terminal controls")
struct TerminalSafeLogHandlerTests {
    @Test("Metadata of every shape (string, convertible, dictionary, array) and its keys are escaped")
    func metadataEscaped() {
        let metadata: Logger.Metadata = [
            "name\u{1B}": .string("A\nB\u{1B}[2J"),
            "nested": .dictionary(["k": .array([.string("\u{9B}x"), .stringConvertible("\u{202E}y")])]),
        ]
        let safe = TerminalSafeLogHandler.safe(metadata)
        #expect(safe["name\\u{1B}"]?.description == #"A\nB\u{1B}[2J"#)
        #expect(safe["nested"]?.description.contains(#"\u{9B}x"#) == true)
        #expect(safe["nested"]?.description.contains(#"\u{202E}y"#) == true)
        #expect(safe["name\u{1B}"] == nil)
    }
}
