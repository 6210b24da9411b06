import BLE
import BLEHost
import Foundation
import Synchronization

/// A message from one central, as the device side receives it.
public struct DeviceSideIncoming<Message: DeviceProtocolMessage>: Sendable, Hashable {
    public let central: Central
    public let message: DeviceIncoming<Message>
}

/// The device's end of a device protocol on a `PeripheralManager`: publishes the protocol's
/// service, takes the centrals' Write Commands to the app-to-device characteristic (Core 5.4
/// Vol 3 Part F §3.4.5.3) as chunks, and sends frames in Handle Value Notifications (§3.4.7.1)
/// of at most ATT_MTU − 3 octets to the centrals subscribed.
///
/// One conversation per central. `updateValue` returning false is honoured: the chunk goes
/// again after `.readyToUpdateSubscribers`, so sends wait instead of being lost.
///
/// With `serveChannels`, a central may also speak the protocol over an L2CAP channel to a
/// published PSM (Core 5.4 Vol 3 Part A §4.22): each chunk is an SDU, paced by the channel's
/// credits; while its channel is open, what is sent to that central goes over the channel.
///
/// The link reads the manager's `writeRequests` and `events` (each has one listener): writes
/// to other characteristics come out of `otherWriteRequests` and every manager event out of
/// `managerEvents`, for the app to handle.
public actor DeviceSideLink<P: DeviceProtocol> {
    /// One conversation, confined to the link's actor. A reference: it is looked up for every
    /// chunk sent, and copying its fields out each time cost a retain and a release apiece.
    private final class Peer {
        var central: Central
        var isSubscribed: Bool
        let connection: DeviceConnection<P.ToApp, P.ToDevice>
        let pump: Task<Void, Never>
        var flowControlWaits = 0
        /// For a subscription's conversation (a channel's reads its channel's MTU).
        let chunkLength: ChunkLength?

        init(
            central: Central, isSubscribed: Bool, connection: DeviceConnection<P.ToApp, P.ToDevice>,
            pump: Task<Void, Never>, chunkLength: ChunkLength? = nil
        ) {
            self.central = central
            self.isSubscribed = isSubscribed
            self.connection = connection
            self.pump = pump
            self.chunkLength = chunkLength
        }
    }

    /// A subscribed central's chunk length (ATT_MTU − 3), kept where its connection reads it
    /// without a call into the link (each would cost the sending task two switches of executor).
    private final class ChunkLength: Sendable {
        private let value: Atomic<Int>
        init(_ value: Int) { self.value = Atomic(value) }
        var current: Int {
            get { value.load(ordering: .relaxed) }
            set { value.store(newValue, ordering: .relaxed) }
        }
    }

    public nonisolated let manager: PeripheralManager
    /// The protocol's service as published.
    public nonisolated let service: Service
    private let toApp: Characteristic
    private let toDevice: Characteristic
    private let configuration: DeviceLinkConfiguration

    /// Events and requests from every central, in arrival order.
    public nonisolated let incoming: EventStream<DeviceSideIncoming<P.ToDevice>>
    private let incomingSink: EventStream<DeviceSideIncoming<P.ToDevice>>.Continuation
    /// Every event of the manager, passed on.
    public nonisolated let managerEvents: EventStream<PeripheralManagerEvent>
    private let managerEventSink: EventStream<PeripheralManagerEvent>.Continuation
    /// Writes to characteristics other than the protocol's, to be answered by the app.
    public nonisolated let otherWriteRequests: EventStream<[ATTRequest]>
    private let otherWriteSink: EventStream<[ATTRequest]>.Continuation

    private var peers: [UUID: Peer] = [:]
    /// Conversations over L2CAP channels, by central identifier.
    private var channelPeers: [UUID: Peer] = [:]
    private var pumps: [Task<Void, Never>] = []
    /// Counts readiness events, so that one arriving between `updateValue` and the wait is
    /// not missed.
    private var readinessGeneration: UInt64 = 0
    private var readinessWaiters = WaiterQueue()

    public nonisolated var unownedExecutor: UnownedSerialExecutor { manager.unownedExecutor }

    /// Publishes the protocol's service on `manager` (powered on) and starts serving it.
    public static func publish(
        on manager: PeripheralManager, speaking _: P.Type = P.self,
        configuration: DeviceLinkConfiguration = DeviceLinkConfiguration()
    ) async throws(DeviceProtocolError) -> DeviceSideLink<P> {
        let service: Service
        do {
            service = try await manager.add(P.service)
        } catch {
            throw .ble(error)
        }
        guard let toApp = service.characteristics?.first(where: { $0.uuid == P.toAppCharacteristicUUID }) else {
            throw .characteristicNotFound(P.toAppCharacteristicUUID)
        }
        guard let toDevice = service.characteristics?.first(where: { $0.uuid == P.toDeviceCharacteristicUUID }) else {
            throw .characteristicNotFound(P.toDeviceCharacteristicUUID)
        }
        let link = DeviceSideLink(
            manager: manager, service: service, toApp: toApp, toDevice: toDevice, configuration: configuration)
        await link.start()
        return link
    }

    private init(
        manager: PeripheralManager, service: Service, toApp: Characteristic, toDevice: Characteristic,
        configuration: DeviceLinkConfiguration
    ) {
        self.manager = manager
        self.service = service
        self.toApp = toApp
        self.toDevice = toDevice
        self.configuration = configuration
        (incoming, incomingSink) = EventStream.makeStream(of: DeviceSideIncoming<P.ToDevice>.self)
        (managerEvents, managerEventSink) = EventStream.makeStream(of: PeripheralManagerEvent.self)
        (otherWriteRequests, otherWriteSink) = EventStream.makeStream(of: [ATTRequest].self)
    }

    private func start() {
        let writes = manager.writeRequests
        let events = manager.events
        pumps.append(
            Task(executorPreference: configuration.taskExecutor) { [weak self] in
                for await batch in writes {
                    guard let self else { return }
                    await self.received(batch)
                }
            })
        pumps.append(
            Task(executorPreference: configuration.taskExecutor) { [weak self] in
                for await event in events {
                    guard let self else { return }
                    await self.handle(event)
                }
            })
    }

    // MARK: Sending

    /// The centrals subscribed to the protocol's notifications, or speaking it over a channel.
    public var subscribedCentrals: [Central] {
        // Each event is sent to this list: built without a dictionary, and sorted (by the
        // identifiers' text, which allocates) only when there is more than one.
        var centrals: [Central] = []
        for peer in peers.values where peer.isSubscribed { centrals.append(peer.central) }
        for peer in channelPeers.values {
            if let index = centrals.firstIndex(where: { $0.identifier == peer.central.identifier }) {
                centrals[index] = peer.central
            } else {
                centrals.append(peer.central)
            }
        }
        if centrals.count > 1 { centrals.sort { $0.identifier.uuidString < $1.identifier.uuidString } }
        return centrals
    }

    /// The conversation `central` is reachable on: its channel's, else its subscription's.
    private func reachable(_ central: Central) -> Peer? {
        if let peer = channelPeers[central.identifier] { return peer }
        guard let peer = peers[central.identifier], peer.isSubscribed else { return nil }
        return peer
    }

    /// Sends an event to every subscribed central; throws `.notSubscribed` when there is none.
    public func send(_ message: P.ToApp) async throws(DeviceProtocolError) {
        let centrals = subscribedCentrals
        guard !centrals.isEmpty else { throw .notSubscribed }
        // Straight to each connection: a call to `send(_:to:)` would cost a switch of executor.
        for central in centrals { try await connection(to: central).send(message) }
    }

    /// Sends an event to one central.
    public func send(_ message: P.ToApp, to central: Central) async throws(DeviceProtocolError) {
        try await connection(to: central).send(message)
    }

    /// The conversation's connection with a reachable `central`.
    private func connection(to central: Central) throws(DeviceProtocolError) -> DeviceConnection<P.ToApp, P.ToDevice> {
        guard let peer = reachable(central) else { throw .notSubscribed }
        return peer.connection
    }

    /// Sends a request to one central and returns its response.
    public func request(_ message: P.ToApp, to central: Central, timeout: Duration? = nil)
        async throws(DeviceProtocolError) -> P.ToDevice
    {
        guard let peer = reachable(central) else { throw .notSubscribed }
        return try await peer.connection.request(message, timeout: timeout)
    }

    /// Answers a request from `incoming`, to the central that sent it.
    public func respond(to request: DeviceRequestID, with message: P.ToApp) async throws(DeviceProtocolError) {
        let all = Array(peers.values) + Array(channelPeers.values)
        guard let peer = all.first(where: { ObjectIdentifier($0.connection) == request.connection }) else {
            throw .unknownRequest(sequence: request.sequence)
        }
        try await peer.connection.respond(to: request, with: message)
    }

    /// What the conversation with `central` has seen; nil for a central never heard from.
    public func statistics(of central: Central) async -> DeviceLinkStatistics? {
        guard let peer = peers[central.identifier] else { return nil }
        var statistics = await peer.connection.statistics
        statistics.flowControlWaits = peer.flowControlWaits
        return statistics
    }

    /// Stops serving: conversations close, the streams end. The service stays published.
    public func close() async {
        for pump in pumps { pump.cancel() }
        pumps = []
        for id in peers.keys.sorted(by: { $0.uuidString < $1.uuidString }) { await drop(id) }
        for (id, peer) in channelPeers {
            channelPeers[id] = nil
            await peer.connection.close()
            peer.pump.cancel()
        }
        incomingSink.finish()
        managerEventSink.finish()
        otherWriteSink.finish()
        readinessWaiters.resumeAll()
    }

    /// Sends one chunk to a central in a notification, after waiting for room when
    /// `updateValue` says there is none.
    private func notify(_ chunk: [UInt8], to id: UUID) async throws(DeviceProtocolError) {
        while true {
            guard let peer = peers[id] else { throw .linkClosed }
            guard peer.isSubscribed else { throw .notSubscribed }
            let seen = readinessGeneration
            let sent: Bool
            do {
                sent = try await manager.updateValue(chunk, for: toApp, onSubscribedCentrals: [peer.central])
            } catch {
                throw .ble(error)
            }
            if sent { return }
            peers[id]?.flowControlWaits += 1
            // Readiness may come before the wait begins: the generation tells.
            await WaiterQueue.wait(unless: { readinessGeneration != seen }) { readinessWaiters.append($0) }
        }
    }

    // MARK: Receiving

    private func received(_ batch: [ATTRequest]) async {
        var others: [ATTRequest] = []
        for request in batch {
            guard request.characteristic.handle == toDevice.handle, request.isWriteWithoutResponse,
                request.descriptorUUID == nil
            else {
                others.append(request)
                continue
            }
            await peer(for: request.central).connection.receive(request.value ?? [])
        }
        if !others.isEmpty { otherWriteSink.yield(others) }
    }

    private func handle(_ event: PeripheralManagerEvent) async {
        switch event {
        case .subscribed(let central, let characteristic) where characteristic.handle == toApp.handle:
            peer(for: central)
            peers[central.identifier]?.isSubscribed = true
        case .unsubscribed(let central, let characteristic) where characteristic.handle == toApp.handle:
            peers[central.identifier]?.isSubscribed = false
            readinessWaiters.resumeAll()
        case .disconnected(let central, _):
            await drop(central.identifier)
            readinessWaiters.resumeAll()
        case .readyToUpdateSubscribers:
            readinessGeneration += 1
            readinessWaiters.resumeAll()
        case .subscribed, .unsubscribed, .connected, .linkChanged, .indicationConfirmed, .pairingStarted, .paired,
            .pairingFailed, .securityChanged:
            break
        }
        managerEventSink.yield(event)
    }

    /// The conversation with `central`, started when it is first heard from; its snapshot
    /// (and so its ATT_MTU) is refreshed.
    @discardableResult
    private func peer(for central: Central) -> Peer {
        if let peer = peers[central.identifier] {
            peer.central = central
            peer.chunkLength?.current = central.maximumUpdateValueLength
            return peer
        }
        let id = central.identifier
        let link = WeakReference(self)
        let chunkLength = ChunkLength(central.maximumUpdateValueLength)
        let connection = DeviceConnection<P.ToApp, P.ToDevice>(
            executor: manager.unownedExecutor, executorOwner: manager,
            transport: DeviceChunkTransport(
                maximumChunkLength: { chunkLength.current },
                send: { chunk throws(DeviceProtocolError) in
                    guard let link = link.value else { throw .linkClosed }
                    try await link.notify(chunk, to: id)
                }),
            configuration: configuration, maximumPayloadLength: P.maximumPayloadLength)
        let sink = incomingSink
        // The pump waits in the connection's isolation: one resumption per message.
        let pump = Task(executorPreference: configuration.taskExecutor) { [connection] in
            await Self.forward(connection, from: central, to: sink)
        }
        let peer = Peer(
            central: central, isSubscribed: false, connection: connection, pump: pump, chunkLength: chunkLength)
        peers[id] = peer
        return peer
    }

    private static func forward(
        _ connection: isolated DeviceConnection<P.ToApp, P.ToDevice>, from central: Central,
        to sink: EventStream<DeviceSideIncoming<P.ToDevice>>.Continuation
    ) async {
        for await message in connection.incoming {
            sink.yield(DeviceSideIncoming(central: central, message: message))
        }
    }

    // MARK: L2CAP channels

    /// Publishes a PSM (`publishL2CAPChannel(withEncryption:)`) and serves the protocol on every
    /// channel a central opens to it. Returns the PSM.
    public func serveChannels(
        withEncryption encryption: Bool = false, psm: L2CAPPSM? = nil
    ) async throws(DeviceProtocolError) -> L2CAPPSM {
        let channels = await manager.incomingL2CAPChannels()
        let published: L2CAPPSM
        do {
            published = try await manager.publishL2CAPChannel(withEncryption: encryption, psm: psm)
        } catch {
            throw .ble(error)
        }
        pumps.append(
            Task(executorPreference: configuration.taskExecutor) { [weak self] in
                for await channel in channels {
                    guard let self else { return }
                    await self.serve(channel)
                }
            })
        return published
    }

    /// A conversation over `channel`, until it closes.
    private func serve(_ channel: L2CAPChannel) async {
        guard let central = await manager.connectedCentrals.first(where: { $0.identifier == channel.peerIdentifier })
        else { return await channel.close() }
        let id = central.identifier
        if let previous = channelPeers.removeValue(forKey: id) {
            await previous.connection.close()
            previous.pump.cancel()
        }
        let connection = DeviceConnection<P.ToApp, P.ToDevice>(
            executor: manager.unownedExecutor, executorOwner: manager,
            transport: DeviceChunkTransport(
                maximumChunkLength: { channel.outgoingMTU },
                send: { chunk throws(DeviceProtocolError) in
                    try await DeviceLink<P>.write(chunk, on: channel)
                }),
            configuration: configuration, maximumPayloadLength: P.maximumPayloadLength)
        let sink = incomingSink
        let sdus = channel.incoming
        let reader = Task(executorPreference: configuration.taskExecutor) {
            for await sdu in sdus { await connection.receive(sdu) }
            await connection.close()
        }
        let pump = Task(executorPreference: configuration.taskExecutor) { [weak self] in
            for await message in connection.incoming {
                sink.yield(DeviceSideIncoming(central: central, message: message))
            }
            reader.cancel()
            await self?.channelEnded(id, connection)
        }
        channelPeers[id] = Peer(central: central, isSubscribed: true, connection: connection, pump: pump)
    }

    private func channelEnded(_ id: UUID, _ connection: DeviceConnection<P.ToApp, P.ToDevice>) {
        guard let peer = channelPeers[id], peer.connection === connection else { return }
        channelPeers[id] = nil
    }

    private func drop(_ id: UUID) async {
        guard let peer = peers.removeValue(forKey: id) else { return }
        await peer.connection.close()
        peer.pump.cancel()
    }
}
