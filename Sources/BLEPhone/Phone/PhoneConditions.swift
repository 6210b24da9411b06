/// The handset's conditions that the system weighs when it decides what runs in the background
/// (WWDC 2020 "Background execution demystified": battery, Low Power Mode, the Background App
/// Refresh switch, network; phone-rules.md).
public struct PhoneConditions: Sendable, Hashable, Codable {
    /// The network the phone has.
    public enum Network: String, Sendable, Hashable, Codable, CaseIterable {
        case none, cellular, wifi
    }

    /// On external power.
    public var charging: Bool
    /// 0–100 %.
    public var batteryLevel: Int
    public var lowPowerMode: Bool
    public var network: Network
    /// Settings › General › Background App Refresh, for the whole phone.
    public var backgroundAppRefresh: Bool

    public init(
        charging: Bool = false, batteryLevel: Int = 80, lowPowerMode: Bool = false, network: Network = .wifi,
        backgroundAppRefresh: Bool = true
    ) {
        self.charging = charging
        self.batteryLevel = min(max(batteryLevel, 0), 100)
        self.lowPowerMode = lowPowerMode
        self.network = network
        self.backgroundAppRefresh = backgroundAppRefresh
    }
}
