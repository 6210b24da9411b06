import BLE
import Foundation

/// The apps' scans: one system scan, on while any app's scan needs the radio, whose
/// discoveries each app's `AppScan` filters by the background rules.
extension SystemBluetooth {
    package func scan(_ app: AppIdentifier, _ id: ManagerID, services: [BluetoothUUID]?, options: PhoneScanOptions)
        async throws(BLEError)
    {
        let state = await central.state
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        guard apps[app]?.centrals[id] != nil else { throw .closed }
        apps[app]?.centrals[id]?.scan = AppScan(services: services, options: options)
        await refreshScan()
    }

    package func stopScan(_ app: AppIdentifier, _ id: ManagerID) async {
        guard apps[app]?.centrals[id]?.scan != nil else { return }
        apps[app]?.centrals[id]?.scan = nil
        await refreshScan()
    }

    package func isScanning(_ app: AppIdentifier, _ id: ManagerID) -> Bool {
        apps[app]?.centrals[id]?.scan != nil
    }

    /// Whether some app's scan needs the radio now.
    var scanNeeded: Bool {
        guard radioOn else { return false }
        return apps.contains { app, entry in
            let mode = scanMode(app)
            return entry.centrals.values.contains { $0.scan?.needsRadio(in: mode) ?? false }
        }
    }

    /// Starts or stops the system scan as the apps' scans and states ask.
    func refreshScan() async {
        restorationMayHaveChanged()
        let needed = scanNeeded
        guard needed != systemScanOn else { return }
        systemScanOn = needed
        guard needed else {
            systemScan?.cancel()
            systemScan = nil
            await central.stopScan()
            return
        }
        let discoveries: EventStream<Discovery>
        do {
            // Every advertisement: each app's scan filters and coalesces on its own.
            discoveries = try await central.scanForPeripherals(
                withServices: nil, options: ScanOptions(allowDuplicates: true))
        } catch {
            systemScanOn = false
            logger.warning("system Bluetooth: cannot scan: \(error)")
            return
        }
        guard systemScanOn else {
            // Turned off while the scan started.
            return await central.stopScan()
        }
        systemScan = spawn { [weak self] in
            for await discovery in discoveries {
                guard let self else { return }
                await self.discovered(discovery)
            }
        }
    }

    /// One advertisement: to every app whose scan admits it.
    func discovered(_ discovery: Discovery) async {
        let identifier = discovery.peripheral.identifier
        let name = Self.quoted(discovery.advertisementData.localName)
        for app in apps.keys.sorted() {
            let mode = scanMode(app)
            guard let ids = apps[app]?.centrals.keys.sorted(by: { $0.serial < $1.serial }) else { continue }
            for id in ids {
                guard var scan = apps[app]?.centrals[id]?.scan,
                    scan.admit(identifier, discovery.advertisementData, in: mode)
                else { continue }
                apps[app]?.centrals[id]?.scan = scan
                let peripheral = discovery.peripheral
                let advertisement = discovery.advertisementData
                let rssi = discovery.rssi
                offerCentral(
                    app, id, .discovery, "discovered \(name) \(identifier) rssi \(rssi)",
                    coalescingKey: "discovery \(identifier)"
                ) { manager in
                    .discovered(manager.handle(for: peripheral), advertisement, rssi: rssi)
                }
            }
        }
    }

    /// The peripheral connected or disconnected: every scan may report it again (coalescing
    /// ends, phone-rules.md: "already-seen peripheral not re-reported until connect/disconnect").
    func forgetInScans(_ identifier: UUID) {
        for app in apps.keys {
            for id in apps[app]?.centrals.keys.map({ $0 }) ?? [] {
                apps[app]?.centrals[id]?.scan?.forget(identifier)
            }
        }
    }
}
