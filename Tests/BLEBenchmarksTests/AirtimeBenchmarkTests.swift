import BLE
import BLEWire
@testable import BLEBenchmarks
import BLEController
import Testing

/// The virtual radio's throughput against the air-time reference (the project's airtime.md),
/// measured end to end — two hosts, HCI as H4 bytes, connection events on the virtual air — in
/// virtual time, so the figures are exact and repeatable.
@Suite("Goodput on the virtual radio matches the air-time reference")
struct AirtimeBenchmarkTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var phy: PHY
        var ll: Int
        var mtu: Int
        var intervalUnits: UInt16
        var writeA: Double
        var writeB: Double
        var testDescription: String { "\(phy) LL \(ll) MTU \(mtu) \(Double(intervalUnits) * 1.25) ms" }
    }

    /// The reference table (Write Command, encrypted, event length = interval).
    static let rows: [Row] = [
        Row(phy: .le1M, ll: 27, mtu: 23, intervalUnits: 6, writeA: 213, writeB: 213),
        Row(phy: .le1M, ll: 251, mtu: 247, intervalUnits: 6, writeA: 781, writeB: 521),
        Row(phy: .le2M, ll: 27, mtu: 23, intervalUnits: 6, writeA: 299, writeB: 299),
        Row(phy: .le2M, ll: 251, mtu: 247, intervalUnits: 6, writeA: 1301, writeB: 1041),
        Row(phy: .le2M, ll: 251, mtu: 247, intervalUnits: 12, writeA: 1301, writeB: 1171),
        Row(phy: .le2M, ll: 251, mtu: 247, intervalUnits: 40, writeA: 1366, writeB: 1327),
    ]

    static func measure(_ row: Row, rule: LinkTiming.EndRule, traffic: GoodputPrediction.Traffic) async throws
        -> AirtimeBenchmark.Result
    {
        var parameters = AirtimeBenchmark.Parameters()
        parameters.phy = row.phy
        parameters.llOctets = row.ll
        parameters.attMTU = row.mtu
        parameters.intervalUnits = row.intervalUnits
        parameters.rule = rule
        parameters.encrypted = true
        parameters.traffic = traffic
        parameters.bytes = row.mtu > 23 ? 150_000 : 40_000
        return try await AirtimeBenchmark.run(parameters)
    }

    @Test("Write Command goodput within ±0.5 % of every reference row, rules A and B", arguments: rows)
    func writes(_ row: Row) async throws {
        let a = try await Self.measure(row, rule: .ruleA, traffic: .writeWithoutResponse)
        let b = try await Self.measure(row, rule: .ruleB, traffic: .writeWithoutResponse)
        // The table rounds to whole kbit/s: compare with ±0.5 % plus that rounding.
        #expect(abs(a.measuredKbps - row.writeA) <= row.writeA * 0.005 + 0.5, "rule A: \(a.measuredKbps)")
        #expect(abs(b.measuredKbps - row.writeB) <= row.writeB * 0.005 + 0.5, "rule B: \(b.measuredKbps)")
        #expect(abs(a.measuredKbps / a.predictedKbps - 1) < 0.005)
        #expect(abs(b.measuredKbps / b.predictedKbps - 1) < 0.005)
    }

    @Test("Notifications keep the link saturated: at least 99 % of the model's prediction", arguments: rows)
    func notifications(_ row: Row) async throws {
        let result = try await Self.measure(row, rule: .ruleB, traffic: .notification)
        #expect(result.measuredKbps >= 0.99 * result.predictedKbps, "\(result.measuredKbps) vs \(result.predictedKbps)")
        // Full-length notifications: rule B equals rule A (the reference's note).
        #expect(abs(result.measuredKbps - row.writeA) <= row.writeA * 0.005 + 0.5)
    }

    @Test(
        "Nordic's throughput sample configuration (2M, LL 251, MTU 498, unencrypted, 400 ms, rule B): 1415.7 ± 2 kbit/s"
    )
    func nordicSample() async throws {
        var parameters = AirtimeBenchmark.Parameters()
        parameters.phy = .le2M
        parameters.llOctets = 251
        parameters.attMTU = 498
        parameters.intervalUnits = 320
        parameters.rule = .ruleB
        parameters.traffic = .writeWithoutResponse
        parameters.bytes = 1_500_000
        let result = try await AirtimeBenchmark.run(parameters)
        #expect(abs(result.measuredKbps - 1415.7) <= 2, "\(result.measuredKbps)")
        #expect(result.predictedPacketsPerEvent == 286)
    }

    @Test("A packets-per-event cap limits goodput as the model says (iphone-modern: 2M, LL 251, 15 ms, 3 per event)")
    func cap() async throws {
        var parameters = AirtimeBenchmark.Parameters()
        parameters.phy = .le2M
        parameters.llOctets = 251
        parameters.attMTU = 247
        parameters.intervalUnits = 12
        parameters.packetsPerEventCap = 3
        parameters.traffic = .notification
        parameters.bytes = 100_000
        let result = try await AirtimeBenchmark.run(parameters)
        #expect(abs(result.measuredKbps / result.predictedKbps - 1) < 0.005)
        #expect(abs(result.measuredKbps - 390.4) < 1)
    }
}
