import BLEController
import BLESimulation
import Testing

@testable import BLE
@testable import BLEBenchmarks

/// `GATTBenchmark`'s results hold together on a small run: every value sent arrived, checked,
/// and the virtual-time goodput is the air-time model's (no wall-clock figures are checked).
@Suite("GATT benchmark through the public API on the virtual radio")
struct GATTBenchmarkTests {
    static func run(notifications: Int = 600, roundTrips: Int = 20, writes: Int = 600) async throws
        -> GATTBenchmark.Result
    {
        var parameters = GATTBenchmark.Parameters()
        parameters.profile = .ideal
        parameters.notifications = notifications
        parameters.roundTrips = roundTrips
        parameters.writesWithoutResponse = writes
        return try await GATTBenchmark.run(parameters)
    }

    @Test("Notifications (Core 5.4 Vol 3 Part G §4.10): every value arrives, in order; goodput is the model's")
    func notifications() async throws {
        let result = try await Self.run()
        let notifications = result.notifications
        #expect(notifications.values == 600)
        #expect(notifications.octets == 600 * 244)
        // More values than the host's queue and the controller's buffers: back-pressure was met.
        #expect(result.notificationBackPressure > 0)
        let measured = try #require(notifications.virtualKbps)
        let predicted = notifications.predictedKbps
        #expect(abs(measured / predicted - 1) < 0.005, "\(measured) vs \(predicted)")
        #expect(abs(notifications.predictedKbps - 1301.33) < 0.5)
    }

    @Test("Write Characteristic Value (§4.9.3): one sample per request; each takes whole connection intervals")
    func roundTrips() async throws {
        let result = try await Self.run(notifications: 10, roundTrips: 25, writes: 10)
        let trips = result.roundTrips
        #expect(trips.count == 25)
        #expect(trips.virtualSamples.count == 25)
        // The request goes out in one connection event and the response comes back in a later one.
        let interval = AirTimeProfile.ideal.linkTiming().interval
        for sample in trips.virtualSamples {
            #expect(sample >= interval && sample <= interval * 3, "\(sample)")
        }
        #expect(trips.virtualMedian == interval * 2)
    }

    @Test("Write Without Response (§4.9.1) with readiness flow control: every value arrives in order; model's goodput")
    func writesWithoutResponse() async throws {
        let result = try await Self.run(notifications: 10, roundTrips: 1, writes: 600)
        let writes = result.writesWithoutResponse
        #expect(writes.values == 600)
        #expect(writes.octets == 600 * 244)
        #expect(result.writeBackPressure > 0)
        let measured = try #require(writes.virtualKbps)
        #expect(abs(measured / writes.predictedKbps - 1) < 0.005, "\(measured) vs \(writes.predictedKbps)")
    }

    @Test("Scheduling cost per value stays low: a notification resumes its reader about once per value")
    func schedulingCost() async throws {
        let result = try await Self.run(notifications: 600, roundTrips: 50, writes: 600)
        let scheduling = try #require(result.scheduling)
        func perValue(_ count: Int, _ statistics: SimulationExecutor.Statistics) -> (Double, Double, Double) {
            let n = Double(count)
            return (Double(statistics.jobs) / n, Double(statistics.actions) / n, Double(statistics.events) / n)
        }
        // Counts of the simulation thread's work do not depend on the machine. With AsyncStream
        // for the value stream and a task per readiness wait a notification took 8 jobs; with a
        // sleeping task per ATT transaction timeout a round trip took 16 in release.
        let notification = perValue(result.notifications.values, scheduling.notifications)
        #expect(notification.0 <= 1.3, "jobs per notification: \(notification.0)")
        #expect(notification.1 <= 1.05, "actions per notification: \(notification.1)")
        // A round trip is 5 jobs in a release build and 10 in a debug one (the tests' build),
        // where fewer calls switch in place.
        let trip = perValue(result.roundTrips.count, scheduling.roundTrips)
        #expect(trip.0 <= 11, "jobs per write round trip: \(trip.0)")
        let write = perValue(result.writesWithoutResponse.values, scheduling.writesWithoutResponse)
        #expect(write.0 <= 1.3, "jobs per write without response: \(write.0)")
    }

    @Test("Benchmark values carry their sequence number: a lost, reordered or altered value is caught")
    func valueCheck() {
        let value = GATTBenchmark.value(300, length: 244)
        #expect(GATTBenchmark.isValue(value, 300, length: 244))
        #expect(!GATTBenchmark.isValue(value, 301, length: 244))
        #expect(!GATTBenchmark.isValue(GATTBenchmark.value(44, length: 244), 300, length: 244))
        var altered = value
        altered[200] ^= 1
        #expect(!GATTBenchmark.isValue(altered, 300, length: 244))
        #expect(!GATTBenchmark.isValue(Array(value.dropLast()), 300, length: 244))
        #expect(GATTBenchmark.RoundTrips.percentile(0.5, of: [.microseconds(3), .microseconds(1), .microseconds(2)])
            == .microseconds(2))
    }
}
