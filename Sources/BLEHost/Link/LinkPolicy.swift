import BLEWire

/// How the central host shapes a new link, as the phone it plays would: what it asks for right
/// after LE Connection Complete (data length, PHY, ATT_MTU, connection parameters) and which
/// connection parameters it accepts when the peripheral asks for others.
///
/// A value the app chooses (`HostConfiguration.linkPolicy`); the named profiles follow what the
/// platforms are documented or measured to do.
public struct LinkPolicy: Sendable, Hashable, CustomStringConvertible {
    /// LE Set Data Length values (Core 5.4 Vol 4 Part E §7.8.33): TX_Octets and TX_Time (µs).
    public struct DataLength: Sendable, Hashable {
        public var octets: UInt16
        public var time: UInt16

        public init(octets: UInt16, time: UInt16) {
            self.octets = octets
            self.time = time
        }

        /// The largest LL payload, timed for LE 1M: 251 octets in 2120 µs (Vol 6 Part B §4.5.10).
        public static let maximum = DataLength(octets: 251, time: 2120)
    }

    /// The profile's name (`ble … --link-policy NAME`).
    public var name: String
    /// Asked with LE Set Data Length after connecting, and written as the controller's suggested
    /// default at start (§7.8.35) so that links this host did not initiate use it too; nil asks
    /// nothing. Skipped when the local controller lacks Data Packet Length Extension.
    public var dataLength: DataLength?
    /// Ask for LE 2M in both directions (LE Set PHY, §7.8.49) when the local controller supports
    /// it; the peer's controller settles on LE 1M when it does not.
    public var prefers2M: Bool
    /// The ATT_MTU the central asks for with Exchange MTU (Vol 3 Part F §3.4.2), capped by
    /// `HostConfiguration.preferredATTMTU` (what this host's buffers take); nil exchanges nothing.
    public var attMTU: Int?
    /// Connection parameters asked for once the link is up (LE Connection Update, §7.8.18); nil
    /// keeps those of the connection request.
    public var connectionUpdate: HCI.ConnectionParameters?
    /// What the central accepts when a peripheral asks for connection parameters (L2CAP
    /// Connection Parameter Update Request, Vol 3 Part A §4.20, or the LL Connection Parameters
    /// Request procedure, Vol 4 Part E §7.7.65.6).
    public var acceptedParameters: ConnectionParameterLimits

    public init(
        name: String, dataLength: DataLength? = nil, prefers2M: Bool = false, attMTU: Int? = nil,
        connectionUpdate: HCI.ConnectionParameters? = nil,
        acceptedParameters: ConnectionParameterLimits = .specification
    ) {
        self.name = name
        self.dataLength = dataLength
        self.prefers2M = prefers2M
        self.attMTU = attMTU
        self.connectionUpdate = connectionUpdate
        self.acceptedParameters = acceptedParameters
    }

    public var description: String { name }

    /// A current iPhone: Data Packet Length Extension at 251 octets (Apple's Accessory Design
    /// Guidelines, "Data Packet Length Extension": the device negotiates optimal lengths), LE 2M
    /// where both controllers have it (iPhone 8 and later), ATT_MTU 247 — one ATT PDU per
    /// 251-octet LL payload, behind the 4-octet L2CAP header — and Apple's connection parameter
    /// rules for the peripheral's requests (`ConnectionParameterLimits.apple`).
    public static let iphoneModern = LinkPolicy(
        name: "iphone-modern", dataLength: .maximum, prefers2M: true, attMTU: 247, acceptedParameters: .apple)

    /// An iPhone of the iOS 10 era (iPhone 7): data length 251 — it opens with LL_LENGTH_REQ
    /// offering 251 octets each way, as reported by accessory vendors — but LE 1M only (LE 2M
    /// came with the iPhone 8), ATT_MTU 185 (what iOS 10 asks: 185 + 4 octets fill seven 27-octet
    /// LL payloads), Apple's rules.
    public static let iphoneIOS10 = LinkPolicy(
        name: "iphone-ios10", dataLength: .maximum, prefers2M: false, attMTU: 185, acceptedParameters: .apple)

    /// An Android phone after `requestConnectionPriority(CONNECTION_PRIORITY_HIGH)`: interval
    /// 11.25–15 ms, latency 0, supervision timeout 5 s (Android 8 and later); ATT_MTU 517 (what
    /// Android 14 asks by default); data length 251; LE 1M unless the app calls
    /// `setPreferredPhy`. Android's stack takes any parameters the specification allows.
    public static let androidHigh = LinkPolicy(
        name: "android-high", dataLength: .maximum, prefers2M: false, attMTU: 517,
        connectionUpdate: HCI.ConnectionParameters(
            connectionIntervalMin: 9, connectionIntervalMax: 12, maxLatency: 0, supervisionTimeout: 500),
        acceptedParameters: .specification)

    /// Nothing asked: the link stays as the connection request made it (LE 1M, 27-octet
    /// payloads, ATT_MTU 23); any parameters the specification allows are accepted.
    public static let none = LinkPolicy(name: "none")

    /// The named profiles, default first.
    public static let profiles: [LinkPolicy] = [.iphoneModern, .iphoneIOS10, .androidHigh, .none]

    /// The profile called `name`, nil for an unknown name.
    public init?(named name: String) {
        guard let profile = Self.profiles.first(where: { $0.name == name }) else { return nil }
        self = profile
    }
}

/// The connection parameters a central accepts from a peripheral's request, in the units of the
/// request (interval 1.25 ms, timeout 10 ms).
public struct ConnectionParameterLimits: Sendable, Hashable {
    /// The shortest Interval Min accepted.
    public var minimumInterval: UInt16
    /// Interval Min must be a multiple of this (1: any).
    public var intervalStep: UInt16
    /// Interval Max must exceed Interval Min by at least this, unless both equal
    /// `minimumInterval` (0: no rule).
    public var minimumIntervalSpread: UInt16
    public var maximumLatency: UInt16
    public var timeout: ClosedRange<UInt16>
    /// Interval Max × (latency + 1) may not exceed this many 1.25 ms units (nil: no rule).
    public var maximumEffectiveInterval: UInt16?
    /// Interval Max × (latency + 1) × this must stay below the timeout (the specification's
    /// rule is 2, Vol 6 Part B §4.5.2).
    public var timeoutMargin: Int

    public init(
        minimumInterval: UInt16, intervalStep: UInt16, minimumIntervalSpread: UInt16, maximumLatency: UInt16,
        timeout: ClosedRange<UInt16>, maximumEffectiveInterval: UInt16?, timeoutMargin: Int
    ) {
        self.minimumInterval = minimumInterval
        self.intervalStep = intervalStep
        self.minimumIntervalSpread = minimumIntervalSpread
        self.maximumLatency = maximumLatency
        self.timeout = timeout
        self.maximumEffectiveInterval = maximumEffectiveInterval
        self.timeoutMargin = timeoutMargin
    }

    /// The specification's ranges alone (Vol 3 Part A §4.20; Vol 4 Part E §7.8.18): interval
    /// 7.5 ms – 4 s, latency ≤ 499, timeout 100 ms – 32 s and longer than twice the effective
    /// interval.
    public static let specification = ConnectionParameterLimits(
        minimumInterval: 0x0006, intervalStep: 1, minimumIntervalSpread: 0, maximumLatency: 0x01F3,
        timeout: 0x000A...0x0C80, maximumEffectiveInterval: nil, timeoutMargin: 2)

    /// Apple's rules for accessories (Accessory Design Guidelines for Apple Devices, "Connection
    /// Parameters"): Interval Min ≥ 15 ms and a multiple of 15 ms; Interval Max at least 15 ms
    /// above Interval Min, or both 15 ms; latency ≤ 30; 2 s ≤ timeout ≤ 6 s; Interval Max ×
    /// (latency + 1) ≤ 2 s; Interval Max × (latency + 1) × 3 < timeout. A request that breaks
    /// one "may be rejected": this central rejects it.
    public static let apple = ConnectionParameterLimits(
        minimumInterval: 12, intervalStep: 12, minimumIntervalSpread: 12, maximumLatency: 30, timeout: 200...600,
        maximumEffectiveInterval: 1600, timeoutMargin: 3)

    /// Why a request breaks these limits, nil when it is acceptable.
    public func violation(
        intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16
    ) -> String? {
        let spec: ClosedRange<UInt16> = 0x0006...0x0C80
        guard spec.contains(intervalMin), spec.contains(intervalMax), intervalMin <= intervalMax else {
            return "interval \(intervalMin)…\(intervalMax) outside 6…3200 or reversed"
        }
        guard intervalMin >= minimumInterval else { return "Interval Min \(intervalMin) below \(minimumInterval)" }
        guard intervalMin % max(intervalStep, 1) == 0 else {
            return "Interval Min \(intervalMin) not a multiple of \(intervalStep)"
        }
        let bothMinimal = intervalMin == minimumInterval && intervalMax == minimumInterval
        guard bothMinimal || Int(intervalMax) >= Int(intervalMin) + Int(minimumIntervalSpread) else {
            return "Interval Max \(intervalMax) less than \(minimumIntervalSpread) above Interval Min \(intervalMin)"
        }
        guard latency <= min(maximumLatency, 0x01F3) else { return "latency \(latency) above \(maximumLatency)" }
        guard timeout >= max(self.timeout.lowerBound, 0x000A), timeout <= min(self.timeout.upperBound, 0x0C80) else {
            return "timeout \(timeout) outside \(self.timeout)"
        }
        let effective = Int(intervalMax) * (Int(latency) + 1)
        if let maximumEffectiveInterval, effective > Int(maximumEffectiveInterval) {
            return "Interval Max × (latency + 1) = \(effective) above \(maximumEffectiveInterval)"
        }
        // Interval in 1.25 ms units, timeout in 10 ms units: × 1.25 / 10 = / 8.
        guard effective * timeoutMargin < Int(timeout) * 8 else {
            return "timeout \(timeout) not above \(timeoutMargin) × Interval Max × (latency + 1)"
        }
        return nil
    }
}
