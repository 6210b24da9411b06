import Foundation
import Testing

@Suite("ble --link-policy and ble bench ota")
struct LinkPolicyCommandTests {
    @Test(
        "bench ota: through the public API, the negotiated 2M / LL 251 / MTU 247 / 15 ms link reaches ≥ 95 % of rule B")
    func benchOTA() throws {
        let result = try CLI.run("bench", "ota", "--size", "131072", "--interval", "15")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let output = result.standardOutput
        #expect(output.contains("on LE 2M, LL 251, MTU 247, 15 ms"), "\(output)")
        #expect(output.contains("succeeded"))
        let writes = try #require(output.split(separator: "\n").first { $0.hasPrefix("  as writes") })
        let share = try #require(
            writes.split(separator: "(").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(share >= 95, "\(writes)")
    }

    @Test("bench ota --link-policy iphone-ios10 runs on LE 1M with ATT_MTU 185")
    func benchOTAOnOlderPhone() throws {
        let result = try CLI.run("bench", "ota", "--size", "32768", "--link-policy", "iphone-ios10")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("on LE 1M, LL 251, MTU 185, 15 ms"), "\(result.standardOutput)")
    }

    @Test("an unknown --link-policy is refused with the names it takes")
    func unknownPolicy() throws {
        let result = try CLI.run("bench", "ota", "--link-policy", "nokia-3310")
        #expect(result.status != 0)
        #expect(result.standardError.contains("iphone-modern, iphone-ios10, android-high, none"))
    }

    @Test("demo --link-policy iphone-ios10: the story runs on an iOS 10 phone's link (LE 1M, LL 251, ATT_MTU 185)")
    func demoOnOlderPhone() throws {
        let result = try CLI.run("demo", "--link-policy", "iphone-ios10")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("phone: connected and negotiated: LE 1M, LL 251, MTU 185, 30 ms"))
        #expect(result.standardOutput.contains("SHA-256 verified, slots swapped to 2.0.0"))
    }
}
