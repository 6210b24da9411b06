// swift-tools-version: 6.1
// Benchmarks of swift-ble, kept in their own package so the main build and its tests do not
// compile the benchmark harness. Run from the repository root:
//   swift package --package-path Benchmarks benchmark          (time, allocations)
//   Benchmarks/instructions.sh                                   (instructions, allocations per op)
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which differs between clones.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootIdentity = root.lastPathComponent.lowercased()

let package = Package(
    name: "swift-ble-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "WireBenchmarkCases",
            dependencies: [.product(name: "BLEWire", package: rootIdentity)]
        ),
        .executableTarget(
            name: "WireBenchmarks",
            dependencies: [
                "WireBenchmarkCases",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/WireBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "WireInstructionCounts",
            dependencies: ["WireBenchmarkCases"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
