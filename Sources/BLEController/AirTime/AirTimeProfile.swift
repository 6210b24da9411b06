import BLEWire

/// Named link configurations the virtual radio can imitate, each with the ATT MTU its peers
/// usually settle on. Parameters come from Nordic's measurements and the platform guidelines
/// (iOS accessory design guidelines, Android connection priorities); the timing rules they feed
/// are Core 5.4 Vol 6 Part B §4.5.1 and §4.5.6.
public enum AirTimeProfile: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The best a specification-conforming link can do, with nothing a vendor adds: LE 2M both
    /// ways, LL payload 251, ATT MTU 247 (one notification per LL packet), 7.5 ms interval (the
    /// shortest), event length = interval, rule A (the ideal end rule), no cap on packets per
    /// event. It still obeys air time: "ideal" means no vendor limits, not an infinitely fast
    /// radio, so every figure it yields is reachable on real air (about 1.3 Mbit/s one way).
    case ideal
    /// An nRF52 peer under Nordic's SoftDevice: LE 2M, LL 251, 7.5 ms, MTU 247, rule B.
    case nrf52
    /// An iPhone of the iOS 10 era: LE 1M, no DLE (LL 27), MTU 185, 15 ms, at most 7 packets per
    /// event, rule B (about 97 kbit/s of notifications, as measured).
    case iphoneIOS10
    /// A recent iPhone: LE 2M, LL 251, MTU 247, 15 ms, at most 3 packets per event, rule B
    /// (about 390 kbit/s; measured 300–400).
    case iphoneModern
    /// Android with high connection priority: LE 2M, LL 251, 11.25 ms, MTU 517 (requested from
    /// Android 14), rule B, no cap.
    case androidHigh

    /// The profile's name, as written on a command line.
    public var name: String {
        switch self {
        case .ideal: "ideal"
        case .nrf52: "nrf52"
        case .iphoneIOS10: "iphone-ios10"
        case .iphoneModern: "iphone-modern"
        case .androidHigh: "android-high"
        }
    }

    /// The profile called `name` (case-insensitive), or nil.
    public init?(named name: String) {
        let wanted = name.lowercased()
        guard let profile = Self.allCases.first(where: { $0.name == wanted }) else { return nil }
        self = profile
    }

    public var description: String { name }

    /// The ATT MTU peers negotiate under this profile.
    public var attMTU: Int {
        switch self {
        case .ideal, .nrf52, .iphoneModern: 247
        case .iphoneIOS10: 185
        case .androidHigh: 517
        }
    }

    /// The link timing of this profile; encryption is the link's state, not the profile's.
    public func linkTiming(encrypted: Bool = false) -> LinkTiming {
        switch self {
        case .ideal:
            LinkTiming(
                interval: .microseconds(7_500), phy: .le2M, maxOctets: 251, encrypted: encrypted, endRule: .ruleA)
        case .nrf52:
            LinkTiming(interval: .microseconds(7_500), phy: .le2M, maxOctets: 251, encrypted: encrypted)
        case .iphoneIOS10:
            LinkTiming(
                interval: .milliseconds(15), phy: .le1M, maxOctets: 27, encrypted: encrypted,
                maxPacketsPerEvent: 7)
        case .iphoneModern:
            LinkTiming(
                interval: .milliseconds(15), phy: .le2M, maxOctets: 251, encrypted: encrypted,
                maxPacketsPerEvent: 3)
        case .androidHigh:
            LinkTiming(interval: .microseconds(11_250), phy: .le2M, maxOctets: 251, encrypted: encrypted)
        }
    }
}
