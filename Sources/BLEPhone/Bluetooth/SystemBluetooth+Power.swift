import BLE

/// The radio's power: every app's managers follow it (Core Bluetooth: below `.poweredOn`,
/// scans stop and peripherals are disconnected).
extension SystemBluetooth {
    func powerOn() async {
        do {
            try await central.powerOn()
        } catch {
            logger.error("system Bluetooth: the central manager does not power on: \(error)")
        }
        do {
            try await peripheralManager?.powerOn()
        } catch {
            logger.error("system Bluetooth: the peripheral manager does not power on: \(error)")
        }
    }

    func startPumps() {
        pumps = [watchCentralEvents()] + watchPeripheralManager()
    }

    /// The user or the system turned the radio off or on. Off: every running app's managers
    /// get `.stateUpdated(.poweredOff)`, the apps' scans and advertising end (an app starts
    /// them again once powered on), links go down (their holders get `.disconnected`) and
    /// pending connects fail. On: `.stateUpdated(.poweredOn)`.
    package func radioPowerChanged(on: Bool) async {
        guard on != radioOn else { return }
        radioOn = on
        if !on {
            for app in apps.keys {
                for id in apps[app]?.centrals.keys.map({ $0 }) ?? [] { apps[app]?.centrals[id]?.scan = nil }
                for id in apps[app]?.peripherals.keys.map({ $0 }) ?? [] {
                    apps[app]?.peripherals[id]?.advertisement = nil
                    apps[app]?.peripherals[id]?.subscribers = [:]
                }
            }
            await refreshScan()
            await refreshAdvertising()
            await announceState(.poweredOff)
            await central.powerOff()
            await peripheralManager?.powerOff()
        } else {
            await powerOn()
            await announceState(.poweredOn)
        }
    }

    /// `.stateUpdated` to every manager of a running app (a preserved manager of a dead app
    /// learns the state when it is restored).
    func announceState(_ state: ManagerState) async {
        for app in apps.keys.sorted() {
            for client in (apps[app]?.centrals.values.sorted { $0.id.serial < $1.id.serial } ?? [])
            where client.launch != nil {
                offerCentral(app, client.id, .stateUpdate, "\(client.id): \(state)") { _ in .stateUpdated(state) }
            }
            for client in (apps[app]?.peripherals.values.sorted { $0.id.serial < $1.id.serial } ?? [])
            where client.launch != nil {
                offerPeripheral(app, client.id, .stateUpdate, "\(client.id): \(state)", .stateUpdated(state))
            }
        }
    }
}
