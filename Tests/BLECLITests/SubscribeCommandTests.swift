import Foundation
import Testing

@Suite("ble subscribe")
struct SubscribeCommandTests {
    @Test("Notifications (Core 5.4 Vol 3 Part G §4.10): one hex line per value, stopping after --count")
    func notifications() throws {
        let result = try CLI.run("subscribe", "00:00:5E:00:53:10", "2A37", "--count", "3")
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        // Heart Rate Measurement: flags 0x00, then 70 + (second mod 10) beats per minute.
        let beats = lines.compactMap { line -> Int? in
            guard line.count == 4, line.hasPrefix("00") else { return nil }
            return Int(line.dropFirst(2), radix: 16)
        }
        #expect(beats.count == 3)
        #expect(beats.allSatisfy { (70...79).contains($0) })
        #expect(result.standardError.contains("(notifications)"))
    }

    @Test("Indications (§4.11) of a characteristic that only indicates, stopping after --duration of virtual time")
    func indications() throws {
        let result = try CLI.run(
            "subscribe", "00:00:5E:00:53:20", "9C5A0005-7A3E-4B8F-9D6C-2F1E0B5A4C3D", "--duration", "4.5")
        #expect(result.status == 0)
        #expect(result.standardError.contains("(indications)"))
        // A little-endian counter, one a second: consecutive values.
        let counters = result.standardOutput.split(separator: "\n").compactMap { line -> Int? in
            guard let bytes = Int(line, radix: 16), line.count == 4 else { return nil }
            return (bytes >> 8) | (bytes & 0xFF) << 8
        }
        #expect(counters.count >= 3)
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }

    @Test("A characteristic that neither notifies nor indicates is refused")
    func missingProperty() throws {
        let result = try CLI.run("subscribe", "00:00:5E:00:53:10", "2A38", "--count", "1")
        #expect(result.status == 1)
        #expect(result.standardError.contains("lacks the notify or indicate properties"))
    }

    @Test("--count 0 is a usage error")
    func badCount() throws {
        let result = try CLI.run("subscribe", "00:00:5E:00:53:10", "2A37", "--count", "0")
        #expect(result.status == 64)
    }
}

@Suite("ble subscribe until a signal")
struct SubscribeSignalTests {
    @Test("Without --count or --duration it runs on the wall clock until SIGTERM, then exits 0")
    func stopsOnSignal() throws {
        let process = try BackgroundProcess(["subscribe", "00:00:5E:00:53:10", "2A37"])
        let lines = try process.lines(1)
        #expect(lines.first?.hasPrefix("00") == true)
        #expect(process.stop() == 0)
        #expect(process.terminationReason == .exit)
        #expect(process.standardError.contains("stopping: received SIGTERM"))
    }
}
