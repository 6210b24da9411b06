import BLE

/// Finds devices by key with a scan (Core 5.4 Vol 3 Part C §9.2.6 general discovery): the
/// scan runs until every key was seen or `timeout` elapses on `clock`, then stops.
///
/// The scan replaces any scan the central had in progress, as a new `scanForPeripherals` does.
enum DeviceSearch {
    /// The first discovery of each of `keys`; those not seen in time are missing.
    static func find(
        _ keys: Set<DeviceKey>, on central: CentralManager, identification: DeviceIdentification,
        timeout: Duration, clock: any Clock<Duration>
    ) async throws(BLEError) -> [DeviceKey: Discovery] {
        guard !keys.isEmpty else { return [:] }
        let discoveries = try await central.scanForPeripherals(withServices: identification.scanServices)
        let outcome = await withTaskGroup(of: Ending.self) { group -> Ending in
            group.addTask {
                var found: [DeviceKey: Discovery] = [:]
                for await discovery in discoveries {
                    guard let key = identification.key(for: discovery), keys.contains(key), found[key] == nil else {
                        continue
                    }
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
