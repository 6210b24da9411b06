import BLEPhone
import BLESimulation
import Foundation
import Testing

/// The trace of a whole run (a suspension, wakes, a kill and a restoration relaunch) as the
/// three renderings show it: readable lines, JSON and the timeline picture.
@Suite("Phone end to end: the trace renders")
struct TraceRenderingE2ETests {
    @Test("Lines, JSON and SVG of a restoration run: one line per entry, JSON that parses, a whole SVG")
    func rendersARestorationRun() async throws {
        let (trace, end) = try await PhoneE2E.run(.ios17) { world in
            await world.installRestorable(ProbeConfiguration(appTimer: .seconds(5)))
            try await world.openAndSubscribe()
            await world.phone.home()
            world.startHeartbeat(every: .seconds(20))
            try await world.sleep(for: .seconds(45))
            await world.phone.memoryPressure(PhoneE2E.probe)
            try await world.sleep(for: .seconds(20))
            await world.phone.open(PhoneE2E.probe)
            try await world.sleep(for: .seconds(2))
            return (await world.phone.trace, world.simulation.now)
        }
        #expect(trace.contains { $0.isRestorationLaunch })
        #expect(trace.contains { $0.wokenUntil != nil })

        let lines = PhoneTraceText.lines(trace)
        let split = lines.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(split.count == trace.count + 1 && split.last == "")
        #expect(split.dropLast().allSatisfy { $0.hasPrefix("+00:0") })
        #expect(lines.contains("com.example.probe"))

        let json = PhoneTraceJSON.document(trace)
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let objects = try #require(parsed as? [[String: Any]])
        #expect(objects.count == trace.count)

        let svg = PhoneTimelineSVG().render(trace, end: end)
        #expect(svg.hasPrefix("<svg") || svg.hasPrefix("<?xml"))
        #expect(svg.hasSuffix("</svg>\n") || svg.hasSuffix("</svg>"))
        #expect(svg.contains("com.example.probe"))
    }
}
