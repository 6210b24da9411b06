import Foundation
import Testing

/// Many successive clients of one served peripheral through `ble controller`: each connection
/// ends (the reading host disconnects and leaves, its controller is reset), and the next one
/// must find the peripheral's controller with all its ACL buffers free (Core 5.4 Vol 4 Part E
/// §4.1.1, §7.7.5). With a buffer lost per connection, the ninth read hung on Data Buffer
/// Overflow (8 buffers).
@Suite("ble controller: successive reads of one served peripheral (Core 5.4 Vol 4 Part E §7.7.5)")
struct ControllerReconnectTests {
    @Test("Ten successive ble read over ble controller all succeed: no ACL buffer is lost per connection")
    func tenReads() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/examples")
        let controller = try BackgroundProcess([
            "controller", "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
        ])
        defer { controller.stop() }
        // "controller N listening on tcp-server:127.0.0.1:PORT, address XX:XX:XX:XX:XX:XX"
        let listeners = try controller.lines(2).map { line -> (port: String, address: String) in
            let parts = line.components(separatedBy: ", address ")
            return (parts.first?.components(separatedBy: ":").last ?? "", String((parts.last ?? "").prefix(17)))
        }
        let server = try BackgroundProcess([
            "serve", "--gatt", examples.appendingPathComponent("thermometer.json").path,
            "--transport", "tcp-client:127.0.0.1:\(listeners[0].port)",
        ])
        defer { server.stop() }
        _ = try server.lines(1)
        for round in 1...10 {
            // timeout(1) only keeps a hung read (the symptom) from hanging the suite.
            let read = try runProcess(
                "/usr/bin/timeout",
                [
                    "60", CLI.executable.path, "read", listeners[0].address, "2A1D", "--transport",
                    "tcp-client:127.0.0.1:\(listeners[1].port)",
                ])
            #expect(read.status == 0, "read \(round): \(read.standardError)")
            #expect(read.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "02", "read \(round)")
            if read.status != 0 { break }
        }
    }
}
