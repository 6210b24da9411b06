import Foundation
import Testing

extension BumbleInteropTests {
    @Test(
        "ble serve and ble gatt-dump/read/write/subscribe as separate processes through Bumble's controllers"
    )
    func cliServeAndCLICentralOnBumbleControllers() async throws {
        let (controllers, ports) = try await Interop.bumbleControllers(3)
        defer { controllers.stop() }
        try #require(ports.count == 3)
        let cli = try CLIRuns()
        defer { cli.removeFiles() }
        let (server, address) = try await Thermometer.serve(cli, port: ports[0])
        defer { server.stop() }
        let port = ports[1]
        let note = Thermometer.note

        let dump = try await cli.run(["gatt-dump", address, "--json"], port: port)
        #expect(dump.status == 0, "\(dump.transcript)")
        try Thermometer.expectMatchesFile(
            try #require(dump.json?["services"] as? [[String: Any]], "\(dump.transcript)"))

        // A characteristic of the secondary Battery service, found through the include.
        let battery = try await cli.run(["read", address, "2A19"], port: port)
        #expect(battery.lines == ["64"], "\(battery.transcript)")
        let before = try await cli.run(["read", address, note], port: port)
        #expect(before.lines == ["68656c6c6f"], "\(before.transcript)")
        let write = try await cli.run(["write", address, note, "776f726c64"], port: port)
        #expect(write.status == 0, "\(write.transcript)")
        let after = try await cli.run(["read", address, note], port: port)
        #expect(after.lines == ["776f726c64"], "\(after.transcript)")

        // Indications of the measurement the server sends every second (each confirmed).
        let indicated = try await cli.run(["subscribe", address, Thermometer.measurement, "--count", "2"], port: port)
        #expect(indicated.lines.count == 2, "\(indicated.transcript)")
        #expect(Set(indicated.lines) == Thermometer.measurementValues, "\(indicated.transcript)")

        // Two centrals at once: a subscriber to the note's notifications, and a second client
        // whose Write Command the server passes on to it.
        let subscriber = try cli.start(["subscribe", address, note, "--count", "1"], port: port)
        defer { subscriber.stop() }
        try await server.waitForLine("the subscription") { $0.hasPrefix("subscribed: ") && $0.hasSuffix(" to \(note)") }
        let command = try await cli.run(["write", address, note, "21", "--without-response"], port: ports[2])
        #expect(command.status == 0, "\(command.transcript)")
        #expect(try await subscriber.waitForExit() == 0, "\(subscriber.transcript)")
        #expect(subscriber.lines == ["21"], "\(subscriber.transcript)")

        // Every command disconnected before it ended; the server prints each link's end as it sees it.
        try await server.waitForLines("disconnections", count: 8) { $0.hasPrefix("disconnected: ") }
        server.stop()
        let log = server.lines
        #expect(log.contains { $0.hasPrefix("write \(note) (handle 0x001E): 776f726c64 by ") }, "\(log)")
        #expect(log.contains { $0.hasPrefix("write \(note) (handle 0x001E) without response: 21 by ") })
        #expect(log.contains { $0 == "notified \(note): 21" })
        #expect(log.count { $0.hasPrefix("connected: ") } == 8)
        #expect(log.count { $0.hasSuffix("(Remote User Terminated Connection (0x13))") } == 8)
        #expect(server.errorLines.contains("stopping: received SIGTERM"), "\(server.transcript)")
        try await cli.checkCaptures()
    }
}
