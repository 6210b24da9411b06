import BLELocking
import Foundation

/// A child process of an interop test (a Bumble peer or `ble controller`): started with its
/// output read line by line as it comes, and always stopped by its PID — SIGTERM, then SIGKILL
/// if it has not exited — so that nothing outlives the test.
final class PeerProcess: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case exitedEarly(name: String, status: Int32, output: String)
        case noLine(name: String, waitingFor: String, output: String)

        var description: String {
            switch self {
            case .exitedEarly(let name, let status, let output):
                "\(name) exited with status \(status) before the line wanted:\n\(output)"
            case .noLine(let name, let waitingFor, let output):
                "\(name) printed no line \(waitingFor) in time:\n\(output)"
            }
        }
    }

    let name: String
    private let process: Process
    private let standardOutput: LineCollector
    private let standardError: LineCollector

    /// Starts `executable` with `arguments` in `directory`, with `environment` added to ours.
    init(
        name: String, executable: URL, arguments: [String], directory: URL? = nil, environment: [String: String] = [:]
    ) throws {
        self.name = name
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        standardOutput = LineCollector(out.fileHandleForReading)
        standardError = LineCollector(err.fileHandleForReading)
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Every line printed on stdout so far.
    var lines: [String] { standardOutput.lines }

    /// Every line printed on stderr so far.
    var errorLines: [String] { standardError.lines }

    /// stdout and stderr so far, for failure messages.
    var transcript: String {
        (standardOutput.lines + ["-- stderr:"] + standardError.lines.suffix(40)).joined(separator: "\n")
    }

    /// Waits until a stdout line satisfies `predicate` and returns it. The limit only keeps a
    /// broken peer from hanging the suite; it is not what the test measures.
    @discardableResult
    func waitForLine(
        _ description: String, limit: Duration = .seconds(30), where predicate: @Sendable (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: limit)
        var seen = 0
        while true {
            let current = standardOutput.lines
            if let line = current.dropFirst(seen).first(where: predicate) { return line }
            seen = current.count
            if !process.isRunning, standardOutput.isClosed {
                let rest = standardOutput.lines
                if let line = rest.dropFirst(seen).first(where: predicate) { return line }
                throw Failure.exitedEarly(name: name, status: process.terminationStatus, output: transcript)
            }
            guard ContinuousClock.now < deadline else {
                throw Failure.noLine(name: name, waitingFor: description, output: transcript)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until `count` stdout lines satisfy `predicate` (the limit only prevents hangs).
    func waitForLines(
        _ description: String, count: Int, limit: Duration = .seconds(30), where predicate: @Sendable (String) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while standardOutput.lines.count(where: predicate) < count {
            guard ContinuousClock.now < deadline else {
                throw Failure.noLine(name: name, waitingFor: "\(count) × \(description)", output: transcript)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The first JSON line whose "event" is `event` (and which satisfies `predicate`).
    @discardableResult
    func waitForEvent(
        _ event: String, limit: Duration = .seconds(30),
        where predicate: @escaping @Sendable ([String: Any]) -> Bool = { _ in true }
    ) async throws -> [String: Any] {
        let line = try await waitForLine("with event \(event)", limit: limit) { line in
            guard let object = JSONLine.parse(line), object["event"] as? String == event else { return false }
            return predicate(object)
        }
        return JSONLine.parse(line) ?? [:]
    }

    /// Every JSON line so far whose "event" is `event`.
    func events(_ event: String) -> [[String: Any]] {
        lines.compactMap(JSONLine.parse).filter { $0["event"] as? String == event }
    }

    /// Waits for the process to exit by itself, and for its output to be read to the end;
    /// returns its status.
    func waitForExit(limit: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while process.isRunning || !standardOutput.isClosed || !standardError.isClosed {
            guard ContinuousClock.now < deadline else {
                throw Failure.noLine(name: name, waitingFor: "(exit)", output: transcript)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// Stops the process by its PID: SIGTERM, then SIGKILL after a grace period; returns once it
    /// has exited. Safe to call more than once.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// Reads a pipe on a thread of its own into lines, so the child never blocks on a full pipe.
final class LineCollector: Sendable {
    private struct State {
        var lines: [String] = []
        var partial: [UInt8] = []
        var closed = false
    }

    private let state = Locked(State())

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                self.state.withLock { state in
                    guard !chunk.isEmpty else {
                        if !state.partial.isEmpty { state.lines.append(String(decoding: state.partial, as: UTF8.self)) }
                        state.partial = []
                        state.closed = true
                        return
                    }
                    for byte in chunk {
                        if byte == UInt8(ascii: "\n") {
                            state.lines.append(String(decoding: state.partial, as: UTF8.self))
                            state.partial = []
                        } else {
                            state.partial.append(byte)
                        }
                    }
                }
                if chunk.isEmpty { return }
            }
        }
        thread.start()
    }

    var lines: [String] { state.withLock { $0.lines } }
    var isClosed: Bool { state.withLock { $0.closed } }
}

enum JSONLine {
    static func parse(_ line: String) -> [String: Any]? {
        guard line.first == "{" else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
