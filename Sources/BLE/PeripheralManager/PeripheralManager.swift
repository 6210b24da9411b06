import BLEHost
import BLETransport
import BLEWire
import Foundation

/// What a peripheral manager reports besides requests (Core Bluetooth's
/// `CBPeripheralManagerDelegate` callbacks).
public enum PeripheralManagerEvent: Sendable {
    /// A central enabled notifications or indications of a characteristic (its Client
    /// Characteristic Configuration, Core 5.4 Vol 3 Part G §3.3.3.3): `didSubscribeTo`.
    case subscribed(Central, Characteristic)
    /// A central disabled them, or disconnected: `didUnsubscribeFrom`.
    case unsubscribed(Central, Characteristic)
    /// Room again after `updateValue` returned false: `peripheralManagerIsReady`.
    case readyToUpdateSubscribers
    /// A central connected (LE Connection Complete, Vol 4 Part E §7.7.65.1).
    case connected(Central)
    /// A central's link went down, with the controller's reason (Vol 4 Part E §7.7.5).
    case disconnected(Central, reason: HCIStatus)
    /// A central's link changed: connection parameters, PHY, data length or ATT_MTU.
    case linkChanged(Central, LinkParameters)
    /// A central confirmed an indication of the characteristic (Handle Value Confirmation,
    /// Vol 3 Part F §3.4.7.3).
    case indicationConfirmed(Central, Characteristic)
    /// Pairing with a central began with this method (Core 5.4 Vol 3 Part H §2.3.5.1).
    case pairingStarted(Central, PairingMethod)
    /// Pairing with a central completed; `bond` is what was stored.
    case paired(Central, bond: Bond?)
    case pairingFailed(Central, PairingError)
    /// A central's link security changed (encryption started, refreshed or stopped).
    case securityChanged(Central, LinkSecurity)
}

/// The peripheral role (Core Bluetooth's `CBPeripheralManager`; Core 5.4 Vol 3 Part C §9.3 for
/// connectable advertising, Part G for the GATT server): publishes services, advertises,
/// answers centrals' requests and notifies subscribers.
///
/// An actor on its host's executor with a host, a controller and a GATT server of its own
/// (GAP and GATT services included). It starts powered off; `powerOn()` brings the controller
/// up. Calls that cannot succeed in the current state throw `BLEError` at once.
public actor PeripheralManager: PoweredManager {
    package nonisolated let stack: HostStack
    let server: GATTServerHandler
    /// Marks the snapshots this manager hands out.
    nonisolated let owner = UUID()
    public nonisolated var unownedExecutor: UnownedSerialExecutor { stack.executor.asUnownedSerialExecutor() }

    /// Reads of `.dynamic` values, each to be answered with `respond(to:withResult:)`
    /// (`didReceiveRead`). One listener; requests wait here until read.
    public nonisolated let readRequests: EventStream<ATTRequest>
    let readSink: EventStream<ATTRequest>.Continuation
    /// Writes: a Write Request's one write or an Execute Write Request's queue (answer the
    /// first), and Write Commands, which need no answer (`didReceiveWrite`). One listener.
    public nonisolated let writeRequests: EventStream<[ATTRequest]>
    let writeSink: EventStream<[ATTRequest]>.Continuation
    /// Subscriptions, readiness and connections, in order. Each access is a new listener that
    /// sees what happens from then on (any number of listeners; one going away leaves the
    /// others). The request streams above keep one listener: a request has one answer, and
    /// Core Bluetooth gives it to one delegate.
    public nonisolated var events: EventStream<PeripheralManagerEvent> { eventSink.stream() }
    let eventSink = Broadcast<PeripheralManagerEvent>()

    var power = ManagerPower()
    public var state: ManagerState { power.state }

    /// What this manager's host dropped or could not do, counted (each also logged through
    /// `HostConfiguration.logger`).
    public var hostStatistics: HostStatistics {
        get async { await stack.host.statistics }
    }
    var pumps: [Task<Void, Never>] = []

    /// What is advertised, nil when not advertising.
    var advertisement: AdvertisementData?
    /// The services published, by service declaration handle.
    var published: [UInt16: PublishedService] = [:]
    /// Connected centrals by connection handle.
    package var centrals: [ConnectionHandle: LEAddress] = [:]
    /// Their identifiers (a SHA-1 each: computed once per link, not once per request).
    var centralIdentifiers: [ConnectionHandle: UUID] = [:]
    /// Each central's link as last reported (`.linkChanged` reports changes from it).
    var reportedLinks: [ConnectionHandle: LinkParameters] = [:]
    /// What each central subscribed to: connection handle → characteristic value handle → its
    /// latest Client Characteristic Configuration (Core 5.4 Vol 3 Part G §3.3.3.3).
    var subscriptions: [ConnectionHandle: [UInt16: GATTSubscription]] = [:]
    /// Waiting for every central to be gone (power off).
    var centralsGoneWaiters = WaiterQueue()
    /// Requests waiting for the app's answer.
    var pendingReads: [GATTRequestToken: CheckedContinuation<GATTReadResult, Never>] = [:]
    var pendingWrites: [GATTRequestToken: CheckedContinuation<GATTWriteResult, Never>] = [:]
    /// Indications sent and not yet confirmed, by connection handle (one at a time, Vol 3
    /// Part F §3.3.2).
    var indicationsInFlight: [ConnectionHandle: Int] = [:]
    /// `updateValue` returned false; `.readyToUpdateSubscribers` follows.
    var readinessPending = false
    /// Published L2CAP PSMs and who takes their channels.
    var channels = PublishedChannels()
    /// `updateValueWhenReady` callers waiting for room (PeripheralManager+AwaitingUpdates.swift).
    var updateWaiters: [UpdateWaiter] = []
    var nextUpdateWaiterID: UInt64 = 0
    /// Requests answered for the app when it did not (PeripheralManager+UnansweredRequests.swift).
    var unanswered = UnansweredRequests()
    /// How advertising goes to the controller (PeripheralManager+AdvertisingOptions.swift).
    var advertising = AdvertisingCommands()

    /// A manager with a host of its own on `radio`, publishing the GAP service `gap`.
    public init(
        radio: Radio, configuration: HostConfiguration = HostConfiguration(),
        gap: GAPServiceConfiguration = GAPServiceConfiguration()
    ) async throws(BLEError) {
        let database: AttributeDatabase
        do {
            database = try AttributeDatabase(gap: gap)
        } catch {
            throw .database(error)
        }
        stack = await HostStack.make(radio, configuration: configuration)
        server = GATTServerHandler(
            server: GATTServer(
                database: database,
                configuration: .init(
                    mtu: configuration.preferredATTMTU,
                    minimumEncryptionKeySize: configuration.security.minimumKeySize)))
        (readRequests, readSink) = EventStream.makeStream(of: ATTRequest.self)
        (writeRequests, writeSink) = EventStream.makeStream(of: [ATTRequest].self)
        server.setReadHandler { [weak self] request in
            await self?.receivedRead(request) ?? .error(.unlikelyError)
        }
        server.setWriteHandler { [weak self] request in
            await self?.receivedWrite(request) ?? .error(.unlikelyError)
        }
        let host = stack.host
        server.setAuthorizationHandler { request in await host.authorizeAccess(request) }
    }

    // MARK: Power

    /// Why the controller is gone, once the transport to it ended on its own (the state is then
    /// `.poweredOff` for good, and calls that need the radio throw `.host(.transport(_))`).
    public var lostTransport: HCITransportError? { power.lostTransport }

    /// The state now, then every change.
    public func stateUpdates() -> EventStream<ManagerState> {
        power.updates()
    }

    /// Powers the radio on: the first time, the host starts (HCI Reset and initialisation,
    /// Core 5.4 Vol 4 Part E §7.3.2) with the GATT server attached, while `.resetting`.
    public func powerOn() async throws(BLEError) {
        try await runPowerOn()
    }

    /// Before the first start of the host: the GATT server and the event pumps.
    func prepareHostStart() async {
        await stack.host.setATTServer(server)
        await startPumps()
        watchRequestListeners()
    }

    /// Powers the radio off: advertising stops and every central is disconnected (Remote
    /// Device Terminated due to Power Off, 0x15). Published services stay.
    public func powerOff() async {
        guard power.powerOff() else { return }
        await stopAdvertising()
        for handle in centrals.keys.sorted() {
            _ = try? await stack.host.send(
                HCI.Disconnect(connectionHandle: handle, reason: .remoteDeviceTerminatedPowerOff))
        }
        while !centrals.isEmpty {
            await WaiterQueue.wait(unless: { centrals.isEmpty }) { centralsGoneWaiters.append($0) }
        }
    }

    /// Powers off and stops the host for good.
    public func close() async {
        await runClose()
    }

    func finishStreams() {
        readSink.finish()
        writeSink.finish()
        eventSink.finish()
        channels.listeners.finish()
    }

    func checkPoweredOn() throws(BLEError) { try power.checkPoweredOn() }

    // MARK: Centrals

    /// The address centrals see (`Host.currentAddress`): the host's resolvable private address
    /// when its security policy asks for privacy, else its identity address — the configured
    /// random static address, the controller's public address (Read BD_ADDR, Core 5.4 Vol 4
    /// Part E §7.4.6), or a random static one the host made up for a controller without a
    /// usable public address; nil until powered on.
    public var address: LEAddress? {
        get async {
            guard power.hostStarted else { return nil }
            return await stack.host.currentAddress
        }
    }

    /// The centrals connected now.
    public var connectedCentrals: [Central] {
        get async {
            var found: [Central] = []
            for handle in centrals.keys.sorted() { found.append(central(handle)) }
            return found
        }
    }

    /// A snapshot of the central on `handle`.
    func central(_ handle: ConnectionHandle) -> Central {
        // On the host's executor: asked in place, without a task switch per request.
        let mtu = stack.inPlace(passing: handle) { $0.attMTU(on: $1) }
        // A link already gone while a request was built gets the identifier of no real device.
        let identifier = centralIdentifiers[handle] ?? LEAddress(.zero, type: .public).peerIdentifier
        return Central(identifier: identifier, maximumUpdateValueLength: mtu - 3, connection: handle)
    }
}
