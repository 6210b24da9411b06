import BLEHost
import BLEWire
import Foundation

/// What a peripheral reports besides the answers to calls (Core Bluetooth's
/// `CBPeripheralDelegate` callbacks that are not answers).
public enum PeripheralEvent: Sendable {
    /// The link has room for writes without response again, after `canSendWriteWithoutResponse`
    /// was false (`peripheralIsReady(toSendWriteWithoutResponse:)`).
    case readyToSendWriteWithoutResponse
    /// A notification or indication of a characteristic's value (Core 5.4 Vol 3 Part G §4.10,
    /// §4.11), in arrival order (`didUpdateValueFor`).
    case valueUpdated(Characteristic, [UInt8])
    /// The peer's database changed (a Service Changed indication, Core 5.4 Vol 3 Part G §7.1):
    /// the services listed, those overlapping the changed range, are forgotten; discover again
    /// to see what replaced them (`peripheral(_:didModifyServices:)`).
    case servicesModified(invalidatedServices: [Service])
    /// The link changed: connection parameters, PHY, data length or ATT_MTU (Core 5.4 Vol 4
    /// Part E §7.7.65.3, §7.7.65.12, §7.7.65.7; Vol 3 Part F §3.4.2).
    case linkChanged(LinkParameters)
    /// The link went down (Disconnection Complete, Core 5.4 Vol 4 Part E §7.7.5) with the
    /// controller's reason, as the manager's `.disconnected` reports it
    /// (`centralManager(_:didDisconnectPeripheral:error:)`, seen from the peripheral).
    case disconnected(reason: HCIStatus)
    /// Pairing began with this method, after the feature exchange (Core 5.4 Vol 3 Part H
    /// §2.3.5.1).
    case pairingStarted(PairingMethod)
    /// Pairing completed and the link is encrypted with the new key; `bond` is what was
    /// stored (nil when either side does not bond).
    case paired(bond: Bond?)
    /// Pairing failed (Pairing Failed either way, the SMP timeout, the user's refusal).
    case pairingFailed(PairingError)
    /// The link's security changed: encryption started (from pairing or a bond), its key was
    /// refreshed, or it stopped (Core 5.4 Vol 4 Part E §7.7.8, §7.7.39).
    case securityChanged(LinkSecurity)
    /// The peripheral answered encryption with the bond's key with PIN or Key Missing (0x06):
    /// it lost the bond (Core 5.4 Vol 3 Part C §10.3.2). `SecurityPolicy.rePairsWhenPeerLostBond`
    /// decides whether to pair again.
    case peerLostBond
}

/// A remote peripheral as a central sees it (Core Bluetooth's `CBPeripheral`): found by a
/// scan, connected by its `CentralManager`, then explored and used with GATT client procedures
/// (Core 5.4 Vol 3 Part G §4) over the connection's ATT bearer.
///
/// An actor on its manager's executor. What discovery finds is kept for the current connection
/// and handed out as value snapshots (`Service`, `Characteristic`, `Descriptor`); a
/// disconnection forgets it, so a new connection discovers again.
public actor Peripheral {
    /// The link, as the manager drives it.
    package enum Link: Equatable {
        case disconnected
        case connecting
        case connected(ConnectionHandle)
        case disconnecting(ConnectionHandle)
    }

    /// Stable for the peer's identity address (`LEAddress.peerIdentifier`).
    public nonisolated let identifier: UUID
    /// The address it advertised with (Core 5.4 Vol 6 Part B §1.3). Core Bluetooth hides it;
    /// tools that name devices by address (`ble read F0:F1:…`) need it.
    public nonisolated let address: LEAddress
    package nonisolated let stack: HostStack

    public nonisolated var unownedExecutor: UnownedSerialExecutor { stack.executor.asUnownedSerialExecutor() }

    /// The advertised local name (CSS Part A §1.2), the latest seen.
    public private(set) var name: String?
    package var link = Link.disconnected
    /// Counts connections, so that the results of a procedure started on an earlier link are
    /// not stored.
    var connectionCount: UInt64 = 0
    /// What discovery found, by service declaration handle.
    var serviceRecords: [UInt16: ServiceRecord] = [:]
    var servicesDiscovered = false
    var valueListeners: [UInt16: Subscribers<[UInt8]>] = [:]
    var eventListeners = Subscribers<PeripheralEvent>()
    /// Takes each value in place, before the streams (`observeValues`).
    var valueObserver: ValueObserver?
    var disconnectionWaiters = WaiterQueue()
    /// One GATT procedure at a time (`serialised`).
    var procedureGate = ProcedureGate()
    var readinessArmed = false
    /// The Service Changed characteristic value handle, once indications of it are enabled on
    /// this connection (Core 5.4 Vol 3 Part G §7.1).
    var serviceChangedHandle: UInt16?
    /// The link as last reported to listeners (`.linkChanged` reports changes from it).
    var reportedLink: LinkParameters?
    /// A bonded peer's database for the current connection (Peripheral+AttributeCache).
    var attributeCache: PeripheralAttributeCache?

    init(address: LEAddress, stack: HostStack, name: String?) {
        self.identifier = address.peerIdentifier
        self.address = address
        self.stack = stack
        self.name = name
    }

    // MARK: State

    public var state: PeripheralState {
        switch link {
        case .disconnected: .disconnected
        case .connecting: .connecting
        case .connected: .connected
        case .disconnecting: .disconnecting
        }
    }

    /// The services found by `discoverServices` in this connection; nil until then.
    public var services: [Service]? {
        guard servicesDiscovered else { return nil }
        return serviceRecords.values.filter(\.isListed).sorted { $0.service.startHandle < $1.service.startHandle }
            .map { snapshot($0) }
    }

    /// The connection's ATT_MTU (23 until exchanged, or when not connected; Core 5.4 Vol 3
    /// Part F §3.2.8). `connect` exchanges it (§3.4.2), as Core Bluetooth does.
    public var mtu: Int {
        get async {
            guard case .connected(let handle) = link else { return ATTBearer.defaultMTU }
            // The peripheral runs on its host's executor: asked in place, no task switch.
            return stack.inPlace(passing: handle) { $0.attMTU(on: $1) }
        }
    }

    /// The longest value one write can carry: ATT_MTU − 3 without response (Core 5.4 Vol 3
    /// Part G §4.9.1), 512 with response (long writes, §4.9.4; Part F §3.2.9).
    public func maximumWriteValueLength(for type: WriteType) async -> Int {
        switch type {
        case .withResponse: 512
        case .withoutResponse: await mtu - 3
        }
    }

    /// Whether a write without response would go out now rather than wait for transmit room.
    /// When false, `.readyToSendWriteWithoutResponse` follows once there is room.
    public var canSendWriteWithoutResponse: Bool {
        get async {
            guard case .connected(let handle) = link else { return false }
            let ready = stack.inPlace(passing: handle) { $0.canSendWithoutResponse(on: $1) }
            if !ready { armReadiness(handle) }
            return ready
        }
    }

    /// The notifications and indications of `characteristic` from now on, in arrival order;
    /// the stream ends when the link does. Ask for it before `setNotifyValue(true, for:)` to
    /// see every value.
    public func values(for characteristic: Characteristic) throws(BLEError) -> EventStream<[UInt8]> {
        guard case .connected = link else { throw .notConnected }
        _ = try locate(characteristic)
        return valueListeners[characteristic.handle, default: Subscribers()].make()
    }

    /// The peripheral's events from now on.
    public func events() -> EventStream<PeripheralEvent> {
        eventListeners.make()
    }

    /// Reads the connection's RSSI in dBm (HCI Read RSSI, Core 5.4 Vol 4 Part E §7.5.4).
    public func readRSSI() async throws(BLEError) -> Int {
        guard case .connected(let handle) = link else { throw .notConnected }
        let result: HCI.ReadRSSI.ReturnParameters
        do {
            result = try await stack.host.send(HCI.ReadRSSI(handle: handle))
        } catch {
            throw .host(error)
        }
        guard result.rssi != 127 else { throw .rssiUnavailable }
        return Int(result.rssi)
    }

    // MARK: Driven by the manager

    func setName(_ name: String) { self.name = name }

    func setLink(_ link: Link) { self.link = link }

    /// Marks a disconnected peripheral as connecting; returns the state it was in.
    func beginConnecting() -> PeripheralState {
        let previous = state
        if link == .disconnected { link = .connecting }
        return previous
    }

    /// A connection attempt ended without a link.
    func connectionAttemptEnded() {
        if link == .connecting { link = .disconnected }
    }

    /// Marks a connected peripheral as disconnecting and returns its connection handle; a
    /// peripheral still waiting to connect goes back to disconnected.
    func beginDisconnecting() -> ConnectionHandle? {
        switch link {
        case .connected(let handle):
            link = .disconnecting(handle)
            return handle
        case .connecting:
            link = .disconnected
            return nil
        case .disconnected, .disconnecting:
            return nil
        }
    }

    func didConnect(handle: ConnectionHandle) {
        link = .connected(handle)
        connectionCount += 1
        serviceRecords = [:]
        servicesDiscovered = false
        serviceChangedHandle = nil
    }

    /// The link is gone: what was discovered is forgotten, value streams end, waiters resume,
    /// and the peripheral's own listeners hear why.
    func didDisconnect(reason: HCIStatus) {
        link = .disconnected
        serviceRecords = [:]
        servicesDiscovered = false
        serviceChangedHandle = nil
        for var listeners in valueListeners.values { listeners.finish() }
        valueListeners = [:]
        readinessArmed = false
        reportedLink = nil
        disconnectionWaiters.resumeAll()
        eventListeners.yield(.disconnected(reason: reason))
    }

    /// Returns once the peripheral is disconnected.
    func waitForDisconnection() async {
        // The re-check inside matters here: Disconnect's Command Status and Disconnection
        // Complete arriving together run between the caller's check and the wait.
        await WaiterQueue.wait(unless: { link == .disconnected }) { disconnectionWaiters.append($0) }
    }

    /// A Handle Value Notification or Indication (Core 5.4 Vol 3 Part F §3.4.7) of the value
    /// at `attributeHandle`. Values of characteristics not discovered are dropped.
    func receivedValue(_ value: [UInt8], attributeHandle: UInt16) {
        if attributeHandle == serviceChangedHandle, let changed = try? ServiceChanged(value: value) {
            return servicesChanged(changed.affectedRange)
        }
        guard case let (start, index)? = characteristicPosition(valueHandle: attributeHandle),
            let slot = serviceRecords.index(forKey: start)
        else { return }
        // Through the values' index, the record is changed in place; `serviceRecords[start]?…`
        // copied its characteristics for every value.
        serviceRecords.values[slot].characteristics?[index].value = value
        if valueListeners[attributeHandle]?.offer(value) == true { valueListeners[attributeHandle]?.dropEnded() }
        // The snapshot costs more than the value's trip: build it only for a listener or the
        // observer.
        guard !eventListeners.isEmpty || valueObserver != nil,
            let record = serviceRecords[start]?.characteristics?[index]
        else { return }
        let characteristic = snapshot(record)
        valueObserver?(self, characteristic, value)
        if !eventListeners.isEmpty { eventListeners.yield(.valueUpdated(characteristic, value)) }
    }

    /// Called in the peripheral's isolation with each value of a discovered characteristic as
    /// it arrives (a notification or an indication), before the event streams.
    package typealias ValueObserver = @Sendable (isolated Peripheral, Characteristic, [UInt8]) -> Void

    /// Sets the one observer that takes values in place (nil: none). For a reader on this
    /// peripheral's executor that must see every value at once and in order: the phone's system
    /// service, which would otherwise resume a task of its own for each notification.
    package func observeValues(_ observer: ValueObserver?) {
        valueObserver = observer
    }

    /// Reports readiness once the link has room again (once per time it was found full): the
    /// host's `.readyToSend` reaches the manager, which hands it to `becameReady` in place.
    private func armReadiness(_ handle: ConnectionHandle) {
        guard !readinessArmed else { return }
        readinessArmed = stack.inPlace(passing: handle) { $0.reportReadinessToSend(on: $1) }
    }

    func becameReady(_ handle: ConnectionHandle) {
        guard readinessArmed, link == .connected(handle) else { return }
        readinessArmed = false
        eventListeners.yield(.readyToSendWriteWithoutResponse)
    }
}

extension Peripheral: Hashable, CustomStringConvertible {
    public static func == (lhs: Peripheral, rhs: Peripheral) -> Bool { lhs === rhs }
    public nonisolated func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public nonisolated var description: String { "peripheral \(identifier)" }
}
