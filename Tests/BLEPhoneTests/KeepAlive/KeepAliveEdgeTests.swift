import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// Keep-alive paths beside the main ones: a running app's completions, refused regions, pushes
/// an app is not declared for.
@Suite("Keep-alive: edges")
struct KeepAliveEdgeTests {
    @Test("An app in front gets each task's completion as it ends, with no handleEventsForBackgroundURLSession")
    func completionInFront() async throws {
        let radio = VirtualRadio()
        let (trace, log) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.installKeepAlive("com.example.sync", modes: [], behaviour: .init(session: "sync"))
            await world.phone.open(app)
            try await world.at(5)
            // 10 MB on cellular (1 MB/s): 10 s.
            await world.phone.updateConditions { $0.network = .cellular }
            _ = try await world.keepAliveApp(app)?.download(10_000_000)
            try await world.at(60)
            return (await world.keepAliveTrace(of: app), world.log.all)
        }
        #expect(trace.contains("transferCompleted 1@15"))
        #expect(log.contains("completed 1@15"))
        #expect(!log.contains { $0.hasPrefix("handleEvents") || $0.hasPrefix("finishedEvents") })
        #expect(!trace.contains { $0.hasPrefix("woken") })
    }

    @Test(
        "startMonitoring(for:) refuses a region off the Earth, without a radius, or past 20 (CLError.regionMonitoringFailure)"
    )
    func regionRefused() async throws {
        let radio = VirtualRadio()
        try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.installKeepAlive(
                "com.example.geo", modes: [], behaviour: .init(locationDelegate: true))
            await world.phone.open(app)
            try await world.at(1)
            let manager = try #require(await world.keepAliveApp(app)?.location)
            let origin = CLLocationCoordinate2D(latitude: 1, longitude: 1)
            for bad in [
                CLCircularRegion(center: origin, radius: 0, identifier: "flat"),
                CLCircularRegion(
                    center: CLLocationCoordinate2D(latitude: 95, longitude: 0), radius: 10, identifier: "x"),
            ] {
                await #expect(throws: CLError.self) { try await manager.startMonitoring(for: bad) }
            }
            for index in 0..<20 {
                try await manager.startMonitoring(
                    for: CLCircularRegion(center: origin, radius: 10, identifier: "r\(index)"))
            }
            await #expect(throws: CLError.self) {
                try await manager.startMonitoring(for: CLCircularRegion(center: origin, radius: 10, identifier: "r20"))
            }
            // Replacing one by its identifier is not a 21st.
            try await manager.startMonitoring(for: CLCircularRegion(center: origin, radius: 20, identifier: "r0"))
            #expect(await manager.monitoredRegions.count == 20)
        }
    }

    @Test("Pushes for an app without the mode are dropped in the background: traced and counted, no wake")
    func pushesWithoutMode() async throws {
        let radio = VirtualRadio()
        let (trace, counters) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.installKeepAlive("com.example.plain", modes: [], behaviour: .init(pushRegistry: true))
            await world.phone.open(app)
            try await world.at(10)
            await world.phone.home()
            try await world.at(20)
            await world.phone.deliverSilentPush(to: app)
            await world.phone.deliverVoIPPush(to: app)
            try await world.at(30)
            return (await world.keepAliveTrace(of: app), await world.phone.keepAliveCounters)
        }
        #expect(trace.filter { $0.hasPrefix("pushDropped") } == ["pushDropped silent@20", "pushDropped voip@20"])
        #expect(!trace.contains { $0.hasPrefix("woken") })
        #expect(counters.pushesDropped == 2)
    }
}
