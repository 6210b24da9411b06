import BLE
import BLEController
import BLEDevices
import Testing

/// OTA goodput in virtual time on the benchmark link — LE 2M, LL 251, ATT_MTU 247, 15 ms
/// interval, rule B, flash time excluded — through the public API alone: the phone's default
/// link policy (`iphone-modern`) negotiates the link (`HeadsetOTABenchmark`).
///
/// "Firmware" counts each image byte once (resends are cost, not goodput); "as writes" counts the
/// Write Command values that carried each packet once: 244 octets per 230 firmware octets (frame
/// 8, packet header 6). Both are compared with the rule-B prediction for 244-octet Write
/// Commands, so firmware bytes alone reach at most 230 / 244 = 94.3 % of it.
@Suite("Headset OTA goodput on a negotiated 2M, LL 251, MTU 247, 15 ms link")
struct OTAGoodputTests {
    static let link = LinkTiming(interval: .milliseconds(15), phy: .le2M, maxOctets: 251)
    /// Write Command values of 244 octets: one frame of 8 + 6 + 230 per write.
    static let prediction = GoodputPrediction(link: link, attMTU: 247, traffic: .writeWithoutResponse)

    static func measure(faultRate: Double, reorderBufferCapacity: Int = 64) async throws -> HeadsetOTABenchmark.Result {
        var parameters = HeadsetOTABenchmark.Parameters()
        parameters.faultRate = faultRate
        parameters.reorderBufferCapacity = reorderBufferCapacity
        let result = try await HeadsetOTABenchmark.run(parameters)
        // The policy negotiated the benchmark link.
        #expect(result.link.txPHY == .le2M && result.link.rxPHY == .le2M)
        #expect(result.link.maxTxOctets == 251 && result.link.maxRxOctets == 251)
        #expect(result.link.attMTU == 247)
        #expect(result.link.connectionInterval == .milliseconds(15))
        return result
    }

    static func describe(_ result: HeadsetOTABenchmark.Result) -> String {
        let predicted = prediction.goodputB
        let summary = result.outcome.summary
        return "firmware \(Int(result.firmwareKbps)) kbit/s (\(percent(result.firmwareKbps / predicted)) of rule B "
            + "\(Int(predicted)) kbit/s), as writes \(Int(result.writeKbps)) kbit/s "
            + "(\(percent(result.writeKbps / predicted))), \(summary.packetsResent) of \(summary.packetCount) "
            + "packets resent, \(summary.selectiveResendRequests) selective, \(summary.rewinds) rewinds"
    }

    private static func percent(_ ratio: Double) -> String { "\((ratio * 1000).rounded() / 10) %" }

    @Test("Without faults the OTA keeps the link at the rule-B prediction for its writes")
    func clean() async throws {
        let result = try await Self.measure(faultRate: 0)
        print("OTA goodput, no faults: \(Self.describe(result))")
        #expect(result.outcome.failure == nil)
        // Measured 99.5 % as writes; the firmware share is at most 230 / 244 of that (framing).
        #expect(result.writeKbps >= 0.95 * Self.prediction.goodputB)
        #expect(result.firmwareKbps >= 0.93 * Self.prediction.goodputB)
    }

    /// Selective repeat: the headset holds up to 64 packets past a gap and asks for the missing
    /// one alone, so a fault costs about one resend instead of the ~36 packets queued behind it.
    @Test("With 1 % of OTA packets faulted, selective repeat resends only missing packets, keeping 85 % of the link")
    func onePercentErrors() async throws {
        let result = try await Self.measure(faultRate: 0.01)
        print("OTA goodput, 1 % packet errors: \(Self.describe(result))")
        #expect(result.outcome.failure == nil)
        let summary = result.outcome.summary
        #expect(summary.selectiveResendRequests > 0)
        // Resends stay near the faults (about 1 % of the packets), not a queue's worth each.
        #expect(summary.packetsResent <= summary.packetCount / 25)
        #expect(result.writeKbps >= 0.85 * Self.prediction.goodputB)
        #expect(result.firmwareKbps >= 0.85 * Self.prediction.goodputB)
    }

    @Test("With 1 % of OTA packets faulted and no reorder buffer (v1 go-back-N), each fault costs the queue behind it")
    func onePercentErrorsGoBackN() async throws {
        let result = try await Self.measure(faultRate: 0.01, reorderBufferCapacity: 0)
        print("OTA goodput, 1 % packet errors, go-back-N: \(Self.describe(result))")
        #expect(result.outcome.failure == nil)
        #expect(result.outcome.summary.selectiveResendRequests == 0)
        #expect(result.outcome.summary.packetsResent > 0)
        #expect(result.writeKbps >= 0.6 * Self.prediction.goodputB)
        #expect(result.outcome.summary.packetsResent > result.outcome.summary.packetCount / 10)
    }
}
