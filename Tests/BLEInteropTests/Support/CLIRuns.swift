import BLELocking
import BLEWire
import Foundation
import Testing

/// A `ble` command run to its end.
struct CommandRun: Sendable {
    var status: Int32
    /// stdout, line by line.
    var lines: [String]
    /// stderr, line by line.
    var errors: [String]
    var transcript: String

    /// stdout's only line parsed as a JSON object.
    var json: [String: Any]? { lines.count == 1 ? JSONLine.parse(lines[0]) : nil }
}

/// The `ble` commands of one test: each reaches a Bumble controller on a loopback port and
/// records its HCI traffic (`--capture`) into a file of a temporary folder. tshark dissects each
/// file as soon as its command has ended — while the next command runs — and `checkCaptures()`
/// checks them all; `removeFiles()` deletes the folder.
final class CLIRuns: Sendable {
    /// What tshark and our reader made of one capture file.
    struct Dissection: Sendable {
        var records: Int
        var frames: Int
        var flagged: Int
        var listing: String
    }

    let folder: URL
    private let captures = Locked<[String]>([])
    private let dissections = Locked<[String: Task<Dissection, any Error>]>([:])

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("swift-ble-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The transport and capture options for a command on `port`, and the capture's path.
    private func radioOptions(port: Int, label: String) -> (arguments: [String], capture: String) {
        let path = captures.withLock { files in
            let path = folder.appendingPathComponent("\(files.count + 1)-\(label).btsnoop").path
            files.append(path)
            return path
        }
        // Bumble's Python controller lists LE Set Data Length and LE Set PHY among its commands
        // and LE Data Length Extension and LE 2M among its features, but implements neither
        // command: it answers Unknown HCI Command, LE Set Data Length's in a Command Complete
        // without the connection handle, which tshark rightly calls malformed. Our commands
        // negotiate nothing on it, so that the captures check our packets, not that reply.
        return (
            ["--transport", "tcp-client:127.0.0.1:\(port)", "--capture", path, "--link-policy", "none"], path
        )
    }

    /// Runs `ble ARGUMENTS --transport tcp-client:127.0.0.1:PORT --capture FILE` to its end.
    func run(_ arguments: [String], port: Int) async throws -> CommandRun {
        let (process, capture) = try launch(arguments, port: port)
        defer { process.stop() }
        let status = try await process.waitForExit()
        dissect(capture)
        return CommandRun(
            status: status, lines: process.lines, errors: process.errorLines, transcript: process.transcript)
    }

    /// Starts a `ble` command that runs until stopped (`serve`, `subscribe` without a count).
    func start(_ arguments: [String], port: Int) throws -> PeerProcess {
        try launch(arguments, port: port).process
    }

    private func launch(_ arguments: [String], port: Int) throws -> (process: PeerProcess, capture: String) {
        let options = radioOptions(port: port, label: arguments.first ?? "ble")
        // Each command keeps its default bonds file — and the identity address derived from it —
        // in a state folder of its own, never the user's: two commands running at once with one
        // identity would be one device twice on the air. A test that wants a bond to carry over
        // names a file with --bonds.
        let state = folder.appendingPathComponent("state-\(UUID().uuidString)")
        let process = try PeerProcess(
            name: "ble " + arguments.joined(separator: " "), executable: Interop.bleExecutable,
            arguments: arguments + options.arguments, environment: ["XDG_STATE_HOME": state.path])
        return (process, options.capture)
    }

    /// Starts tshark on a finished capture, once.
    @discardableResult
    private func dissect(_ file: String) -> Task<Dissection, any Error> {
        dissections.withLock { tasks in
            if let task = tasks[file] { return task }
            let task = Task {
                let tshark = try #require(Tshark.path, "tshark is not installed (scripts/interop-setup installs it)")
                let counts = try await Tshark.dissect(file, tshark: tshark)
                let listing = counts.flagged == 0 ? "" : try await Tshark.flaggedFrames(file, tshark: tshark)
                return Dissection(
                    records: try Tshark.recordCount(file), frames: counts.frames, flagged: counts.flagged,
                    listing: listing)
            }
            tasks[file] = task
            return task
        }
    }

    /// Every capture file — those of commands still running must have been stopped — is
    /// dissected by tshark with no malformed packet and no expert message of error severity,
    /// and tshark counts as many frames as the file has records.
    func checkCaptures(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let files = captures.withLock { $0 }
        try #require(!files.isEmpty, sourceLocation: sourceLocation)
        for file in files {
            let result = try await dissect(file).value
            let name = URL(fileURLWithPath: file).lastPathComponent
            #expect(result.records > 0, "\(name) has no record", sourceLocation: sourceLocation)
            #expect(result.frames == result.records, "\(name): tshark's frames", sourceLocation: sourceLocation)
            #expect(
                result.flagged == 0, "\(name): malformed or with errors:\n\(result.listing)",
                sourceLocation: sourceLocation)
        }
    }

    func removeFiles() {
        let pending = dissections.withLock { Array($0.values) }
        for task in pending { task.cancel() }
        try? FileManager.default.removeItem(at: folder)
    }
}

/// tshark (Wireshark's command-line dissector) over our btsnoop captures.
enum Tshark {
    /// Malformed packets and expert messages of error severity (Wireshark's display filter).
    static let problems = "_ws.malformed || _ws.expert.severity >= error"

    static let path: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return folders.map { "\($0)/tshark" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The records of a btsnoop file, read by our own reader.
    static func recordCount(_ file: String) throws -> Int {
        var reader = try BTSnoopReader([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
        while try reader.next() != nil {}
        return reader.recordCount
    }

    /// One pass of tshark over `file`: how many frames it read, and how many of them match
    /// `problems` — what `tshark -r FILE -Y problems` would list — counted by its I/O
    /// statistics over the whole file.
    static func dissect(_ file: String, tshark: String) async throws -> (frames: Int, flagged: Int) {
        let statistics = "io,stat,0,COUNT(frame)frame,COUNT(frame)frame && (\(problems))"
        let process = try PeerProcess(
            name: "tshark", executable: URL(fileURLWithPath: tshark),
            arguments: ["-r", file, "-q", "-z", statistics])
        defer { process.stop() }
        let status = try await process.waitForExit()
        try #require(status == 0, "tshark failed on \(file):\n\(process.transcript)")
        // The table's only row: "| 0.000 <> 1.092 |    92 |     0 |".
        let row = try #require(process.lines.last { $0.contains("<>") }, "no statistics:\n\(process.transcript)")
        let counts = row.split(separator: "|").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        try #require(counts.count == 2, "unreadable statistics row: \(row)")
        return (counts[0], counts[1])
    }

    /// `tshark -r FILE -Y problems`: the frames that matched, for a failure message.
    static func flaggedFrames(_ file: String, tshark: String) async throws -> String {
        let process = try PeerProcess(
            name: "tshark", executable: URL(fileURLWithPath: tshark),
            arguments: ["-r", file, "-Y", problems, "-V"])
        defer { process.stop() }
        _ = try await process.waitForExit()
        return process.lines.suffix(200).joined(separator: "\n")
    }
}

/// A GATT database as `ble gatt-dump --json` prints it, reduced to comparable lines:
/// "service UUID START-END", "characteristic UUID DECLARATION/VALUE 0xPROPERTIES",
/// "descriptor UUID HANDLE". Properties as names (ours) or as bits (Bumble's) give the same line.
enum DatabaseLines {
    /// Core Bluetooth's property names and their bits (Core 5.4 Vol 3 Part G §3.3.1.1).
    static let propertyBits: [String: Int] = [
        "broadcast": 0x01, "read": 0x02, "writeWithoutResponse": 0x04, "write": 0x08, "notify": 0x10,
        "indicate": 0x20, "authenticatedSignedWrites": 0x40, "extendedProperties": 0x80,
    ]

    static func lines(_ services: [[String: Any]]) -> [String] {
        var lines: [String] = []
        for service in services {
            lines.append("service \(service["uuid"] ?? "?") \(service["start"] ?? "?")-\(service["end"] ?? "?")")
            for characteristic in service["characteristics"] as? [[String: Any]] ?? [] {
                let bits: Int
                if let names = characteristic["properties"] as? [String] {
                    bits = names.reduce(0) { $0 | (propertyBits[$1] ?? 0x100) }
                } else {
                    bits = characteristic["properties"] as? Int ?? -1
                }
                lines.append(
                    "characteristic \(characteristic["uuid"] ?? "?") "
                        + "\(characteristic["declaration"] ?? "?")/\(characteristic["value"] ?? "?") "
                        + String(format: "0x%02X", bits))
                for descriptor in characteristic["descriptors"] as? [[String: Any]] ?? [] {
                    lines.append("descriptor \(descriptor["uuid"] ?? "?") \(descriptor["handle"] ?? "?")")
                }
            }
        }
        return lines
    }
}
