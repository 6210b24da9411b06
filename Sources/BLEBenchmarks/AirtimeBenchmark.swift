import BLE
import BLEController
import BLEHost
import BLESimulation
import BLETransport
import BLEVirtualHCI
import BLEWire

/// The measurement behind `ble bench airtime`: two of our hosts on the virtual radio stream data over one link, and the
/// goodput measured in virtual time is set beside the air-time model's prediction and ceiling
/// for the same parameters.
public enum AirtimeBenchmark {
    public struct Parameters: Sendable {
        public var phy: PHY = .le2M
        public var llOctets = 251
        public var attMTU = 247
        /// Units of 1.25 ms.
        public var intervalUnits: UInt16 = 6
        /// Units of 0.625 ms; nil = the interval.
        public var eventLengthUnits: UInt16?
        public var rule: LinkTiming.EndRule = .ruleB
        public var encrypted = false
        public var traffic: GoodputPrediction.Traffic = .writeWithoutResponse
        public var packetsPerEventCap: Int?
        public var bytes = 500_000

        public init() {}

        public var interval: Duration { .microseconds(Int64(intervalUnits) * 1250) }
        public var eventLength: Duration {
            eventLengthUnits.map { .microseconds(Int64($0) * 625) } ?? interval
        }

        public var prediction: GoodputPrediction {
            GoodputPrediction(
                link: LinkTiming(
                    interval: interval, eventLength: eventLength, phy: phy, maxOctets: llOctets,
                    encrypted: encrypted, endRule: rule, maxPacketsPerEvent: packetsPerEventCap),
                attMTU: attMTU, traffic: traffic)
        }
    }

    public struct Result: Sendable {
        public var parameters: Parameters
        /// Application octets delivered in the measured window, and the window.
        public var windowOctets: Int
        public var window: Duration
        public var deliveredOctets: Int
        public var virtualTime: Duration
        public var measuredKbps: Double
        public var predictedKbps: Double
        public var ceilingKbps: Double
        public var predictedPacketsPerEvent: Int
    }

    public enum Failure: Error, CustomStringConvertible {
        case setup(String)
        public var description: String {
            switch self {
            case .setup(let what): "bench setup failed: \(what)"
            }
        }
    }

    static let dataService = BluetoothUUID(0xFFF0)
    static let dataCharacteristic = BluetoothUUID(0xFFF1)

    public static func run(_ parameters: Parameters) async throws -> Result {
        let radio = VirtualRadio()
        // Enough controller buffers of one whole L2CAP PDU each to fill any event: a host that
        // cannot refill within an event would otherwise cap the rate (see the reference).
        let controller = VirtualController.Configuration(
            aclBufferSize: UInt16(max(251, parameters.attMTU + 4)), aclBufferCount: 255,
            scheduling: LinkLayerScheduling(
                endRule: parameters.rule, maxPacketsPerEvent: parameters.packetsPerEventCap))
        let peripheralPort = await radio.addController(at: .origin, configuration: controller)
        let centralPort = await radio.addController(at: AirPosition(x: 1, y: 0, z: 0), configuration: controller)
        var configuration = HostConfiguration()
        configuration.preferredATTMTU = parameters.attMTU
        configuration.transmitQueueLimit = 64
        // The benchmark sets the link it measures itself (LE Set Data Length, LE Set PHY): no
        // negotiation of the hosts' own may race it.
        configuration.linkPolicy = .none
        let simulation = radio.simulation
        configuration.bondStore = InMemoryBondStore()
        let peripheral = Host(
            transport: PipeTransport.attached(to: peripheralPort), clock: simulation.clock,
            executor: simulation.executor, configuration: configuration)
        configuration.bondStore = InMemoryBondStore()
        let central = Host(
            transport: PipeTransport.attached(to: centralPort), clock: simulation.clock,
            executor: simulation.executor, configuration: configuration)
        return try await simulation.run {
            let session = try await Session.establish(
                parameters: parameters, peripheral: peripheral, central: central, simulation: simulation)
            let result = try await session.stream()
            await central.stop()
            await peripheral.stop()
            return result
        }
    }

    /// One connected pair, set up as the parameters ask.
    public struct Session: Sendable {
        let parameters: Parameters
        let peripheral: Host
        let central: Host
        let simulation: Simulation
        let server: GATTServerHandler
        let peripheralHandle: ConnectionHandle
        public let centralHandle: ConnectionHandle
        let valueHandle: UInt16

        /// Starts both hosts, advertises, connects, sets data length, PHY, encryption and MTU as
        /// the parameters ask, and subscribes the central to the data characteristic.
        public static func establish(
            parameters: Parameters, peripheral: Host, central: Host, simulation: Simulation
        ) async throws -> Session {
            let database = try AttributeDatabase(services: [
                GATTService(
                    uuid: dataService,
                    characteristics: [
                        GATTCharacteristic(
                            uuid: dataCharacteristic, properties: [.notify, .writeWithoutResponse],
                            permissions: [.writeable], value: .stored([]))
                    ])
            ])
            let server = GATTServerHandler(
                server: GATTServer(database: database, configuration: .init(mtu: parameters.attMTU)))
            await peripheral.setATTServer(server)
            var peripheralEvents = peripheral.events.makeAsyncIterator()
            var centralEvents = central.events.makeAsyncIterator()
            try await peripheral.start()
            try await central.start()

            try await peripheral.send(
                HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0x0020, advertisingIntervalMax: 0x0020))
            try await peripheral.send(HCI.LESetAdvertisingData(advertisingData: [0x02, 0x01, 0x06]))
            try await peripheral.send(HCI.LESetAdvertisingEnable(advertisingEnable: true))
            guard let address = await peripheral.controllerInfo.address else { throw Failure.setup("no address") }
            let ceLength = parameters.eventLengthUnits ?? parameters.intervalUnits * 2
            try await central.send(
                HCI.LECreateConnection(
                    leScanInterval: 0x0010, leScanWindow: 0x0010, peerAddressType: .public, peerAddress: address,
                    connectionParameters: HCI.ConnectionParameters(
                        connectionIntervalMin: parameters.intervalUnits,
                        connectionIntervalMax: parameters.intervalUnits,
                        supervisionTimeout: 3200, minCELength: ceLength, maxCELength: ceLength)))
            let centralHandle = try await nextConnection(&centralEvents)
            let peripheralHandle = try await nextConnection(&peripheralEvents)

            // Data length and PHY on both sides (Core 5.4 Vol 4 Part E §7.8.33, §7.8.49).
            let txTime = UInt16(
                clamping: Int(
                    AirTime.packetAirTime(phy: parameters.phy, payloadLength: parameters.llOctets, encrypted: true)
                        .microseconds.rounded(.up)))
            for (host, handle) in [(central, centralHandle), (peripheral, peripheralHandle)] {
                try await host.send(
                    HCI.LESetDataLength(
                        connectionHandle: handle, txOctets: UInt16(parameters.llOctets), txTime: max(328, txTime)))
            }
            if parameters.phy != .le1M {
                let phys: HCI.LEPHYs = parameters.phy == .le2M ? .le2M : .leCoded
                let options: HCI.CodedPHYOptions =
                    switch parameters.phy {
                    case .codedS2: .preferS2
                    case .codedS8: .preferS8
                    default: .noPreference
                    }
                try await central.send(
                    HCI.LESetPHY(connectionHandle: centralHandle, txPHYs: phys, rxPHYs: phys, phyOptions: options))
            }
            let expectedPHY = parameters.phy.hci
            try await waitUntil(&centralEvents) {
                guard let info = await central.connection(centralHandle) else { return false }
                return Int(info.maxTxOctets) == parameters.llOctets && Int(info.maxRxOctets) == parameters.llOctets
                    && info.txPHY == expectedPHY && info.rxPHY == expectedPHY
            }

            if parameters.encrypted {
                // Both hosts hold a bond with one key (as after a Secure Connections pairing),
                // and the central encrypts with it (LE Enable Encryption, §7.8.24).
                guard let centralAddress = await central.ownAddress, let peripheralAddress = await peripheral.ownAddress
                else { throw Failure.setup("no own address") }
                let key = LongTermKey(key: SMPKey128(high: 0x0123_4567_89AB_CDEF, low: 0x0011_2233_4455_6677))
                func bond(_ local: LEAddress, _ peer: LEAddress) -> Bond {
                    Bond(
                        local: local, peer: peer, peerLongTermKey: key, localLongTermKey: key, authenticated: false,
                        secureConnections: true, keySize: 16)
                }
                try await central.configuration.bondStore.save(bond(centralAddress, peripheralAddress))
                try await peripheral.configuration.bondStore.save(bond(peripheralAddress, centralAddress))
                do {
                    _ = try await central.encrypt(centralHandle)
                } catch {
                    throw Failure.setup("encryption failed: \(error)")
                }
            }

            let mtu = try await central.exchangeMTU(on: centralHandle)
            guard mtu == parameters.attMTU else { throw Failure.setup("ATT_MTU \(mtu), not \(parameters.attMTU)") }

            // Subscribe as a GATT client would (Core 5.4 Vol 3 Part G §4.10).
            let client = GATTClient(bearer: HostATTBearer(host: central, connection: centralHandle))
            let services = try await client.discoverDatabase()
            guard let data = services.first(where: { $0.service.uuid == dataService })?.characteristics.first,
                let cccd = data.descriptors.first(where: { $0.uuid == 0x2902 })
            else { throw Failure.setup("data characteristic not found") }
            try await client.setNotifyValue(true, for: data.characteristic, descriptorHandle: cccd.handle)
            return Session(
                parameters: parameters, peripheral: peripheral, central: central, simulation: simulation,
                server: server, peripheralHandle: peripheralHandle, centralHandle: centralHandle,
                valueHandle: data.characteristic.valueHandle)
        }

        /// Streams `bytes` octets of full-size PDUs and measures the goodput at the receiver
        /// over whole connection intervals from the first arrival.
        func stream() async throws -> Result {
            let payload = parameters.attMTU - 3
            let count = max(2, (parameters.bytes + payload - 1) / payload)
            let value = [UInt8](repeating: 0x5A, count: payload)
            let start = simulation.now
            let sender = Task(executorPreference: simulation.executor) { [self] in
                for _ in 0..<count {
                    switch parameters.traffic {
                    case .notification:
                        try await peripheral.notify(value, attributeHandle: valueHandle, on: peripheralHandle)
                    default:
                        try await central.attCommand(
                            .writeCommand(.init(handle: valueHandle, value: value[...])), on: centralHandle)
                    }
                }
            }
            var arrivals: [VirtualInstant] = []
            arrivals.reserveCapacity(count)
            switch parameters.traffic {
            case .notification:
                var events = central.events.makeAsyncIterator()
                while arrivals.count < count, let event = await events.next() {
                    if case .notification(_, valueHandle, _) = event { arrivals.append(simulation.now) }
                }
            default:
                var events = server.events.makeAsyncIterator()
                while arrivals.count < count, let event = await events.next() {
                    if case .writeWithoutResponse = event { arrivals.append(simulation.now) }
                }
            }
            try await sender.value
            guard arrivals.count == count, let first = arrivals.first, let last = arrivals.last else {
                throw Failure.setup("stream ended after \(arrivals.count) of \(count) PDUs")
            }
            // Whole intervals from the first arrival: the same number of connection events
            // inside the window whatever the offsets of the arrivals within an event.
            let interval = parameters.interval
            let intervals = Int(first.duration(to: last).nanosecondsClamped / interval.nanosecondsClamped)
            let window = interval * max(1, intervals)
            let end = first.advanced(by: window)
            let inWindow = arrivals.filter { $0 < end }.count
            let prediction = parameters.prediction
            let seconds = Double(window.nanosecondsClamped) / 1e9
            return Result(
                parameters: parameters, windowOctets: inWindow * payload, window: window,
                deliveredOctets: count * payload, virtualTime: start.duration(to: last),
                measuredKbps: Double(inWindow * payload * 8) / seconds / 1000,
                predictedKbps: prediction.goodput(parameters.rule), ceilingKbps: prediction.ceiling,
                predictedPacketsPerEvent: prediction.packetsPerEvent(parameters.rule))
        }

        static func nextConnection(_ events: inout EventStream<HostEvent>.Iterator) async throws -> ConnectionHandle {
            while let event = await events.next() {
                switch event {
                case .connected(let info): return info.handle
                case .connectionFailed(let status): throw Failure.setup("connection failed: \(status)")
                default: continue
                }
            }
            throw Failure.setup("host stopped")
        }

        /// Reads events until `condition` holds (it is checked first and after each event).
        static func waitUntil(
            _ events: inout EventStream<HostEvent>.Iterator, _ condition: () async -> Bool
        ) async throws {
            while !(await condition()) {
                guard await events.next() != nil else { throw Failure.setup("host stopped") }
            }
        }
    }
}
