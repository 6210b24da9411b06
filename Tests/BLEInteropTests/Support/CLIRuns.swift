import BLEWire
import Foundation
import Synchronization
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
/// records its HCI traffic (`--capture`) into a file of a temporary folder, which
/// `checkCaptures()` hands to tshark and `removeFiles()` deletes.
final class CLIRuns: Sendable {
    let folder: URL
    private let captures = Mutex<[String]>([])

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("swift-ble-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Every capture file named so far.
    var captureFiles: [String] { captures.withLock { $0 } }

    /// The transport and capture options for a command on `port`.
    private func radioOptions(port: Int, label: String) -> [String] {
        let path = captures.withLock { files in
            let path = folder.appendingPathComponent("\(files.count + 1)-\(label).btsnoop").path
            files.append(path)
            return path
        }
        return ["--transport", "tcp-client:127.0.0.1:\(port)", "--capture", path]
    }

    /// Runs `ble ARGUMENTS --transport tcp-client:127.0.0.1:PORT --capture FILE` to its end.
    func run(_ arguments: [String], port: Int) async throws -> CommandRun {
        let process = try start(arguments, port: port)
        defer { process.stop() }
        let status = try await process.waitForExit()
        return CommandRun(
            status: status, lines: process.lines, errors: process.errorLines, transcript: process.transcript)
    }

    /// Starts a `ble` command that runs until stopped (`serve`, `subscribe` without a count).
    func start(_ arguments: [String], port: Int) throws -> PeerProcess {
        try PeerProcess(
            name: "ble " + arguments.joined(separator: " "), executable: Interop.bleExecutable,
            arguments: arguments + radioOptions(port: port, label: arguments.first ?? "ble"))
    }

    /// Every capture file is dissected by tshark with no malformed packet and no expert
    /// message of error severity, and tshark counts as many frames as the file has records.
    func checkCaptures(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let tshark = try #require(
            Tshark.path, "tshark is not installed (scripts/interop-setup installs it)", sourceLocation: sourceLocation)
        let files = captureFiles
        try #require(!files.isEmpty, sourceLocation: sourceLocation)
        // Two at a time: tshark's start-up is most of its work here.
        for pair in stride(from: 0, to: files.count, by: 2).map({ Array(files[$0..<min($0 + 2, files.count)]) }) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for file in pair {
                    group.addTask {
                        let records = try Tshark.recordCount(file)
                        let counts = try await Tshark.dissect(file, tshark: tshark)
                        let name = URL(fileURLWithPath: file).lastPathComponent
                        #expect(records > 0, "\(name) has no record", sourceLocation: sourceLocation)
                        #expect(counts.frames == records, "\(name): tshark frames", sourceLocation: sourceLocation)
                        if counts.flagged != 0 {
                            let listing = try await Tshark.flaggedFrames(file, tshark: tshark)
                            Issue.record(
                                "\(name): \(counts.flagged) frames malformed or with errors:\n\(listing)",
                                sourceLocation: sourceLocation)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    func removeFiles() {
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
        let process = try PeerProcess(name: "tshark", executable: URL(fileURLWithPath: tshark),
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
        let process = try PeerProcess(name: "tshark", executable: URL(fileURLWithPath: tshark),
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
