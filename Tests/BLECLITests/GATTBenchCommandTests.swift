import Foundation
import Testing

@Suite("ble bench gatt")
struct GATTBenchCommandTests {
    @Test("bench gatt --json: every notification and write arrives checked; virtual goodput is the ideal profile's")
    func gattJSON() throws {
        let result = try CLI.run("bench", "gatt", "--count", "400", "--round-trips", "10", "--json")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        for key in ["notifications", "writeWithoutResponse"] {
            let stream = try #require(object[key] as? [String: Any], "\(key)")
            #expect(stream["values"] as? Int == 400)
            #expect(stream["octets"] as? Int == 400 * 244)
            let measured = try #require(stream["virtualKbps"] as? Double)
            let predicted = try #require(stream["predictedKbps"] as? Double)
            #expect(abs(measured / predicted - 1) < 0.005, "\(key): \(measured) vs \(predicted)")
        }
        let trips = try #require(object["writeRoundTrip"] as? [String: Any])
        #expect(trips["samples"] as? Int == 10)
        #expect(trips["virtualMedianMilliseconds"] as? Double == 15)
    }

    @Test("bench gatt refuses an unknown profile, naming the known ones")
    func unknownProfile() throws {
        let result = try CLI.run("bench", "gatt", "--profile", "fast")
        #expect(result.status != 0)
        #expect(result.standardError.contains("'fast'"))
        #expect(result.standardError.contains("'ideal'"))
    }
}
