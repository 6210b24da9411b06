import Foundation
import Testing

@Suite("ble controller")
struct ControllerCommandTests {
    @Test("An unknown profile is refused with the list of known ones")
    func unknownProfile() throws {
        let result = try CLI.run("controller", "--listen", "tcp-server:127.0.0.1:0", "--profile", "nope")
        #expect(result.status != 0)
        #expect(result.standardError.contains("nrf52"))
    }

    @Test("--listen unix:PATH on a regular file: refused with what is there, the file untouched")
    func unixPathIsAFile() throws {
        let path = FileManager.default.temporaryDirectory.path + "/swift-ble-\(UUID().uuidString).sock"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run("controller", "--listen", "unix:\(path)")
        #expect(result.status != 0)
        #expect(result.standardError.contains("\(path) is a regular file, not a socket"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    @Test("Serves a controller on loopback, says where, and stops cleanly on SIGTERM")
    func servesAndStops() throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["controller", "--listen", "tcp-server:127.0.0.1:0"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        // The first line says the listener is ready.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains("controller 1 listening on tcp-server:127.0.0.1:"))
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(process.terminationReason == .exit)
    }
}
