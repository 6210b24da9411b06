extension PhoneConditions: CustomStringConvertible {
    /// The conditions in words, for the trace ("charging, battery 80 %, Wi-Fi").
    public var description: String {
        var parts = [charging ? "charging" : "on battery", "battery \(batteryLevel) %"]
        if lowPowerMode { parts.append("Low Power Mode") }
        switch network {
        case .none: parts.append("no network")
        case .cellular: parts.append("cellular")
        case .wifi: parts.append("Wi-Fi")
        }
        if !backgroundAppRefresh { parts.append("Background App Refresh off") }
        return parts.joined(separator: ", ")
    }

    /// The conditions as trace fields (the JSON).
    var traceFields: [(name: String, value: PhoneTraceRecord.Value)] {
        [
            ("charging", .flag(charging)), ("battery_percent", .integer(Int64(batteryLevel))),
            ("low_power_mode", .flag(lowPowerMode)), ("network", .text(network.rawValue)),
            ("background_app_refresh", .flag(backgroundAppRefresh)),
        ]
    }
}
