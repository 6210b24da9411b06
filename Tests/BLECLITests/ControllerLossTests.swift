import Foundation
import Testing

/// The repository's docs/examples folder.
private var examples: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/examples")
}

@Suite("A controller killed under ble serve, subscribe, headset and scan: each reports it and exits non-zero")
struct ControllerLossTests {
    /// "controller 1 listening on tcp-server:127.0.0.1:PORT, address ADDRESS".
    private static func listener(_ line: String) throws -> (port: String, address: String) {
        let parts = line.components(separatedBy: ", address ")
        let port = try #require(parts.first?.components(separatedBy: ":").last)
        let address = try #require(parts.last)
        return (port, address)
    }

    @Test("SIGKILL of ble controller: serve, a subscriber, a headset and a scan each say the controller went away, exit 1")
    func killedController() throws {
        let controller = try BackgroundProcess([
            "controller", "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
            "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
        ])
        defer { controller.stop() }
        let listeners = try controller.lines(4).map(Self.listener)
        let server = try BackgroundProcess([
            "serve", "--gatt", examples.appendingPathComponent("thermometer.json").path,
            "--transport", "tcp-client:127.0.0.1:\(listeners[0].port)",
        ])
        defer { server.stop() }
        _ = try server.lines(1)
        let address = String(listeners[0].address.prefix(17))
        let subscriber = try BackgroundProcess([
            "subscribe", address, "2A1C", "--transport", "tcp-client:127.0.0.1:\(listeners[1].port)",
        ])
        defer { subscriber.stop() }
        _ = try subscriber.lines(1)
        let headset = try BackgroundProcess([
            "headset", "--transport", "tcp-client:127.0.0.1:\(listeners[2].port)", "--address", "F0:F1:F2:F3:F4:F5",
        ])
        defer { headset.stop() }
        _ = try headset.lines(1)
        let scanner = try BackgroundProcess([
            "scan", "--duration", "600", "--transport", "tcp-client:127.0.0.1:\(listeners[3].port)",
        ])
        defer { scanner.stop() }
        _ = try scanner.lines(1)

        controller.killAbruptly()

        for (name, process) in [
            ("serve", server), ("subscribe", subscriber), ("headset", headset), ("scan", scanner),
        ] {
            let status = process.waitForExit()
            #expect(status == 1, "\(name) exited \(status)")
            #expect(
                process.standardError.contains("the controller went away"), "\(name): \(process.standardError)")
            #expect(process.terminationReason == .exit, "\(name) was stopped, not ended by itself")
        }
    }
}
