import Foundation
import Testing

/// Runs the `ble` executable built beside the test bundle and captures its output.
struct CLIResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

enum CLI {
    /// The `ble` binary: SwiftPM builds it into the same folder as the test runner.
    static var executable: URL {
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // On macOS the runner sits inside an .xctest bundle.
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS"
            || folder.lastPathComponent == "Contents"
        {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("ble")
    }

    static func run(_ arguments: String...) throws -> CLIResult {
        try run(arguments)
    }

    static func run(_ arguments: [String]) throws -> CLIResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so a large output cannot fill the pipe and block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }
}
