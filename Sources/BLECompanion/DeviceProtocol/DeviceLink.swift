import BLE
import BLEHost

/// The app's end of a device protocol over a connected `Peripheral`: the protocol's service
/// and characteristics are discovered by UUID, notifications of the device's characteristic
/// are enabled (Core 5.4 Vol 3 Part G §4.10) and carry frames toward the app, and Write
/// Commands (§4.9.1) carry frames toward the device, each chunk at most ATT_MTU − 3 octets.
/// Or, opened `over` an L2CAP channel, each chunk is an SDU of at most the channel's MTU, paced
/// by its credits (Core 5.4 Vol 3 Part A §10.1): the conversation above is the same.
///
/// Writes never overrun the link: before each chunk the link asks
/// `canSendWriteWithoutResponse` and, when it is false, waits for
/// `.readyToSendWriteWithoutResponse`. The link closes when the peripheral disconnects;
/// requests still waiting then throw `.linkClosed`.
public actor DeviceLink<P: DeviceProtocol> {
    public nonisolated let peripheral: Peripheral
    /// The conversation itself (framing, correlation, statistics).
    public nonisolated let connection: DeviceConnection<P.ToDevice, P.ToApp>
    /// The bearer's flow control on GATT; nil over a channel, whose credits pace it.
    private let gate: WriteWithoutResponseGate?
    /// The L2CAP channel the frames go over, when opened `over` one.
    public nonisolated let channel: L2CAPChannel?
    private var pumps: [Task<Void, Never>] = []

    public nonisolated var unownedExecutor: UnownedSerialExecutor { peripheral.unownedExecutor }

    /// Events and requests from the device, in arrival order; ends when the link closes.
    public nonisolated var incoming: EventStream<DeviceIncoming<P.ToApp>> { connection.incoming }

    /// Discovers the protocol's service and characteristics on `peripheral` (connected),
    /// subscribes to the device's notifications and returns the open link.
    public static func open(
        _ peripheral: Peripheral, speaking _: P.Type = P.self,
        configuration: DeviceLinkConfiguration = DeviceLinkConfiguration()
    ) async throws(DeviceProtocolError) -> DeviceLink<P> {
        let toDevice: Characteristic
        let toApp: Characteristic
        let values: EventStream<[UInt8]>
        do {
            let services = try await peripheral.discoverServices([P.serviceUUID])
            guard let service = services.first(where: { $0.uuid == P.serviceUUID }) else {
                throw DeviceProtocolError.serviceNotFound(P.serviceUUID)
            }
            let found = try await peripheral.discoverCharacteristics(
                [P.toDeviceCharacteristicUUID, P.toAppCharacteristicUUID], for: service)
            guard
                let writable = found.first(where: {
                    $0.uuid == P.toDeviceCharacteristicUUID && $0.properties.contains(.writeWithoutResponse)
                })
            else { throw DeviceProtocolError.characteristicNotFound(P.toDeviceCharacteristicUUID) }
            guard
                let notifying = found.first(where: {
                    $0.uuid == P.toAppCharacteristicUUID && $0.properties.contains(.notify)
                })
            else { throw DeviceProtocolError.characteristicNotFound(P.toAppCharacteristicUUID) }
            toDevice = writable
            toApp = notifying
            values = try await peripheral.values(for: toApp)
        } catch let error as DeviceProtocolError {
            throw error
        } catch let error as BLEError {
            throw .ble(error)
        } catch {
            throw .linkClosed
        }
        let link = DeviceLink(peripheral: peripheral, toDevice: toDevice, configuration: configuration)
        await link.start(values: values, events: await peripheral.events(), configuration: configuration)
        do {
            try await peripheral.setNotifyValue(true, for: toApp)
        } catch {
            await link.close()
            throw .ble(error)
        }
        return link
    }

    /// A link over an open L2CAP channel to `peripheral` (`Peripheral.openL2CAPChannel`): each
    /// chunk is one SDU; the link closes when the channel does.
    public static func open(
        over channel: L2CAPChannel, of peripheral: Peripheral, speaking _: P.Type = P.self,
        configuration: DeviceLinkConfiguration = DeviceLinkConfiguration()
    ) async -> DeviceLink<P> {
        let link = DeviceLink(peripheral: peripheral, channel: channel, configuration: configuration)
        await link.start(sdus: channel.incoming, configuration: configuration)
        return link
    }

    private init(peripheral: Peripheral, channel: L2CAPChannel, configuration: DeviceLinkConfiguration) {
        self.peripheral = peripheral
        self.channel = channel
        gate = nil
        connection = DeviceConnection(
            executor: peripheral.unownedExecutor, executorOwner: peripheral,
            transport: DeviceChunkTransport(
                maximumChunkLength: { channel.outgoingMTU },
                send: { chunk throws(DeviceProtocolError) in try await Self.write(chunk, on: channel) }),
            configuration: configuration, maximumPayloadLength: P.maximumPayloadLength)
    }

    /// One chunk as one SDU; a channel that ended is a closed link.
    nonisolated(nonsending) static func write(_ chunk: [UInt8], on channel: L2CAPChannel) async throws(DeviceProtocolError) {
        do {
            try await channel.write(chunk)
        } catch .l2cap(.sduTooLong(let length, let mtu)) {
            throw .ble(.valueTooLong(length: length, maximum: mtu))
        } catch {
            throw .linkClosed
        }
    }

    private func start(sdus: L2CAPSDUStream, configuration: DeviceLinkConfiguration) {
        let connection = connection
        pumps.append(
            Task(executorPreference: configuration.taskExecutor) {
                for await sdu in sdus { await connection.receive(sdu) }
                await connection.close()
            })
    }

    /// The longest chunk the bearer takes now: ATT_MTU − 3 on GATT, the channel's MTU.
    public var maximumChunkLength: Int {
        get async {
            if let channel { return channel.outgoingMTU }
            return await peripheral.maximumWriteValueLength(for: .withoutResponse)
        }
    }

    /// The chunk length to send whole frames of at most `limit` octets in: on GATT ATT_MTU − 3
    /// (or `limit`); over a channel the longest SDU of whole K-frames that fits `limit` and the
    /// MTU, n × MPS − 2 (Core 5.4 Vol 3 Part A §3.4.3), so no K-frame goes out half empty.
    public func preferredChunkLength(upTo limit: Int) async -> Int {
        let longest = min(limit, await maximumChunkLength)
        guard let channel else { return longest }
        let frames = (longest + 2) / channel.outgoingMPS
        return frames > 0 ? frames * channel.outgoingMPS - 2 : longest
    }

    /// Whether frames can still go: the peripheral connected and, over a channel, the channel open.
    public var isUsable: Bool {
        get async {
            guard await peripheral.state == .connected else { return false }
            guard let channel else { return true }
            return await channel.closeReason == nil
        }
    }

    private init(peripheral: Peripheral, toDevice: Characteristic, configuration: DeviceLinkConfiguration) {
        self.peripheral = peripheral
        channel = nil
        let gate = WriteWithoutResponseGate(peripheral: peripheral, characteristic: toDevice)
        self.gate = gate
        connection = DeviceConnection(
            executor: peripheral.unownedExecutor, executorOwner: peripheral,
            transport: DeviceChunkTransport(
                maximumChunkLength: { await peripheral.maximumWriteValueLength(for: .withoutResponse) },
                send: { chunk throws(DeviceProtocolError) in try await gate.write(chunk) }),
            configuration: configuration, maximumPayloadLength: P.maximumPayloadLength)
    }

    /// Feeds notifications to the connection and readiness to the gate; closes everything
    /// when the notifications end (the link went down).
    private func start(
        values: EventStream<[UInt8]>, events: EventStream<PeripheralEvent>, configuration: DeviceLinkConfiguration
    ) {
        let connection = connection
        let gate = gate
        pumps.append(
            Task(executorPreference: configuration.taskExecutor) {
                for await value in values { await connection.receive(value) }
                await connection.close()
                await gate?.close()
            })
        pumps.append(
            Task(executorPreference: configuration.taskExecutor) {
                for await event in events {
                    if case .readyToSendWriteWithoutResponse = event { await gate?.becameReady() }
                }
            })
    }

    /// Sends an event (a message that needs no answer).
    public func send(_ message: P.ToDevice) async throws(DeviceProtocolError) {
        try await connection.send(message)
    }

    /// Sends a request and returns the device's response (see `DeviceConnection.request`).
    public func request(_ message: P.ToDevice, timeout: Duration? = nil) async throws(DeviceProtocolError) -> P.ToApp {
        try await connection.request(message, timeout: timeout)
    }

    /// Answers a request from the device.
    public func respond(to request: DeviceRequestID, with message: P.ToDevice) async throws(DeviceProtocolError) {
        try await connection.respond(to: request, with: message)
    }

    /// Traffic and bad input seen so far.
    public var statistics: DeviceLinkStatistics {
        get async {
            var statistics = await connection.statistics
            statistics.flowControlWaits = await gate?.waits ?? 0
            return statistics
        }
    }

    /// Stops using the link (the connection stays up; notifications stay enabled; a channel
    /// is closed).
    public func close() async {
        for pump in pumps { pump.cancel() }
        pumps = []
        await connection.close()
        await gate?.close()
        await channel?.close()
    }
}

/// Write Commands with Core Bluetooth's flow control: one goes out only when
/// `canSendWriteWithoutResponse` says there is room, else after `.readyToSendWriteWithoutResponse`.
actor WriteWithoutResponseGate {
    let peripheral: Peripheral
    let characteristic: Characteristic
    /// Counts readiness events, so that one arriving between the check and the wait is not
    /// missed.
    private var generation: UInt64 = 0
    private var waiters = WaiterQueue()
    private var isClosed = false
    private(set) var waits = 0

    nonisolated var unownedExecutor: UnownedSerialExecutor { peripheral.unownedExecutor }

    init(peripheral: Peripheral, characteristic: Characteristic) {
        self.peripheral = peripheral
        self.characteristic = characteristic
    }

    func write(_ chunk: [UInt8]) async throws(DeviceProtocolError) {
        while true {
            guard !isClosed, await peripheral.state == .connected else { throw .linkClosed }
            let seen = generation
            if await peripheral.canSendWriteWithoutResponse { break }
            waits += 1
            // Readiness may come before the wait begins: the generation tells.
            await WaiterQueue.wait(unless: { generation != seen || isClosed }) { waiters.append($0) }
        }
        do {
            try await peripheral.writeValue(chunk, for: characteristic, type: .withoutResponse)
        } catch {
            throw .ble(error)
        }
    }

    func becameReady() {
        generation += 1
        waiters.resumeAll()
    }

    func close() {
        isClosed = true
        waiters.resumeAll()
    }
}
