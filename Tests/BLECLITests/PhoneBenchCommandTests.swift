import Foundation
import Testing

@Suite("ble bench phone")
struct PhoneBenchCommandTests {
    @Test(
        "bench phone: 6 virtual minutes in the background with a 0.5 s wake window — every heartbeat handled, each after the first a wake, on the headset's 975 ms link"
    )
    func sixMinutes() throws {
        let result = try CLI.run("bench", "phone", "--hours", "0.1", "--wake-window", "0.5")
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let out = result.standardOutput
        #expect(out.contains("975 ms"), "\(out)")
        #expect(out.contains("heartbeats 360 sent, 360 handled by the app"), "\(out)")
        // The first heartbeat after Home comes before the suspension (1 s later): 359 wakes.
        #expect(out.contains("359 wakes"), "\(out)")
        #expect(out.contains("0 dropped, 0 kills"), "\(out)")
    }

    @Test("bench phone refuses a wake window outside 0–30 s and an unknown profile")
    func validation() throws {
        let window = try CLI.run("bench", "phone", "--wake-window", "31")
        #expect(window.status != 0)
        #expect(window.standardError.contains("--wake-window must be 0…30 seconds"))
        let profile = try CLI.run("bench", "phone", "--profile", "ios99")
        #expect(profile.status != 0)
        #expect(profile.standardError.contains("ios6, ios12, ios17, ios26"))
    }
}
