import BLELocking
import BLEWire

/// What the GATT server tells the application, in order.
public enum GATTServerEvent: Sendable, Hashable {
    case writeWithoutResponse(GATTWriteCommand)
    case subscriptionChanged(GATTSubscription)
    case confirmationReceived(connection: GATTConnectionID, handle: UInt16)
}

/// Plugs a `GATTServer` into a host's ATT bearers (Core 5.4 Vol 3 Part G): requests are answered
/// from the database, and what needs the application (dynamic values, writes) is asked of it.
///
/// A class with its state behind a lock rather than an actor: it is called on the host's
/// executor and never holds the lock across the application's answer.
public final class GATTServerHandler: ATTServerHandler {
    /// Handlers run on the caller's executor — the host's — like `handle`.
    public typealias ReadHandler = nonisolated(nonsending) @Sendable (GATTReadRequest) async -> GATTReadResult
    public typealias WriteHandler = nonisolated(nonsending) @Sendable (GATTWriteRequest) async -> GATTWriteResult

    /// Answers whether a client may make an access that requires authorization.
    public typealias AuthorizationHandler = nonisolated(nonsending) @Sendable (AttributeAccessRequest) async -> Bool

    private struct State {
        var server: GATTServer
        var onRead: ReadHandler?
        var onWrite: WriteHandler?
        var onAuthorization: AuthorizationHandler?
        var observer: EventObserver?
    }

    /// Called on the host's executor with each event as it happens, in order.
    package typealias EventObserver = @Sendable (GATTServerEvent) -> Void

    private let state: Locked<State>
    /// The events, when nothing observes them (`observeEvents(_:)`).
    public let events: EventStream<GATTServerEvent>
    private let sink: EventStream<GATTServerEvent>.Continuation

    public init(server: GATTServer) {
        state = Locked(State(server: server))
        (events, sink) = EventStream.makeStream(of: GATTServerEvent.self)
    }

    /// How dynamic values are read; without a handler, they read as Unlikely Error.
    public func setReadHandler(_ handler: ReadHandler?) { state.withLock { $0.onRead = handler } }

    /// How writes are accepted; without a handler, every permitted write succeeds.
    public func setWriteHandler(_ handler: WriteHandler?) { state.withLock { $0.onWrite = handler } }

    /// How accesses that require authorization are decided (Core 5.4 Vol 3 Part F §3.2.5);
    /// without a handler, only connections authorized with `GATTServer.setAuthorized` get
    /// them.
    public func setAuthorizationHandler(_ handler: AuthorizationHandler?) {
        state.withLock { $0.onAuthorization = handler }
    }

    /// Takes the events in place of `events`, from now on: no stream and no task resumption per
    /// Write Command.
    package func observeEvents(_ observer: EventObserver?) { state.withLock { $0.observer = observer } }

    /// Hands `event` to the observer, or to `events` without one. The lock is not held while the
    /// observer runs.
    private func emit(_ event: GATTServerEvent) {
        if let observer = state.withLock({ $0.observer }) {
            observer(event)
        } else {
            sink.yield(event)
        }
    }

    /// The server's state, for inspection and server-initiated PDUs.
    public func withServer<T>(_ body: (inout GATTServer) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0.server) }
    }

    nonisolated(nonsending) public func handle(_ pdu: ATTPDU, connection: ConnectionHandle, mtu: Int) async -> ATTPDU? {
        let id = GATTConnectionID(connection)
        var granted: [AttributeAccessRequest] = []
        let (asks, authorize) = state.withLock {
            ($0.server.authorizationsNeeded(for: pdu, connection: id), $0.onAuthorization)
        }
        if let authorize {
            for request in asks where await authorize(request) { granted.append(request) }
        }
        var outcome = state.withLock { $0.server.handle(pdu, connection: id, attMTU: mtu, granting: granted) }
        // The application may be asked several times (Read Multiple of dynamic values).
        while true {
            switch outcome {
            case .respond(let response): return response
            case .none: return nil
            case .mtuExchanged(let response, _): return response
            case .subscriptionChanged(let subscription, let response):
                emit(.subscriptionChanged(subscription))
                return response
            case .writeWithoutResponse(let command):
                emit(.writeWithoutResponse(command))
                return nil
            case .confirmationReceived(let id, let handle):
                emit(.confirmationReceived(connection: id, handle: handle))
                return nil
            case .read(let request):
                let handler = state.withLock { $0.onRead }
                let result = await handler?(request) ?? .error(.unlikelyError)
                outcome = state.withLock { $0.server.complete(request, with: result) }
            case .write(let request):
                let handler = state.withLock { $0.onWrite }
                let result = await handler?(request) ?? .success
                outcome = state.withLock { $0.server.complete(request, with: result) }
            }
        }
    }

    /// A command never asks the application (a write to a dynamic value is reported, not
    /// asked), so it is served in place: no task per Write Command.
    public func takeCommand(_ pdu: ATTPDU, connection: ConnectionHandle) -> Bool {
        // A command that needs the application's authorization waits for it on a task.
        let outcome: GATTServerOutcome? = state.withLock {
            let id = GATTConnectionID(connection)
            guard $0.onAuthorization == nil || $0.server.authorizationsNeeded(for: pdu, connection: id).isEmpty else {
                return nil
            }
            return $0.server.handle(pdu, connection: id)
        }
        guard let outcome else { return false }
        switch outcome {
        case .writeWithoutResponse(let command):
            emit(.writeWithoutResponse(command))
        case .subscriptionChanged(let subscription, _):
            emit(.subscriptionChanged(subscription))
        case .confirmationReceived(let id, let handle):
            emit(.confirmationReceived(connection: id, handle: handle))
        case .read(let request):
            // Not reached for a command; the server still expects an answer.
            _ = state.withLock { $0.server.complete(request, with: .error(.unlikelyError)) }
        case .write(let request):
            _ = state.withLock { $0.server.complete(request, with: .error(.unlikelyError)) }
        case .respond, .none, .mtuExchanged:
            break
        }
        return true
    }

    public func connectionEnded(_ connection: ConnectionHandle) async {
        _ = state.withLock { $0.server.disconnect(GATTConnectionID(connection)) }
    }

    public func securityChanged(_ security: LinkSecurity, for connection: ConnectionHandle) {
        state.withLock { $0.server.setSecurity(security, for: GATTConnectionID(connection)) }
    }
}

extension GATTServerHandler: BondedClientServer {
    public func bondedClientState(for connection: ConnectionHandle) -> GATTBondedClientState? {
        withServer { $0.bondedState(for: GATTConnectionID(connection)) }
    }

    public func restoreBondedClient(_ bonded: GATTBondedClientState, for connection: ConnectionHandle) -> ATTPDU? {
        let restoration = withServer { $0.restoreBondedClient(bonded, for: GATTConnectionID(connection)) }
        // The restored subscriptions reach the application as if written now, so that its
        // subscriber lists hold them and `updateValue` reaches the client again.
        for subscription in restoration.subscriptions { emit(.subscriptionChanged(subscription)) }
        return restoration.serviceChanged
    }

    public func setSigningKey(
        _ csrk: SMPKey128, authenticated: Bool, lastCounter: UInt32?, for connection: ConnectionHandle
    ) {
        withServer {
            $0.setSigningKey(
                csrk.littleEndianBytes, authenticated: authenticated, lastCounter: lastCounter,
                for: GATTConnectionID(connection))
        }
    }

    public func lastSignCounter(for connection: ConnectionHandle) -> UInt32? {
        withServer { $0.lastSignCounter(for: GATTConnectionID(connection)) }
    }
}
