import Benchmark
import WireBenchmarkCases

let benchmarks: @Sendable () -> Void = {
    for benchmarkCase in WireBenchmarkCases.all {
        Benchmark(
            benchmarkCase.name,
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
                scalingFactor: benchmarkCase.isLarge ? .one : .kilo,
                maxDuration: .seconds(2),
                maxIterations: benchmarkCase.isLarge ? 200 : 1_000
            )
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(benchmarkCase.run())
            }
        }
    }
}
