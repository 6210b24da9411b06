import BLEFuzzTargets
import Foundation
import Testing

/// The seed corpus of every fuzz target, and the reproducer of every crash fuzzing found
/// (kept beside the seeds once fixed), replayed through the target: each must keep its
/// promises (Fuzz/README.md).
@Suite("Fuzz corpus: seeds and crash reproducers replayed through every fuzz target")
struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    @Test("Every input of the target's corpus keeps the target's promises", arguments: FuzzTarget.allCases)
    func replay(target: FuzzTarget) throws {
        let directory = Self.corpus.appendingPathComponent(target.rawValue).path
        let (count, failures) = try CorpusReplay.replay(target, paths: [directory])
        #expect(count > 0, "no seed corpus for \(target.rawValue)")
        for failure in failures { Issue.record("\(failure)") }
    }
}
