import BLELocking
import Foundation
import Testing

/// A `ble` process that runs while a test talks to it (`ble controller`, `ble serve`): its
/// standard output is collected as it comes, and it is stopped by its PID with SIGTERM.
final class BackgroundProcess: Sendable {
    private let process: Process
    private let output = CollectedText()
    private let errors = CollectedText()
    private let state: IsolatedState

    init(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = arguments
        state = try IsolatedState()
        process.environment = state.environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        self.process = process
        for (pipe, buffer) in [(out, output), (err, errors)] {
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                } else {
                    buffer.append(String(decoding: data, as: UTF8.self))
                }
            }
        }
        try process.run()
    }

    deinit { state.remove() }

    var standardOutput: String { output.text }
    var standardError: String { errors.text }

    /// Waits until standard output has `count` lines (a limit of 60 s only keeps a broken run
    /// from hanging the suite) and returns them.
    func lines(_ count: Int) throws -> [String] {
        for _ in 0..<6000 {
            let lines = standardOutput.split(separator: "\n").map(String.init)
            if lines.count >= count { return lines }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw BackgroundProcessError.noOutput(standardOutput, standardError)
    }

    /// Waits until `condition` holds on the output so far (a limit of 60 s only keeps a broken
    /// run from hanging the suite); throws if the process ends first or the limit passes.
    func waitUntil(_ what: String, _ condition: (_ output: String, _ errors: String) -> Bool) throws {
        for _ in 0..<6000 {
            if condition(standardOutput, standardError) { return }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        if condition(standardOutput, standardError) { return }
        throw BackgroundProcessError.notSeen(what, standardOutput, standardError)
    }

    /// SIGKILL, as a crash or `kill -9` would end it: no handler runs, nothing is flushed or
    /// closed by the process itself. Waits for the exit.
    func killAbruptly() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits for the process to exit by itself (after 60 s, a broken run is stopped with SIGTERM
    /// so that the suite cannot hang); returns the exit status.
    func waitForExit() -> Int32 {
        for _ in 0..<6000 where process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        return stop()
    }

    var terminationReason: Process.TerminationReason { process.terminationReason }

    var isRunning: Bool { process.isRunning }

    /// The largest resident set the process has had so far, in octets (Linux's VmHWM); nil
    /// where /proc does not say.
    var peakResidentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }
}

/// Text a pipe's handler appends on its own thread while the test reads it.
final class CollectedText: Sendable {
    private let collected = Locked("")

    func append(_ text: String) { collected.withLock { $0 += text } }
    var text: String { collected.withLock { $0 } }
}

enum BackgroundProcessError: Error, CustomStringConvertible {
    case noOutput(String, String)
    case notSeen(String, String, String)

    var description: String {
        switch self {
        case .noOutput(let out, let err): "the process did not print the expected lines; out: \(out) err: \(err)"
        case .notSeen(let what, let out, let err): "the process did not print \(what); out: \(out) err: \(err)"
        }
    }
}
