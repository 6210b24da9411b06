import Benchmark
import WireBenchmarkCases

let benchmarks: @Sendable () -> Void = {
    for benchmarkCase in WireBenchmarkCases.all {
        Benchmark(
            benchmarkCase.name,
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
                scalingFactor: .kilo,
                maxDuration: .seconds(2),
                maxIterations: 1_000
            )
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(benchmarkCase.run())
            }
        }
    }
}
