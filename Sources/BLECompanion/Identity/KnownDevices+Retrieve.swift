import BLE
import BLEWire
import Foundation

extension KnownDevices {
    /// Core Bluetooth's `retrievePeripherals(withIdentifiers:)`, answered for known devices
    /// even by a central that has never seen them — after the app restarted, with a new
    /// `CentralManager`:
    ///
    /// 1. identifiers the central already knows (it saw them since it started) are answered
    ///    from it, without a scan;
    /// 2. the rest are looked up in the registry; identifiers it does not know are left out;
    /// 3. the known ones are searched for by key — one scan for all of them, ended as soon as
    ///    each was seen or after `timeout` on `clock` — so a device found at a new address is
    ///    re-bound (`.rebound` is reported) and its peripheral, with its new identifier, is
    ///    returned in place of the one asked for.
    ///
    /// The result keeps the order of `identifiers`; devices not found in time are missing, as
    /// in Core Bluetooth. The scan, when one is needed, replaces one the central had running.
    /// Throws `BLEError` when the scan fails and `KnownDevicesError` when the registry cannot be
    /// read or updated (never taken for "not known").
    public func retrievePeripherals(
        withIdentifiers identifiers: [UUID], on central: CentralManager, timeout: Duration = .seconds(10),
        clock: any Clock<Duration>
    ) async throws -> [Peripheral] {
        let seen = await central.retrievePeripherals(withIdentifiers: identifiers)
        let seenIdentifiers = Set(seen.map(\.identifier))
        var keys: [UUID: DeviceKey] = [:]
        var irks: [DeviceKey: SMPKey128] = [:]
        for identifier in identifiers where !seenIdentifiers.contains(identifier) {
            guard let device = try device(withIdentifier: identifier) else { continue }
            keys[identifier] = device.key
            irks[device.key] = device.irk.flatMap(SMPKey128.init(storedOctets:))
        }
        var found: [DeviceKey: Discovery] = [:]
        if !keys.isEmpty {
            found = try await DeviceSearch.find(
                Set(keys.values), irks: irks, on: central, identification: identification, timeout: timeout,
                clock: clock)
            for discovery in found.values { try observe(discovery) }
        }
        var result: [Peripheral] = []
        var returned: Set<UUID> = []
        for identifier in identifiers {
            let peripheral =
                seen.first { $0.identifier == identifier } ?? keys[identifier].flatMap { found[$0]?.peripheral }
            guard let peripheral, returned.insert(peripheral.identifier).inserted else { continue }
            result.append(peripheral)
        }
        return result
    }

    /// Searches for one known device by key (a scan that ends when it is seen or after
    /// `timeout`), updating its record — re-bound if its address changed. Nil when not seen.
    /// Throws `BLEError` when the scan fails and `KnownDevicesError` when the record cannot be
    /// updated.
    public func find(
        _ key: DeviceKey, on central: CentralManager, timeout: Duration = .seconds(10), clock: any Clock<Duration>
    ) async throws -> Discovery? {
        let irk = try device(forKey: key)?.irk.flatMap(SMPKey128.init(storedOctets:))
        let found = try await DeviceSearch.find(
            [key], irks: irk.map { [key: $0] } ?? [:], on: central, identification: identification, timeout: timeout,
            clock: clock)
        guard let discovery = found[key] else { return nil }
        try observe(discovery)
        return discovery
    }
}
