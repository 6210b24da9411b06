import Dispatch
import Foundation

/// SIGINT and SIGTERM as a stream instead of the end of the process, so that a command that runs
/// until stopped (`ble serve`, `ble subscribe`, `ble controller`) can unsubscribe, disconnect and exit 0.
final class StopSignals: @unchecked Sendable {
    // @unchecked Sendable: `sources` is set in init and only read again in deinit; `stream` is
    // Sendable.
    private let sources: [any DispatchSourceSignal]
    /// The signal numbers, as they arrive.
    let stream: AsyncStream<Int32>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        let queue = DispatchQueue(label: "ble stop signals")
        sources = [SIGINT, SIGTERM].map { number in
            // The default action would end the process before it cleans up.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// Waits for the first signal.
    func next() async -> Int32 {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() ?? SIGTERM
    }

    static func name(_ number: Int32) -> String { number == SIGINT ? "SIGINT" : "SIGTERM" }

    deinit {
        for source in sources { source.cancel() }
    }
}
