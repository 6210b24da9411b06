import BLEController
import BLEHost
import BLETransport
import BLEWire
import Foundation

/// What a central manager reports besides the answers to calls (Core Bluetooth's
/// `CBCentralManagerDelegate` connection callbacks).
public enum CentralManagerEvent: Sendable {
    /// The link is up (LE Connection Complete, Core 5.4 Vol 4 Part E §7.7.65.1); `connect`
    /// returns once the host negotiated it (`HostConfiguration.linkPolicy`).
    case connected(Peripheral)
    /// A connection attempt ended without a link.
    case failedToConnect(Peripheral, BLEError)
    /// The link went down (Disconnection Complete, Vol 4 Part E §7.7.5): the reason the
    /// controller gave — 0x16 when this side disconnected, the peer's reason otherwise, 0x08
    /// when supervision timed out.
    case disconnected(Peripheral, reason: HCIStatus)
    /// Pairing with the peripheral completed (Core 5.4 Vol 3 Part H); `bond` is what was stored.
    case paired(Peripheral, bond: Bond?)
    case pairingFailed(Peripheral, PairingError)
    /// A bonded peripheral lost its bond: encryption with the bond's key met PIN or Key
    /// Missing (0x06; Core 5.4 Vol 3 Part C §10.3.2).
    case peerLostBond(Peripheral)
}

/// How to connect (Core Bluetooth's connect options, plus an optional timeout Core Bluetooth
/// does not have).
public struct ConnectOptions: Sendable, Hashable {
    /// How long to try before the attempt is cancelled, on the host's clock (virtual time on the
    /// virtual radio); nil, the default, waits until the device appears or the app cancels, as
    /// Core Bluetooth does.
    public var timeout: Duration?
    /// The connection parameters asked for (Core 5.4 Vol 4 Part E §7.8.12); default 30 ms
    /// interval, 4 s supervision timeout.
    public var connectionParameters: HCI.ConnectionParameters

    public init(
        timeout: Duration? = nil,
        connectionParameters: HCI.ConnectionParameters = HCI.ConnectionParameters(
            connectionIntervalMin: 24, connectionIntervalMax: 24, supervisionTimeout: 400)
    ) {
        self.timeout = timeout
        self.connectionParameters = connectionParameters
    }
}

/// The central role (Core Bluetooth's `CBCentralManager`; Core 5.4 Vol 3 Part C §9.3 for
/// discovery and connection establishment): scans for advertising peripherals, connects to
/// them and reports their connections' fate.
///
/// An actor on its host's executor with a host and a controller of its own. It starts powered
/// off; `powerOn()` brings the controller up. Calls that cannot succeed in the current state
/// throw `BLEError` at once.
public actor CentralManager: PoweredManager {
    package nonisolated let stack: HostStack
    public nonisolated var unownedExecutor: UnownedSerialExecutor { stack.executor.asUnownedSerialExecutor() }

    /// Connections made and lost, in order. Each access is a new listener that sees what happens
    /// from then on (any number of listeners; one going away leaves the others).
    public nonisolated var events: EventStream<CentralManagerEvent> { eventSink.stream() }
    let eventSink = Broadcast<CentralManagerEvent>()

    var power = ManagerPower()
    public var state: ManagerState { power.state }

    /// What this manager's host dropped or could not do, counted (each also logged through
    /// `HostConfiguration.logger`).
    public var hostStatistics: HostStatistics {
        get async { await stack.host.statistics }
    }
    var pump: Task<Void, Never>?

    /// The scan in progress.
    var scan: ActiveScan?
    var nextScanID: UInt64 = 0
    var controllerScanning = false

    /// Every peripheral seen, by identifier.
    var known: [UUID: Peripheral] = [:]
    /// The identities seen, also by earlier managers when kept in a file.
    var knownPeripherals: KnownPeripherals
    /// Writes of the known-peripherals file that failed (each logged).
    public internal(set) var knownPeripheralsWriteFailures = 0
    /// Connected peripherals by connection handle.
    var links: [ConnectionHandle: Peripheral] = [:]
    /// The pending connection attempts and the initiator serving them.
    var connector = Connector()

    /// A manager with a host of its own on `radio` (a new controller on a virtual radio).
    public init(radio: Radio, configuration: HostConfiguration = HostConfiguration()) async {
        await self.init(radio: radio, configuration: configuration, knownPeripherals: KnownPeripherals())
    }

    /// A manager that remembers every peripheral it sees in the JSON file at
    /// `knownPeripheralsFile` (created when missing), so that `retrievePeripherals` answers for
    /// peripherals seen by earlier managers and processes. A file that cannot be read as one
    /// throws and is left as it is.
    public init(
        radio: Radio, configuration: HostConfiguration = HostConfiguration(), knownPeripheralsFile: String
    ) async throws(KnownPeripheralsError) {
        let remembered = try KnownPeripherals(loading: knownPeripheralsFile)
        await self.init(radio: radio, configuration: configuration, knownPeripherals: remembered)
    }

    private init(radio: Radio, configuration: HostConfiguration, knownPeripherals: KnownPeripherals) async {
        stack = await HostStack.make(radio, configuration: configuration)
        self.knownPeripherals = knownPeripherals
    }

    // MARK: Power

    /// Why the controller is gone, once the transport to it ended on its own (the state is then
    /// `.poweredOff` until `reattach(_:)`, and calls that need the radio throw
    /// `.host(.transport(_))`).
    public var lostTransport: HCITransportError? { power.lostTransport }

    /// The state now, then every change.
    public func stateUpdates() -> EventStream<ManagerState> {
        power.updates()
    }

    /// Powers the radio on: the first time, the host starts (HCI Reset and initialisation,
    /// Core 5.4 Vol 4 Part E §7.3.2) while the state is `.resetting`.
    public func powerOn() async throws(BLEError) {
        try await runPowerOn()
    }

    /// Before the first start of the host: the event pump.
    func prepareHostStart() async {
        await startPump()
    }

    /// Powers the radio off: the scan stops, a connection attempt is cancelled and every link is
    /// disconnected (Remote Device Terminated due to Power Off, 0x15, Vol 4 Part E §7.1.6).
    public func powerOff() async {
        guard power.powerOff() else { return }
        await stopScan()
        await endAllAttempts(with: .notPoweredOn(.poweredOff))
        for handle in links.keys.sorted() {
            guard let peripheral = links[handle] else { continue }
            await disconnect(peripheral, reason: .remoteDeviceTerminatedPowerOff)
        }
    }

    /// Powers off and stops the host for good.
    public func close() async {
        await runClose()
    }

    func finishStreams() {
        eventSink.finish()
    }

    /// The transport to the controller ended (each link is reported down right after): the
    /// radio is gone until `reattach(_:)` — the scan ends, pending attempts fail (Hardware
    /// Failure).
    func transportLost(_ error: HCITransportError) {
        guard power.transportLost(error) else { return }
        stack.host.logger.error("central manager: the controller is gone (\(error)); state \(state)")
        let active = scan
        scan = nil
        controllerScanning = false
        active?.continuation.finish()
        failAttemptsControllerLost()
    }

    func checkPoweredOn() throws(BLEError) { try power.checkPoweredOn() }

    // MARK: Peripherals

    /// The peripherals with these identifiers that this manager has seen — or, with a
    /// known-peripherals file, any manager before it. `connect` on one goes straight to LE
    /// Create Connection, without a scan.
    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [Peripheral] {
        identifiers.compactMap { known[$0] ?? recalled($0) }
    }

    /// The connected peripherals offering one of `serviceUUIDs` among the services discovered
    /// (every connected peripheral when the list is empty), in connection order.
    public func retrieveConnectedPeripherals(withServices serviceUUIDs: [BluetoothUUID]) async -> [Peripheral] {
        var found: [Peripheral] = []
        for handle in links.keys.sorted() {
            guard let peripheral = links[handle] else { continue }
            if serviceUUIDs.isEmpty {
                found.append(peripheral)
            } else if let services = await peripheral.services,
                services.contains(where: { serviceUUIDs.contains($0.uuid) })
            {
                found.append(peripheral)
            }
        }
        return found
    }

    /// The peripheral with this address, made when first seen.
    func peripheral(at address: LEAddress, name: String?) -> Peripheral {
        let identifier = address.peerIdentifier
        if let peripheral = known[identifier] { return peripheral }
        let peripheral = Peripheral(address: address, stack: stack, name: name)
        known[identifier] = peripheral
        remember(address, name: name)
        return peripheral
    }

    // MARK: Host events

    /// Takes the host's events, in order, for as long as the host runs: values in place,
    /// the rest on a task.
    private func startPump() async {
        let events = OrderedEventPump<HostEvent> { [weak self] event in
            self?.takeInPlace(event) ?? true
        }
        await stack.host.observeEvents { events.offer($0) }
        let host = stack.host
        pump = stack.spawn { [weak self] in
            await events.run(on: host) { [weak self] event in await self?.handle(event) }
        }
    }

    /// Takes, on the host's executor (this manager's), the events that need no suspension: a
    /// notification or indication goes straight to its peripheral's value streams (Core 5.4
    /// Vol 3 Part G §4.10, §4.11), in arrival order.
    private nonisolated func takeInPlace(_ event: HostEvent) -> Bool {
        switch event {
        case .notification(let handle, let attributeHandle, let value),
            .indication(let handle, let attributeHandle, let value):
            // Inputs are passed, not captured: no closure context is boxed per value.
            inPlace(passing: (handle, attributeHandle, value)) { manager, event in
                manager.links[event.0]?.inPlace(passing: (event.1, event.2)) {
                    $0.receivedValue($1.1, attributeHandle: $1.0)
                }
            }
            return true
        case .readyToSend(let handle):
            inPlace(passing: handle) { manager, handle in
                manager.links[handle]?.inPlace(passing: handle) { $0.becameReady($1) }
            }
            return true
        case .encryptionChanged, .other:
            return true
        case .security, .advertisingReport, .extendedAdvertisingReport, .connected, .connectionFailed, .disconnected,
            .transportLost, .connectionUpdated, .attMTUChanged, .hardwareError:
            return false
        }
    }

    private func handle(_ event: HostEvent) async {
        switch event {
        case .advertisingReport(let report):
            await received(report)
        case .extendedAdvertisingReport(let report):
            await received(report)
        case .connected(let info):
            await linkUp(info)
        case .connectionFailed(let status):
            await initiationFailed(status)
        case .disconnected(let handle, let reason):
            await linkDown(handle, reason: reason)
        case .notification(let handle, let attributeHandle, let value),
            .indication(let handle, let attributeHandle, let value):
            // Taken here only when queued behind an event still being handled.
            await links[handle]?.receivedValue(value, attributeHandle: attributeHandle)
        case .readyToSend(let handle):
            await links[handle]?.becameReady(handle)
        case .transportLost(let error):
            transportLost(error)
        case .connectionUpdated(let info):
            await links[info.handle]?.linkChanged(info.handle)
        case .attMTUChanged(let handle, _):
            await links[handle]?.linkChanged(handle)
        case .hardwareError(let code):
            hardwareErrorReported(code)
        case .security(let handle, let event):
            await securityEvent(event, on: handle)
        case .encryptionChanged, .other:
            return
        }
    }
}
