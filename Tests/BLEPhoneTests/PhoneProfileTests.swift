import Testing

@testable import BLEPhone

/// The profiles' numbers and the relaunch table (phone-rules.md; TN3115, QA1962).
@Suite("Phone profiles")
struct PhoneProfileTests {
    @Test("Background task budget per release: 600 s (iOS 6), 180 s (iOS 12), 30 s (iOS 13+)")
    func budgets() {
        #expect(PhoneProfile.ios6.backgroundTaskBudget == .seconds(600))
        #expect(PhoneProfile.ios12.backgroundTaskBudget == .seconds(180))
        #expect(PhoneProfile.ios17.backgroundTaskBudget == .seconds(30))
        #expect(PhoneProfile.ios26.backgroundTaskBudget == .seconds(30))
        #expect(PhoneProfile.all.map(\.hasScenes) == [false, false, true, true])
    }

    @Test("TN3115 table row by row (iOS 11–25), QA1962 (iOS ≤ 10) and iOS 26 note 5")
    func relaunchTable() {
        let expected: [(TerminationCause, qa1962: Bool, tn3115: Bool, ios26: Bool, ios26ASK: Bool)] = [
            (.memoryPressure, true, true, true, true),
            (.crash, true, true, true, true),
            (.forceQuit, false, false, false, true),
            (.bluetoothOffInSettings, false, false, false, false),
            (.bluetoothOffInControlCenter, true, true, false, true),
            (.airplaneMode, false, true, false, true),
            (.airplaneModeWithBluetoothOff, false, false, false, false),
            (.reboot, false, true, true, true),
        ]
        #expect(expected.count == TerminationCause.allCases.count)
        for row in expected {
            #expect(RelaunchRules.qa1962.relaunches(after: row.0, usesAccessorySetupKit: false) == row.qa1962, "\(row.0)")
            #expect(RelaunchRules.tn3115.relaunches(after: row.0, usesAccessorySetupKit: false) == row.tn3115, "\(row.0)")
            #expect(RelaunchRules.tn3115iOS26.relaunches(after: row.0, usesAccessorySetupKit: false) == row.ios26, "\(row.0)")
            #expect(RelaunchRules.tn3115iOS26.relaunches(after: row.0, usesAccessorySetupKit: true) == row.ios26ASK, "\(row.0)")
        }
    }

    @Test("The wake window must lie in 0–30 s")
    func wakeWindowRange() throws {
        var profile = PhoneProfile.ios17
        #expect(try profile.checkedWakeWindow() == .seconds(10))
        profile.wakeWindow = .seconds(31)
        #expect(throws: PhoneProfileError.wakeWindowOutOfRange(.seconds(31))) { try profile.checkedWakeWindow() }
    }
}
