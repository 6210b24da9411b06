#if canImport(Glibc)
    import Glibc
#endif
import WireBenchmarkCases

// Runs one case N times, for counting instructions and allocations under valgrind:
//   WireInstructionCounts CASE N
// The script runs it twice (N and 0) and divides the difference by N, which removes start-up.
let arguments = CommandLine.arguments
if arguments.count == 2 && arguments[1] == "--list" {
    for benchmarkCase in WireBenchmarkCases.all { print(benchmarkCase.name) }
} else if arguments.count == 3, let benchmarkCase = WireBenchmarkCases.named(arguments[1]),
    let iterations = Int(arguments[2]), iterations >= 0
{
    // Warm lazily-built inputs outside the counted difference.
    var sink = benchmarkCase.run()
    for _ in 0..<iterations { sink &+= benchmarkCase.run() }
    if sink == 42 { print("") }
} else {
    print("usage: WireInstructionCounts CASE ITERATIONS | --list")
    exit(2)
}
