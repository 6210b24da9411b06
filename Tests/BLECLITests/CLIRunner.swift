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
        try runProcess(executable.path, arguments)
    }
}

/// Runs an executable to its end and captures its output. Standard error is drained on another
/// thread while standard output is read, so a child that fills either pipe never blocks.
func runProcess(_ executable: String, _ arguments: [String]) throws -> CLIResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let state = try IsolatedState()
    defer { state.remove() }
    process.environment = state.environment
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let errorOutput = ErrorOutput()
    let drained = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        errorOutput.data = err.fileHandleForReading.readDataToEndOfFile()
        drained.signal()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    drained.wait()
    process.waitUntilExit()
    return CLIResult(
        status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
        standardError: String(decoding: errorOutput.data, as: UTF8.self))
}

/// Standard error's bytes, written by the draining thread before it signals.
private final class ErrorOutput: @unchecked Sendable {
    // @unchecked Sendable: written once by the draining thread, read only after its semaphore.
    var data = Data()
}

/// A state folder of one `ble` run (XDG_STATE_HOME: where its default bonds file goes), so that
/// tests never read or write the user's bonds.
struct IsolatedState {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ble-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": folder.path]) { $1 }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}
