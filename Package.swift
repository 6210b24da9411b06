// swift-tools-version: 6.2
// swift-ble: a Bluetooth Low Energy stack and companion-device toolkit in Swift.
// Layers (dependencies point down only; docs/architecture.md draws the graph, and a test checks
// this file against it):
//   ble (CLI) → BLEBenchmarks, BLEDevices → BLEPhone → BLECompanion → BLE → BLEHost → BLETransport → BLEWire
//   BLE → BLEVirtualHCI → BLEController → BLEWire, BLESimulation
//   The host and the virtual controller never use each other's types, not even transitively:
//   they meet only through a transport, as H4 bytes. BLEVirtualHCI (the in-process pipe to a
//   virtual controller and the HCI server of virtual controllers) is the one target that sees both
//   a transport and a controller.
//   BLELocking, under everything that locks, is the one lock (a pthread mutex ThreadSanitizer
//   can see; `Synchronization.Mutex` it cannot on Linux).
import PackageDescription

/// swift-log, for every target that logs (not BLEWire, which stays pure, nor BLESimulation).
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
    name: "swift-ble",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BLEWire", targets: ["BLEWire"]),
        .library(name: "BLESimulation", targets: ["BLESimulation"]),
        .library(name: "BLEController", targets: ["BLEController"]),
        .library(name: "BLETransport", targets: ["BLETransport"]),
        .library(name: "BLEVirtualHCI", targets: ["BLEVirtualHCI"]),
        .library(name: "BLEHost", targets: ["BLEHost"]),
        .library(name: "BLE", targets: ["BLE"]),
        .library(name: "BLECompanion", targets: ["BLECompanion"]),
        .library(name: "BLEPhone", targets: ["BLEPhone"]),
        .library(name: "BLEDevices", targets: ["BLEDevices"]),
        .executable(name: "ble", targets: ["ble"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        .target(name: "BLEWire"),
        // The one lock of every module (see Locked.swift for why not `Synchronization.Mutex`).
        .target(name: "BLELocking"),
        .target(name: "BLESimulation", dependencies: ["BLELocking"]),
        .target(name: "BLEController", dependencies: ["BLEWire", "BLESimulation", logging]),
        .target(
            name: "BLETransport",
            dependencies: [
                "BLEWire", "BLELocking",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                logging,
            ]
        ),
        .target(
            name: "BLEVirtualHCI",
            dependencies: [
                "BLEWire", "BLESimulation", "BLEController", "BLETransport", "BLELocking",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                logging,
            ]
        ),
        .target(
            name: "BLEHost",
            dependencies: [
                "BLEWire", "BLETransport", "BLELocking",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                logging,
            ]
        ),
        .target(
            name: "BLE",
            dependencies: [
                "BLEHost", "BLETransport", "BLEVirtualHCI", "BLEController", "BLESimulation", "BLEWire", "BLELocking",
                .product(name: "GRDB", package: "GRDB.swift"),
                logging,
            ]
        ),
        .target(
            name: "BLECompanion",
            dependencies: [
                "BLE", "BLEHost", "BLETransport", "BLEWire", "BLESimulation", "BLELocking",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
                logging,
            ]
        ),
        // The simulated phone: app states, suspension, Bluetooth wakes, background tasks, state
        // restoration, on the simulation's virtual time; an app as a Linux daemon (AppDaemon:
        // graceful shutdown by ServiceLifecycle, the restoration record in a GRDB file).
        .target(
            name: "BLEPhone",
            dependencies: [
                "BLECompanion", "BLE", "BLEHost", "BLEController", "BLETransport", "BLEWire", "BLESimulation",
                "BLELocking", logging, .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "BLEDevices",
            dependencies: [
                "BLEPhone", "BLECompanion", "BLE", "BLEHost", "BLETransport", "BLEWire", "BLESimulation", "BLELocking",
                logging,
            ]
        ),
        // Throughput and air-time benchmarks on two full stacks (`ble bench`, and the tests that
        // pin what they measure).
        .target(
            name: "BLEBenchmarks",
            dependencies: [
                "BLE", "BLEHost", "BLETransport", "BLEVirtualHCI", "BLEController", "BLESimulation", "BLEWire",
            ]
        ),
        .executableTarget(
            name: "ble",
            dependencies: [
                "BLE", "BLEWire", "BLESimulation", "BLEController", "BLETransport", "BLEVirtualHCI", "BLEHost",
                "BLECompanion", "BLEPhone", "BLEDevices", "BLEBenchmarks", "BLELocking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging,
            ]
        ),
        // Fuzz targets (scripts/fuzz, Fuzz/README.md): every decoder of untrusted input, the
        // renderer, and the host, GATT server and virtual controller fed hostile input. BLEFuzz is
        // libFuzzer's binary when scripts/fuzz builds it, a corpus replayer otherwise.
        .target(
            name: "BLEFuzzTargets",
            dependencies: [
                "BLEWire", "BLEHost", "BLETransport", "BLEController", "BLESimulation", "BLE", "BLECompanion",
                "BLELocking",
            ]
        ),
        .executableTarget(name: "BLEFuzz", dependencies: ["BLEFuzzTargets", "BLELocking"]),
        // What several test targets share (a log recorder, damaged paths): used by test targets
        // only, never by a library or the tool.
        .target(name: "BLETestSupport", dependencies: ["BLELocking", logging]),
        .testTarget(
            name: "BLEWireTests",
            dependencies: [
                "BLEWire",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // Package.swift and every import against the graph docs/architecture.md draws.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "BLESimulationTests", dependencies: ["BLESimulation"]),
        .testTarget(
            name: "BLEControllerTests",
            dependencies: ["BLEController", "BLESimulation", "BLEWire", "BLETestSupport", "BLELocking", logging]
        ),
        .testTarget(
            name: "BLEHostTests",
            dependencies: [
                "BLEHost", "BLEWire", "BLETransport", "BLELocking",
                // The simulation's executor and virtual clock drive host timers in tests; the
                // end-to-end tests put a host on a virtual controller through the pipe.
                "BLESimulation", "BLEController", "BLEVirtualHCI", "BLETestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                // P-256 keys of the pairing tests (the specification's sample keys).
                .product(name: "Crypto", package: "swift-crypto"),
                logging,
            ]
        ),
        .testTarget(
            name: "BLETests",
            dependencies: [
                "BLE", "BLEController", "BLESimulation", "BLEVirtualHCI", "BLETransport", "BLEHost", "BLEWire",
                "BLELocking", "BLETestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "BLECompanionTests",
            dependencies: [
                "BLECompanion", "BLE", "BLEWire", "BLESimulation", "BLETestSupport", "BLELocking",
                .product(name: "PropertyBased", package: "swift-property-based"),
                logging,
            ]
        ),
        // Transports are tested against virtual controllers served over them (BLEVirtualHCI).
        .testTarget(
            name: "BLETransportTests",
            dependencies: [
                "BLETransport", "BLEVirtualHCI", "BLEController", "BLESimulation", "BLEHost", "BLEWire",
                "BLETestSupport", "BLELocking", logging,
            ]
        ),
        .testTarget(
            name: "BLEDevicesTests",
            dependencies: [
                "BLEDevices", "BLEPhone", "BLECompanion", "BLE", "BLEBenchmarks", "BLEWire", "BLESimulation",
                "BLETestSupport", "BLELocking",
            ]
        ),
        .testTarget(
            name: "BLEPhoneTests",
            dependencies: [
                "BLEPhone", "BLECompanion", "BLE", "BLEController", "BLEWire", "BLESimulation", "BLETestSupport",
                "BLELocking", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "BLEBenchmarksTests", dependencies: ["BLEBenchmarks", "BLE", "BLEController", "BLESimulation", "BLEWire"]
        ),
        .testTarget(
            name: "BLECLITests",
            dependencies: ["BLEWire", "BLESimulation", "BLETransport", "BLELocking", "BLE", "BLEHost", "ble", "BLECompanion"]
        ),
        // The seed corpus and every crash reproducer, replayed through their fuzz targets.
        .testTarget(name: "BLEFuzzTests", dependencies: ["BLEFuzzTargets"]),
        // Against Google's Bumble (scripts/interop-setup); runs when BLE_INTEROP_PYTHON is set.
        .testTarget(
            name: "BLEInteropTests",
            dependencies: [
                "BLE", "BLETransport", "BLEVirtualHCI", "BLESimulation", "BLEWire", "BLELocking", "BLETestSupport", "ble",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
