import Foundation
import Testing

@Suite("ble bench")
struct BenchCommandTests {
    @Test(
        "bench airtime --json: two hosts on the virtual radio reach the model's rule-B write goodput (2M, LL 251, MTU 247, 7.5 ms, encrypted)"
    )
    func airtimeJSON() throws {
        let result = try CLI.run(
            "bench", "airtime", "--phy", "2M", "--ll", "251", "--mtu", "247", "--interval", "7.5", "--rule", "B",
            "--encrypted", "--bytes", "100000", "--json")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let measured = try #require(object["measuredKbps"] as? Double)
        let predicted = try #require(object["predictedKbps"] as? Double)
        #expect(abs(measured / predicted - 1) < 0.005)
        #expect(abs(predicted - 1041.07) < 0.01)
        #expect(object["predictedPacketsPerEvent"] as? Int == 4)
    }

    @Test("bench airtime refuses parameters outside the specification's ranges")
    func airtimeValidation() throws {
        let badInterval = try CLI.run("bench", "airtime", "--interval", "8")
        #expect(badInterval.status != 0)
        #expect(badInterval.standardError.contains("steps of 1.25 ms"))
        let badLL = try CLI.run("bench", "airtime", "--ll", "300")
        #expect(badLL.status != 0)
        #expect(badLL.standardError.contains("--ll must be 27…251"))
    }

    @Test("bench idle keeps a 15 ms link alive for a virtual minute: 4,000 connection events")
    func idle() throws {
        let result = try CLI.run("bench", "idle", "--interval", "15", "--seconds", "60")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("4000 connection events"))
        #expect(!result.standardOutput.contains("dropped"))
    }
}
