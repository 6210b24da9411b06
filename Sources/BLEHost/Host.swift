import BLETransport
import BLEWire
import Logging

/// The executor a host runs on: serial for the actor, and a task executor so the tasks it
/// starts (and the nonisolated code they call) run there too.
public typealias HostExecutor = SerialExecutor & TaskExecutor

/// Settings of a host.
public struct HostConfiguration: Sendable {
    /// How long a command may wait for its Command Complete / Status before the host goes on.
    public var commandTimeout: Duration = .seconds(1)
    /// The ATT transaction timeout (Core 5.4 Vol 3 Part F §3.3.3).
    public var attTransactionTimeout: Duration = .seconds(30)
    /// The ATT_MTU this host asks for and offers (default 247).
    public var preferredATTMTU: Int = 247
    /// How the central negotiates each new link and which connection parameters it accepts
    /// from peripherals (default: a current iPhone's).
    public var linkPolicy: LinkPolicy = .iphoneModern
    /// How this host pairs, bonds and encrypts (Core 5.4 Vol 3 Part H; Part C §10).
    public var security = SecurityPolicy()
    /// Where bonds are kept: in memory unless the app gives a store (a file).
    public var bondStore: any BondStore = InMemoryBondStore()
    /// Answers what pairing asks of the user (Just Works unless the app gives an agent).
    public var pairingAgent: any PairingAgent = JustWorksPairingAgent()
    /// This host's Identity Resolving Key (Core 5.4 Vol 3 Part H §2.4.2.1): distributed in
    /// pairing and the root of its resolvable private addresses. nil: the bond store's, read at
    /// start (a new random one is saved there on the first start), so peers keep recognising
    /// this host across restarts.
    public var identityResolvingKey: SMPKey128?
    /// Write-without-response / notification PDUs a link may queue before it is "not ready".
    public var transmitQueueLimit: Int = 8
    /// Event mask pages sent at start (all LE events this host handles).
    public var eventMask: HCI.EventMask = HCI.SetEventMask.hostDefault
    public var leEventMask: HCI.LEEventMask = HCI.LESetEventMask.hostDefault
    /// A random static address (Core 5.4 Vol 6 Part B §1.3.2.1: top two bits 0b11) this host
    /// uses as its own when advertising, scanning and initiating, set with LE Set Random
    /// Address (Vol 4 Part E §7.8.4) at start; nil uses the controller's public address.
    /// Controllers without a usable public address (Bumble's virtual ones all report
    /// 00:00:00:00:00:00) need one.
    public var randomStaticAddress: BluetoothAddress?
    /// Where the host logs: every H4 packet in and out at `.trace` (rendered as `ble decode`
    /// renders it), and everything it drops at `.notice` or `.warning` with what and why
    /// (counted in `Host.statistics`). Silent unless set.
    public var logger = Logger.silent("ble.host")

    public init() {}
}

/// Answers the peer's ATT requests and commands (the GATT server plugs in here).
public protocol ATTServerHandler: Sendable {
    /// The response to a request, or nil for a command (which gets none). `mtu` is the
    /// bearer's ATT_MTU, which the bearer alone owns (Core 5.4 Vol 3 Part F §3.4.2): answers are
    /// sized by it. Exchange MTU requests come here too; the bearer takes the new ATT_MTU from
    /// the response. Runs on the caller's executor (the host's): nothing is sent elsewhere to
    /// answer.
    nonisolated(nonsending) func handle(_ pdu: ATTPDU, connection: ConnectionHandle, mtu: Int) async -> ATTPDU?
    /// A command (Write Command, Signed Write Command: no response, Core 5.4 Vol 3 Part F
    /// §3.4.5.3–§3.4.5.4) taken synchronously on the host's executor as it arrives; false
    /// leaves it to `handle` on a task of its own.
    func takeCommand(_ pdu: ATTPDU, connection: ConnectionHandle) -> Bool
    /// The link is gone: forget per-connection state.
    func connectionEnded(_ connection: ConnectionHandle) async
    /// The link's security changed (encryption started, key refreshed): called on the host's
    /// executor before any PDU that arrives after it.
    func securityChanged(_ security: LinkSecurity, for connection: ConnectionHandle)
}

extension ATTServerHandler {
    public func takeCommand(_ pdu: ATTPDU, connection: ConnectionHandle) -> Bool { false }
    public func connectionEnded(_ connection: ConnectionHandle) async {}
    public func securityChanged(_ security: LinkSecurity, for connection: ConnectionHandle) {}
}

/// The host stack of one controller (Core 5.4 Vol 4 Part E for HCI, Vol 3 for L2CAP/ATT): HCI
/// command flow, LE ACL flow control, L2CAP fixed channels, ATT bearers, connection tracking.
///
/// An actor on one serial executor: a simulation's (so virtual time can advance exactly when
/// it has nothing to do) or a thread of its own. Events go out in order on `events`.
public actor Host {
    public internal(set) var transport: any HCITransport
    public let configuration: HostConfiguration
    /// The configuration's logger; the managers above log with it too.
    package nonisolated let logger: Logger
    /// Whether the logger takes `.trace`, read once: the packet paths check this Bool, so
    /// that with tracing off they neither render nor allocate for the log.
    let tracesPackets: Bool
    /// What the host dropped or could not do, counted (each with a log line).
    public internal(set) var statistics = HostStatistics()
    let clock: any Clock<Duration>
    /// The same clock as time since the host was made, for deadlines kept as plain values.
    let timeline: HostTimeline
    private let executor: any HostExecutor
    private let ownedExecutor: SerialThreadExecutor?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Everything the host reports upward, in order (unless an observer takes the events).
    public nonisolated let events: EventStream<HostEvent>
    let eventSink: EventStream<HostEvent>.Continuation
    /// Takes the events in place of `events` (`observeEvents(_:)`).
    private var eventObserver: EventObserver?

    /// Called on the host's executor with each event as it happens, in order, and with nil
    /// once the host stopped.
    package typealias EventObserver = @Sendable (HostEvent?) -> Void

    enum RunState {
        case idle
        case running(reader: Task<Void, Never>, writer: Task<Void, Never>)
        case stopped
    }

    /// Packets to the controller, sent in this order by one writer task.
    var outgoing: EventStream<H4Packet>.Continuation
    var outgoingPackets: EventStream<H4Packet>
    /// The transport when it can send synchronously (an in-process pipe).
    var inPlaceTransport: (any InPlaceHCITransport)?

    var runState = RunState.idle
    /// Why the transport ended on its own, once it did (the host then stopped).
    public internal(set) var lostTransport: HCITransportError?
    var commandFlow = CommandFlow()
    var commandTimers: [UInt64: Task<Void, Never>] = [:]
    var acl = ACLScheduler()
    /// The ACL packets of one `pumpACL` turn (kept to reuse its storage).
    var aclOutbox: [ACLPacket] = []
    var reassembler = L2CAPReassembler()
    /// ACL data for a handle with no connection yet, held until its LE Connection Complete.
    var earlyACL: [ACLPacket] = []
    var connections: [ConnectionHandle: ConnectionInfo] = [:]
    var bearers: [ConnectionHandle: ATTBearerState] = [:]
    /// Bearers with callers waiting for transmit room, so that sending can skip looking.
    var readinessInterest = 0
    /// Sleeps until the earliest ATT transaction deadline while any transaction is pending.
    var transactionWatchdog: Task<Void, Never>?
    var attServer: (any ATTServerHandler)?
    /// Credit based channels (Core 5.4 Vol 3 Part A §4.22–§4.27).
    var l2cap = HostChannelState()
    /// Link negotiations and link procedures in progress.
    var linkControl = LinkControl()
    /// Each link's security and the encryption procedures in progress (Host+Encryption).
    var encryption = EncryptionLinks()
    /// Each link's Security Manager (Core 5.4 Vol 3 Part H; Host+Pairing).
    var securityManagers = SecurityManagerLinks()
    /// The agent pairing asks (the configuration's until `setPairingAgent`).
    var pairingAgent: any PairingAgent
    /// This host's IRK: the configuration's, else the bond store's from `start()` on (random
    /// until then, and saved to the store when it holds none).
    public internal(set) var identityResolvingKey: SMPKey128
    /// This host's private address and what it knows to resolve its peers' (Host+Privacy).
    var privacy = HostPrivacy()

    /// The address this host advertises, scans and initiates with, set by `start()`: the
    /// configured random static address; else the controller's public address; else — a
    /// controller whose public address is missing or 00:00:00:00:00:00, as Bumble's virtual
    /// ones — a random static address made up at start (Core 5.4 Vol 6 Part B §1.3.2.1).
    public internal(set) var ownAddress: LEAddress?

    /// Own_Address_Type for advertising, scanning and initiating (Vol 4 Part E §7.8.5,
    /// §7.8.10, §7.8.12): random when the host set a random static address or uses a
    /// resolvable private address (`currentAddress`).
    public var ownAddressType: HCI.OwnAddressType {
        privacy.address != nil || ownAddress?.type == .random ? .random : .public
    }

    /// What `start()` learned about the controller.
    public internal(set) var controllerInfo = ControllerInfo()

    /// - Parameters:
    ///   - executor: the serial executor to run on (a simulation's); nil gives the host a thread.
    public init(
        transport: any HCITransport, clock: any Clock<Duration> = ContinuousClock(),
        executor: (any HostExecutor)? = nil, configuration: HostConfiguration = HostConfiguration()
    ) {
        self.transport = transport
        self.inPlaceTransport = transport as? any InPlaceHCITransport
        self.clock = clock
        self.timeline = HostTimeline(clock)
        self.configuration = configuration
        self.logger = configuration.logger
        self.pairingAgent = configuration.pairingAgent
        var generator = SystemRandomNumberGenerator()
        self.identityResolvingKey =
            configuration.identityResolvingKey ?? SMPKey128(high: generator.next(), low: generator.next())
        self.tracesPackets = configuration.logger.logLevel <= .trace
        if let executor {
            self.executor = executor
            ownedExecutor = nil
        } else {
            let own = SerialThreadExecutor()
            self.executor = own
            ownedExecutor = own
        }
        (events, eventSink) = EventStream.makeStream(of: HostEvent.self)
        (outgoingPackets, outgoing) = EventStream.makeStream(of: H4Packet.self)
        acl = ACLScheduler(commandQueueLimit: configuration.transmitQueueLimit)
    }

    /// Starts reading from the transport and runs the initialisation sequence.
    public func start() async throws(HostError) {
        guard case .idle = runState else { return }
        // A transport that delivers on this host's executor between its jobs hands packets over
        // in place; any other keeps them on `packets` for the reader task.
        _ = inPlaceTransport?.deliverInPlace(on: executor) { [weak self] packet in
            self?.inPlace(passing: packet) { host, packet in
                guard case .running = host.runState else { return }
                host.received(packet)
            }
        }
        let reader = spawn { await self.readLoop() }
        let transport = self.transport
        let packets = outgoingPackets
        let writer = spawn {
            for await packet in packets {
                do throws(HCITransportError) {
                    try await transport.send(packet)
                } catch {
                    await self.sendFailed(packet, error)
                    // A transport that takes nothing more is as gone as one that ended.
                    await self.transportLost(error)
                    break
                }
            }
        }
        runState = .running(reader: reader, writer: writer)
        try await initialize()
    }

    /// Stops the host: pending commands and transactions fail, the transport closes.
    public func stop() async {
        guard case .running(let reader, let writer) = runState else { return }
        runState = .stopped
        if statistics != HostStatistics() { logger.notice("host stopping; what it dropped: \(statistics)") }
        reader.cancel()
        outgoing.finish()
        writer.cancel()
        for pending in commandFlow.drainAll() { pending.completion.resume(returning: .stopped) }
        // (`send` turns `.stopped` into `HostError.transport` when the transport was lost.)
        for timer in commandTimers.values { timer.cancel() }
        commandTimers.removeAll()
        for handle in Array(bearers.keys) {
            failBearer(
                handle,
                with: lostTransport.map { .transportLost($0) }
                    ?? .disconnected(reason: .connectionTerminatedByLocalHost))
        }
        transactionWatchdog?.cancel()
        transactionWatchdog = nil
        stopPrivacy()
        channelsStopped()
        securityStopped()
        for handle in connections.keys { linkControl.linkEnded(handle, reason: .connectionTerminatedByLocalHost) }
        await transport.close()
        eventSink.finish()
        eventObserver?(nil)
    }

    deinit {
        // The host's own thread ends with the host, not at stop(): a stopped host still answers
        // calls (a second stop(), state queries) on it.
        ownedExecutor?.shutdown()
    }

    /// The ATT server (GATT) that answers peers' requests; without one, requests other than
    /// Exchange MTU get Request Not Supported.
    public func setATTServer(_ server: (any ATTServerHandler)?) {
        attServer = server
    }

    /// The live connections.
    public var liveConnections: [ConnectionInfo] { Array(connections.values).sorted { $0.handle < $1.handle } }

    public func connection(_ handle: ConnectionHandle) -> ConnectionInfo? { connections[handle] }

    /// Hands every later event to `observer` instead of `events`: synchronously, on the host's
    /// executor, while the host is still handling what caused it. Code on the same executor (a
    /// manager) can take an event in place, without a stream and a task resumption per event;
    /// the observer must not call back into the host synchronously. Set it before `start()`.
    package func observeEvents(_ observer: @escaping EventObserver) {
        eventObserver = observer
    }

    func emit(_ event: HostEvent) {
        if let eventObserver {
            eventObserver(event)
        } else {
            eventSink.yield(event)
        }
    }

    /// Starts a task on the host's executor. Every task of the host runs there — including the
    /// nonisolated async code it calls (the transport) — so a simulation sees all of the
    /// host's work and advances virtual time only when the host is idle.
    @discardableResult
    nonisolated func spawn(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: executor, operation: operation)
    }

    /// Queues a packet for the controller (in order). A transport that sends in place takes it
    /// at once — still as H4 bytes — instead of through the writer task.
    func transmit(_ packet: H4Packet) {
        if tracesPackets { trace("tx", packet) }
        if let inPlaceTransport {
            do throws(HCITransportError) {
                try inPlaceTransport.sendNow(packet)
            } catch {
                sendFailed(packet, error)
            }
        } else {
            outgoing.yield(packet)
        }
    }

    // MARK: Reading

    private func readLoop() async {
        var ending = HCITransportError.closed
        do {
            for try await packet in transport.packets {
                received(packet)
            }
        } catch {
            ending = error as? HCITransportError ?? .io("\(error)")
        }
        // A stream that ends while the host runs is the controller gone (killed, unplugged,
        // its socket closed): not a stop anyone asked for.
        if case .running = runState { await transportLost(ending) }
    }

    /// The transport to the controller ended on its own: the controller and every link on it
    /// are gone. `.transportLost` is reported first (so that whoever sees a link go down next
    /// already knows why), then each link down (Hardware Failure, 0x03: the controller
    /// failed); the host stops, failing what is pending with the transport's error
    /// (`HostError.transport`, `ATTBearerError.transportLost`).
    func transportLost(_ error: HCITransportError) async {
        guard case .running = runState, lostTransport == nil else { return }
        lostTransport = error
        logger.error("the transport to the controller ended (\(error)); the host stops")
        emit(.transportLost(error))
        for handle in connections.keys.sorted() {
            failBearer(handle, with: .transportLost(error))
            connections[handle] = nil
            linkControl.linkEnded(handle, reason: .hardwareFailure)
            emit(.disconnected(handle: handle, reason: .hardwareFailure))
        }
        await stop()
    }

    private func received(_ packet: H4Packet) {
        if tracesPackets { trace("rx", packet) }
        switch packet.type {
        case .event:
            guard let event = decoded(HCIEvent.self, "an HCI event", from: packet, counting: \.undecodableEvents) else {
                return
            }
            handle(event)
        case .acl:
            guard let acl = decoded(ACLPacket.self, "an ACL packet", from: packet, counting: \.undecodableACL) else {
                return
            }
            receivedACL(acl)
        case .command, .sco, .iso:
            // A controller sends no commands; this host takes no SCO or ISO data.
            statistics.unexpectedPackets += 1
            logger.notice("dropped a \(packet.type) packet from the controller: this host does not take them")
        }
    }

    /// The packet's payload as a `Value`, or nil — counted in `counter` and logged with the
    /// error and the bytes — when it does not decode.
    private func decoded<Value: WireDecodable>(
        _ type: Value.Type, _ what: String, from packet: H4Packet,
        counting counter: WritableKeyPath<HostStatistics, Int>
    ) -> Value? {
        do throws(DecodeError) {
            return try Value(decoding: packet.payload)
        } catch {
            statistics[keyPath: counter] += 1
            logger.warning("dropped \(what) that does not decode: \(error) [\(Hex.string(packet.payload))]")
            return nil
        }
    }
}

/// Facts about the controller, read at start.
public struct ControllerInfo: Sendable {
    public var address: BluetoothAddress?
    public var version: HCI.ReadLocalVersionInformation.ReturnParameters?
    public var leFeatures: LEFeatures = []
    public var supportedCommands: HCISupportedCommands?
    public var aclBufferSize = 27
    public var aclBufferCount = 1
}
