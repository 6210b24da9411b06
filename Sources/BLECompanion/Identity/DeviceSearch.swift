import BLE
import BLEHost
import BLEWire

/// Finds devices by key with a scan (Core 5.4 Vol 3 Part C §9.2.6 general discovery): the
/// scan runs until every key was seen or `timeout` elapses on `clock`, then stops.
///
/// The scan replaces any scan the central had in progress, as a new `scanForPeripherals` does.
enum DeviceSearch {
    /// The first discovery of each of `keys`; those not seen in time are missing. A device
    /// with an IRK in `irks` is also recognised on a resolvable private address its IRK
    /// resolves (Core 5.4 Vol 6 Part B §1.3.2.3).
    static func find(
        _ keys: Set<DeviceKey>, irks: [DeviceKey: SMPKey128] = [:], on central: CentralManager,
        identification: DeviceIdentification, timeout: Duration, clock: any Clock<Duration>
    ) async throws(BLEError) -> [DeviceKey: Discovery] {
        guard !keys.isEmpty else { return [:] }
        @Sendable func resolvedKey(_ address: LEAddress) -> DeviceKey? {
            guard address.type == .random, address.kind == .resolvablePrivate else { return nil }
            return irks.first { keys.contains($0.key) && PrivateAddress.resolves(address.address, with: $0.value) }?.key
        }
        let discoveries = try await central.scanForPeripherals(withServices: identification.scanServices)
        let outcome = await withTaskGroup(of: Ending.self) { group -> Ending in
            group.addTask {
                var found: [DeviceKey: Discovery] = [:]
                for await discovery in discoveries {
                    let key = identification.key(for: discovery) ?? resolvedKey(discovery.peripheral.address)
                    guard let key, keys.contains(key), found[key] == nil else { continue }
                    found[key] = discovery
                    if found.count == keys.count { return .complete(found) }
                }
                // The scan was stopped or replaced, the radio turned off, or the task cancelled.
                return .ended(found)
            }
            group.addTask {
                do {
                    try await clock.sleep(for: timeout)
                } catch {
                    return .ended([:])
                }
                return .timedOut
            }
            guard let first = await group.next() else { return .ended([:]) }
            switch first {
            case .complete, .ended:
                group.cancelAll()
                return first
            case .timedOut:
                // The scan's stream ends when it stops; what it found so far is the result.
                await central.stopScan()
                let rest = await group.next() ?? .ended([:])
                return rest
            }
        }
        switch outcome {
        case .complete(let found):
            await central.stopScan()
            return found
        case .ended(let found):
            return found
        case .timedOut:
            return [:]
        }
    }

    private enum Ending: Sendable {
        case complete([DeviceKey: Discovery])
        case ended([DeviceKey: Discovery])
        case timedOut
    }
}
