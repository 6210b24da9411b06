import BLE
import Foundation

/// The apps' peripheral managers: their services on the system's one GATT server, their
/// advertising in its one advertisement, and the requests and subscriptions for their
/// characteristics.
extension SystemBluetooth {
    func checkPeripheralManager() async throws(BLEError) -> PeripheralManager {
        guard let peripheralManager else { throw .notPoweredOn(.unsupported) }
        let state = await peripheralManager.state
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        return peripheralManager
    }

    package func add(_ service: MutableService, for app: AppIdentifier, _ id: ManagerID) async throws(BLEError)
        -> Service
    {
        let manager = try await checkPeripheralManager()
        guard apps[app]?.peripherals[id] != nil else { throw .closed }
        let published = try await manager.add(service)
        apps[app]?.peripherals[id]?.services[published.handleRange.lowerBound] = published
        restorationMayHaveChanged()
        return published
    }

    package func remove(_ service: Service, for app: AppIdentifier, _ id: ManagerID) async throws(BLEError) {
        let manager = try await checkPeripheralManager()
        guard apps[app]?.peripherals[id]?.services[service.handleRange.lowerBound] != nil else {
            throw .unknownAttribute
        }
        try await manager.remove(service)
        apps[app]?.peripherals[id]?.services[service.handleRange.lowerBound] = nil
        restorationMayHaveChanged()
    }

    package func services(of app: AppIdentifier, _ id: ManagerID) -> [Service] {
        (apps[app]?.peripherals[id]?.services.values.map { $0 } ?? []).sorted {
            $0.handleRange.lowerBound < $1.handleRange.lowerBound
        }
    }

    package func startAdvertising(_ advertisement: PhoneAdvertisement, for app: AppIdentifier, _ id: ManagerID)
        async throws(BLEError)
    {
        _ = try await checkPeripheralManager()
        guard apps[app]?.peripherals[id] != nil else { throw .closed }
        apps[app]?.peripherals[id]?.advertisement = advertisement
        await refreshAdvertising()
    }

    package func stopAdvertising(for app: AppIdentifier, _ id: ManagerID) async {
        guard apps[app]?.peripherals[id]?.advertisement != nil else { return }
        apps[app]?.peripherals[id]?.advertisement = nil
        await refreshAdvertising()
    }

    package func isAdvertising(_ app: AppIdentifier, _ id: ManagerID) -> Bool {
        apps[app]?.peripherals[id]?.advertisement != nil
    }

    /// The advertisement the apps' requests make now (most recently foregrounded app first).
    func composedAdvertisement() -> AdvertisementData? {
        guard radioOn else { return nil }
        let ordered = apps.keys.sorted {
            (foregroundedAt[$0] ?? 0, $1.bundleIdentifier) > (foregroundedAt[$1] ?? 0, $0.bundleIdentifier)
        }
        var requests: [(PhoneAdvertisement, AdvertisingMode)] = []
        for app in ordered {
            let mode = advertisingMode(app)
            for client in (apps[app]?.peripherals.values.sorted { $0.id.serial < $1.id.serial } ?? []) {
                if let advertisement = client.advertisement { requests.append((advertisement, mode)) }
            }
        }
        return AdvertisingComposer.compose(requests)
    }

    /// Sends the composed advertisement to the controller when it changed.
    func refreshAdvertising() async {
        restorationMayHaveChanged()
        guard let peripheralManager else { return }
        let wanted = composedAdvertisement()
        guard wanted != advertised else { return }
        advertised = wanted
        guard let wanted else {
            await peripheralManager.stopAdvertising()
            return
        }
        do {
            try await peripheralManager.startAdvertising(wanted)
        } catch {
            statistics.advertisingFailures += 1
            advertised = nil
            logger.warning("system Bluetooth: cannot advertise \(wanted.serviceUUIDs): \(error)")
        }
    }

    package func respond(to request: ATTRequest, withResult result: ATTResult) async {
        await peripheralManager?.respond(to: request, withResult: result)
    }

    package func respond(to request: ATTRequest, withValue value: [UInt8]) async {
        await peripheralManager?.respond(to: request, withValue: value)
    }

    package func updateValue(
        _ value: [UInt8], for characteristic: Characteristic, onSubscribedCentrals centrals: [Central]?,
        from app: AppIdentifier, _ id: ManagerID
    ) async throws(BLEError) -> Bool {
        let manager = try await checkPeripheralManager()
        guard apps[app]?.peripherals[id]?.owns(characteristic.handle) == true else { throw .unknownAttribute }
        let sent = try await manager.updateValue(value, for: characteristic, onSubscribedCentrals: centrals)
        if !sent { apps[app]?.peripherals[id]?.owesReadiness = true }
        return sent
    }

    /// The app manager whose service holds the attribute `handle`.
    func owner(of handle: UInt16) -> (AppIdentifier, ManagerID)? {
        for app in apps.keys.sorted() {
            for client in (apps[app].map { Array($0.peripherals.values) } ?? []) where client.owns(handle) {
                return (app, client.id)
            }
        }
        return nil
    }

    // MARK: Requests and subscriptions

    /// Reads the peripheral manager's requests and events for the lifetime of the service.
    func watchPeripheralManager() -> [Task<Void, Never>] {
        guard let manager = peripheralManager else { return [] }
        let reads = manager.readRequests
        let writes = manager.writeRequests
        let events = manager.events
        return [
            spawn { [weak self] in
                for await request in reads {
                    guard let self else { return }
                    await self.received(read: request)
                }
            },
            spawn { [weak self] in
                for await requests in writes {
                    guard let self else { return }
                    await self.received(writes: requests)
                }
            },
            spawn { [weak self] in
                for await event in events {
                    guard let self else { return }
                    await self.received(event)
                }
            },
        ]
    }

    func received(read request: ATTRequest) async {
        guard let (app, id) = owner(of: request.characteristic.handle) else {
            return await orphan(request)
        }
        if advertisingMode(app) == .off {
            // A foreground-only app in the background: remote reads of its dynamic values fail
            // (Core Bluetooth Programming Guide, "Core Bluetooth Background Processing for iOS
            // Apps"); answered at once rather than held until the app is in front.
            statistics.refusedReads += 1
            await peripheralManager?.respond(to: request, withResult: .error(.unlikelyError))
            await phone?.record(
                .eventDropped(
                    .readRequest, summary: "read request for \(request.characteristic.uuid)",
                    why: "a foreground-only app in the background: remote reads fail"),
                app: app)
            return
        }
        offerPeripheral(
            app, id, .readRequest, "read request for \(request.characteristic.uuid) from \(request.central.identifier)",
            .readRequest(request))
    }

    func received(writes requests: [ATTRequest]) async {
        guard let first = requests.first, let (app, id) = owner(of: first.characteristic.handle) else {
            if let first = requests.first { await orphan(first) }
            return
        }
        offerPeripheral(
            app, id, .writeRequest, "write request for \(first.characteristic.uuid) from \(first.central.identifier)",
            .writeRequests(requests))
    }

    /// A request for a characteristic no app owns any more: answered for it (an unanswered
    /// request would hold the central's bearer until its ATT timeout).
    func orphan(_ request: ATTRequest) async {
        statistics.orphanRequests += 1
        logger.notice("system Bluetooth: request for \(request.characteristic.uuid) has no app; answered with an error")
        await peripheralManager?.respond(to: request, withResult: .error(.unlikelyError))
    }

    func received(_ event: PeripheralManagerEvent) async {
        switch event {
        case .subscribed(let central, let characteristic):
            guard let (app, id) = owner(of: characteristic.handle) else { return }
            let key = CharacteristicKey(peripheral: central.identifier, valueHandle: characteristic.handle)
            apps[app]?.peripherals[id]?.subscribers[key] = central
            restorationMayHaveChanged()
            offerPeripheral(
                app, id, .subscription, "\(central.identifier) subscribed to \(characteristic.uuid)",
                .subscribed(central, characteristic))
        case .unsubscribed(let central, let characteristic):
            guard let (app, id) = owner(of: characteristic.handle) else { return }
            let key = CharacteristicKey(peripheral: central.identifier, valueHandle: characteristic.handle)
            apps[app]?.peripherals[id]?.subscribers[key] = nil
            restorationMayHaveChanged()
            offerPeripheral(
                app, id, .unsubscription, "\(central.identifier) unsubscribed from \(characteristic.uuid)",
                .unsubscribed(central, characteristic))
        case .readyToUpdateSubscribers:
            for app in apps.keys.sorted() {
                for client in (apps[app].map { Array($0.peripherals.values) } ?? []) where client.owesReadiness {
                    apps[app]?.peripherals[client.id]?.owesReadiness = false
                    offerPeripheral(
                        app, client.id, .readyToUpdate, "ready to update subscribers", .readyToUpdateSubscribers)
                }
            }
        case .connected, .disconnected, .linkChanged, .indicationConfirmed, .pairingStarted, .paired, .pairingFailed,
            .securityChanged:
            return
        }
    }
}
