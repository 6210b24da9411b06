import BLEController
import BLESimulation
import BLETransport
import BLEVirtualHCI
import BLEWire
import Testing

@testable import BLEHost

/// Two hosts on the virtual radio with security policies, agents and bond stores of their own.
enum PairingHosts {
    static func make(
        central: SecurityPolicy = SecurityPolicy(), peripheral: SecurityPolicy = SecurityPolicy(),
        centralAgent: any PairingAgent = JustWorksPairingAgent(),
        peripheralAgent: any PairingAgent = JustWorksPairingAgent(),
        centralBonds: InMemoryBondStore = InMemoryBondStore(),
        peripheralBonds: InMemoryBondStore = InMemoryBondStore()
    ) async -> TwoHosts {
        let radio = VirtualRadio()
        let peripheralPort = await radio.addController(at: .origin)
        let centralPort = await radio.addController(at: AirPosition(x: 2, y: 0, z: 0))
        let simulation = radio.simulation
        func host(
            _ port: VirtualControllerPort, _ policy: SecurityPolicy, _ agent: any PairingAgent,
            _ bonds: InMemoryBondStore
        ) -> Host {
            var configuration = HostConfiguration()
            configuration.security = policy
            configuration.pairingAgent = agent
            configuration.bondStore = bonds
            return Host(
                transport: PipeTransport.attached(to: port), clock: simulation.clock, executor: simulation.executor,
                configuration: configuration)
        }
        return TwoHosts(
            radio: radio, peripheral: host(peripheralPort, peripheral, peripheralAgent, peripheralBonds),
            central: host(centralPort, central, centralAgent, centralBonds))
    }

    static func policy(_ io: SMP.IOCapability, _ change: (inout SecurityPolicy) -> Void = { _ in }) -> SecurityPolicy {
        var policy = SecurityPolicy()
        policy.ioCapability = io
        change(&policy)
        return policy
    }

    /// The next security event of `handle`, skipping everything else; nil when the stream ends.
    static func nextSecurityEvent(
        _ events: inout EventStream<HostEvent>.Iterator, on handle: ConnectionHandle,
        where matches: (SecurityEvent) -> Bool = { _ in true }
    ) async -> SecurityEvent? {
        while let event = await events.next() {
            if case .security(handle, let security) = event, matches(security) { return security }
        }
        return nil
    }

    /// The security events of `handle` until `last` matches (included).
    static func securityEvents(
        _ events: inout EventStream<HostEvent>.Iterator, on handle: ConnectionHandle,
        until last: (SecurityEvent) -> Bool
    ) async -> [SecurityEvent] {
        var seen: [SecurityEvent] = []
        while let event = await events.next() {
            guard case .security(handle, let security) = event else { continue }
            seen.append(security)
            if last(security) { break }
        }
        return seen
    }

    /// Whether the next pairing outcome of `handle` is `.paired`.
    static func isPaired(_ events: inout EventStream<HostEvent>.Iterator, on handle: ConnectionHandle) async -> Bool {
        if case .paired? = await nextSecurityEvent(&events, on: handle, where: isOutcome) { return true }
        return false
    }

    static func isOutcome(_ event: SecurityEvent) -> Bool {
        switch event {
        case .paired, .pairingFailed: true
        default: false
        }
    }

    /// Disconnects both sides and waits until each host saw it.
    static func disconnect(
        _ pair: TwoHosts, centralHandle: ConnectionHandle,
        peripheralEvents: inout EventStream<HostEvent>.Iterator, centralEvents: inout EventStream<HostEvent>.Iterator
    ) async {
        await pair.central.disconnect(centralHandle, reason: .remoteUserTerminatedConnection)
        while let event = await centralEvents.next() { if case .disconnected = event { break } }
        while let event = await peripheralEvents.next() { if case .disconnected = event { break } }
    }
}

/// A user at a device: authorizes, shows passkeys on `board`, types what `board` shows, and
/// confirms numeric comparisons (recording what it saw).
actor ScriptedUser: PairingAgent {
    let board: PasskeyBoard
    let confirms: Bool
    /// Holds authorization until `release()` (a user who does not answer).
    let holdsAuthorization: Bool
    private(set) var displayed: [UInt32] = []
    private(set) var compared: [UInt32] = []
    private(set) var methods: [PairingMethod] = []
    private var held: [CheckedContinuation<Void, Never>] = []
    private var released = false

    init(board: PasskeyBoard = PasskeyBoard(), confirms: Bool = true, holdsAuthorization: Bool = false) {
        self.board = board
        self.confirms = confirms
        self.holdsAuthorization = holdsAuthorization
    }

    func authorizePairing(_ request: PairingRequestInfo) async -> Bool {
        methods.append(request.method)
        if holdsAuthorization, !released { await withCheckedContinuation { held.append($0) } }
        return true
    }

    func release() {
        released = true
        for waiter in held { waiter.resume() }
        held = []
    }

    func displayPasskey(_ passkey: UInt32, for request: PairingRequestInfo) async {
        displayed.append(passkey)
        await board.show(passkey)
    }

    func requestPasskey(for request: PairingRequestInfo) async -> UInt32? {
        await board.read()
    }

    func confirmNumericComparison(_ value: UInt32, for request: PairingRequestInfo) async -> Bool {
        compared.append(value)
        return confirms
    }

    func outOfBandData(for request: PairingRequestInfo) async -> OutOfBandData? { nil }
}

/// What one device's display shows, for the other's user to type.
actor PasskeyBoard {
    private var shown: UInt32?
    private var readers: [CheckedContinuation<UInt32, Never>] = []

    func show(_ passkey: UInt32) {
        shown = passkey
        for reader in readers { reader.resume(returning: passkey) }
        readers = []
    }

    func read() async -> UInt32 {
        if let shown { return shown }
        return await withCheckedContinuation { readers.append($0) }
    }
}
