import BLE
import Foundation

/// How the system treats one app's scan in the app's current state (Core Bluetooth
/// Programming Guide, "Core Bluetooth Background Processing for iOS Apps").
package enum ScanMode: Sendable, Hashable {
    /// The app is in front: its scan as asked.
    case foreground
    /// In the background with `bluetooth-central` (or preserved for a relaunch): service
    /// UUIDs required, duplicates ignored, discoveries coalesced.
    case background
    /// In the background without `bluetooth-central`: the system does not scan for it until
    /// it is in front again.
    case paused
}

/// One app's scan as the system runs it: what it asked for and which peripherals it was told
/// of. A value fed one advertisement at a time; it answers whether the app hears of it.
///
/// The background rules (Core Bluetooth Programming Guide, "Core Bluetooth Background
/// Processing for iOS Apps"; phone-rules.md): a scan without service UUIDs finds nothing;
/// `allowDuplicates` is ignored; discoveries are coalesced — a peripheral already reported is
/// not reported again until the scan restarts or the peripheral connects or disconnects (O).
/// The longer background scan interval is not modelled: the system's one scan runs at the
/// host's interval for every app.
package struct AppScan: Sendable, Hashable {
    package var services: [BluetoothUUID]?
    package var options: PhoneScanOptions
    /// The peripherals reported since the scan started.
    package private(set) var reported: Set<UUID> = []

    package init(services: [BluetoothUUID]?, options: PhoneScanOptions) {
        self.services = services
        self.options = options
    }

    private var wantsEverything: Bool { services?.isEmpty ?? true }

    /// Whether the system's radio must scan for this app in `mode`.
    package func needsRadio(in mode: ScanMode) -> Bool {
        switch mode {
        case .foreground: true
        case .background: !wantsEverything
        case .paused: false
        }
    }

    /// Whether the app hears of this advertisement now (and remembers it was told).
    package mutating func admit(_ peripheral: UUID, _ advertisement: AdvertisementData, in mode: ScanMode) -> Bool {
        switch mode {
        case .paused:
            return false
        case .background:
            guard let services, !services.isEmpty else { return false }
            // Only the advertised list: a background scan does not match the overflow area
            // (our model of "only an iOS device explicitly scanning for it", with the app in
            // front).
            guard advertisement.serviceUUIDs.contains(where: services.contains) else { return false }
            return reported.insert(peripheral).inserted
        case .foreground:
            if let services, !services.isEmpty {
                let listed = advertisement.serviceUUIDs.contains(where: services.contains)
                guard listed || services.contains(where: { OverflowArea.contains($0, in: advertisement) }) else {
                    return false
                }
            }
            let first = reported.insert(peripheral).inserted
            return first || options.allowDuplicates
        }
    }

    /// The peripheral connected or disconnected: it may be reported again.
    package mutating func forget(_ peripheral: UUID) {
        reported.remove(peripheral)
    }
}
