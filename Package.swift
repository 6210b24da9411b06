// swift-tools-version: 6.1
// swift-ble: a Bluetooth Low Energy stack and companion-device toolkit in Swift.
// Layers (dependencies point down only; see docs/ and the README):
//   ble (CLI) → BLEDevices → BLECompanion → BLE → BLEHost → BLETransport → BLEController → BLEWire
//   The host and the virtual controller never use each other's types: they meet only through a
//   transport, as H4 bytes.
import PackageDescription

let package = Package(
    name: "swift-ble",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BLEWire", targets: ["BLEWire"]),
        .library(name: "BLEController", targets: ["BLEController"]),
        .library(name: "BLETransport", targets: ["BLETransport"]),
        .library(name: "BLEHost", targets: ["BLEHost"]),
        .library(name: "BLE", targets: ["BLE"]),
        .library(name: "BLECompanion", targets: ["BLECompanion"]),
        .library(name: "BLEDevices", targets: ["BLEDevices"]),
        .executable(name: "ble", targets: ["ble"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(name: "BLEWire"),
        .target(name: "BLEController", dependencies: ["BLEWire"]),
        .target(
            name: "BLETransport",
            dependencies: [
                "BLEWire", "BLEController",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "BLEHost",
            dependencies: [
                "BLEWire", "BLETransport",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(name: "BLE", dependencies: ["BLEHost", "BLETransport", "BLEController", "BLEWire"]),
        .target(
            name: "BLECompanion",
            dependencies: [
                "BLE", .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(name: "BLEDevices", dependencies: ["BLECompanion", "BLE"]),
        .executableTarget(
            name: "ble",
            dependencies: [
                "BLE", "BLEWire", "BLEController", "BLETransport", "BLEHost", "BLECompanion", "BLEDevices",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "BLEWireTests",
            dependencies: [
                "BLEWire",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "BLEControllerTests", dependencies: ["BLEController", "BLEWire"]),
        .testTarget(
            name: "BLEHostTests",
            dependencies: [
                "BLEHost", "BLEWire", "BLETransport",
                // The simulation's executor and virtual clock drive host timers in tests.
                "BLEController",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "BLETests", dependencies: ["BLE", "BLEController", "BLEHost", "BLEWire"]),
        .testTarget(
            name: "BLECompanionTests",
            dependencies: [
                "BLECompanion", "BLE",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "BLETransportTests", dependencies: ["BLETransport", "BLEController", "BLEHost", "BLEWire"]),
        .testTarget(name: "BLEDevicesTests", dependencies: ["BLEDevices", "BLECompanion", "BLE"]),
        .testTarget(name: "BLECLITests", dependencies: ["BLEWire", "ble"]),
        // Against Google's Bumble (scripts/interop-setup); runs when BLE_INTEROP_PYTHON is set.
        .testTarget(name: "BLEInteropTests", dependencies: ["BLE", "BLETransport", "BLEWire", "ble"]),
    ],
    swiftLanguageModes: [.v6]
)
