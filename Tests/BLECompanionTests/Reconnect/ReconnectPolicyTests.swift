import BLE
import BLECompanion
import BLESimulation
import Testing

@Suite("Reconnect: capped exponential backoff with jitter")
struct ReconnectPolicyTests {
    @Test("Backoff: the base wait grows by the multiplier from the initial delay up to the cap")
    func baseDelays() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(500), multiplier: 3, maximumDelay: .seconds(10))
        let waits = (1...6).map { policy.baseDelay(beforeRetry: $0) }
        #expect(
            waits == [
                .milliseconds(500), .milliseconds(1500), .milliseconds(4500), .seconds(10), .seconds(10), .seconds(10),
            ])
        // A huge retry count stays at the cap.
        #expect(policy.baseDelay(beforeRetry: 5000) == .seconds(10))
    }

    @Test("Jitter: a draw of 0 shortens by the fraction, 0.5 leaves the wait, near 1 lengthens it")
    func jitterBounds() {
        let policy = ReconnectPolicy(initialDelay: .seconds(2), multiplier: 2, maximumDelay: .seconds(60), jitter: 0.25)
        #expect(policy.delay(beforeRetry: 1, unit: 0) == .milliseconds(1500))
        #expect(policy.delay(beforeRetry: 1, unit: 0.5) == .seconds(2))
        #expect(policy.delay(beforeRetry: 2, unit: 0.75) == .milliseconds(4500))
        var random = ScriptedRandom([ScriptedRandom.output(forUnit: 0.75)])
        #expect(ReconnectPolicy.unit(from: &random) == 0.75)
    }

    @Test("Jitter: seeded draws give the same waits every run, each within ± the fraction of its base")
    func seeded() {
        let policy = ReconnectPolicy(initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(30), jitter: 0.3)
        func waits() -> [Duration] {
            var random = SeededRandomGenerator(seed: 42)
            return (1...10).map { policy.delay(beforeRetry: $0, unit: ReconnectPolicy.unit(from: &random)) }
        }
        let first = waits()
        #expect(first == waits())
        for (index, wait) in first.enumerated() {
            let base = policy.baseDelay(beforeRetry: index + 1)
            #expect(wait >= base * 0.7 && wait <= base * 1.3)
        }
        // Not all the same factor: the jitter spreads.
        #expect(Set(first.enumerated().map { $0.element / policy.baseDelay(beforeRetry: $0.offset + 1) }).count > 1)
    }
}
