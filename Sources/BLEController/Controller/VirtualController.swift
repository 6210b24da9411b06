import BLESimulation
import BLEWire
import Logging

/// A virtual LE controller on a `VirtualAir`, driven only through HCI over the UART transport
/// (H4, Core 5.4 Vol 4 Part A §2) by any host.
///
/// It behaves like a conforming chip rather than an oracle: commands are answered with the
/// statuses of Core 5.4 Vol 4 Part E (0x01 for what it does not implement, 0x12 for malformed
/// parameters, 0x0C for what the current state forbids), advertising, scanning and connections
/// happen on the air at the link layer's times (Vol 6 Part B), and nothing is acknowledged
/// before the peer really received it.
///
/// Feed the host's bytes to `receive(h4:)` in chunks of any size; packets toward the host
/// (events and ACL data, each with its H4 indicator) come out of `onPacket`. Every output is
/// produced while the air's event queue runs, never from inside `receive`.
public final class VirtualController {
    public let air: VirtualAir
    public let configuration: Configuration
    /// This controller's radio on the air.
    public private(set) var radio = AirRadioID(rawValue: -1)
    /// The public device address (HCI_Read_BD_ADDR).
    public private(set) var publicAddress = BluetoothAddress.zero
    /// The random static address the controller starts with (and returns to on Reset).
    public private(set) var defaultRandomAddress = BluetoothAddress.zero

    /// Packets toward the host: an H4 packet indicator followed by an HCI event or ACL packet.
    public var onPacket: ([UInt8]) -> Void = { _ in }
    /// Called once when the host's byte stream becomes unreadable; input is ignored afterwards.
    public var onTransportFailure: (TransportFailure) -> Void = { _ in }
    /// Why the host input stopped, if it did.
    public private(set) var transportFailure: TransportFailure?
    /// What the controller dropped from its host, counted (each with a log line).
    public internal(set) var statistics = Statistics()
    var logger: Logger { configuration.logger }

    /// How connection events exchange packets (the air-time model's rules).
    var exchange: any ConnectionEventExchange

    var parser = H4StreamParser()
    /// Host packets waiting out `commandLatency`.
    private lazy var hostPackets = HostPacketQueue(controller: self)
    var random: SeededRandomGenerator

    // MARK: Host interface state (Core 5.4 Vol 4 Part E)
    var masks = EventMasks()
    /// The host's command credit (Vol 4 Part E §4.4), to see a host that ignores it.
    var commandCredit = HostCommandCredit()
    var commandFamily = AdvertisingCommandFamily.undecided
    /// Events produced while a command runs, sent after its completion event.
    var deferredEvents: [[UInt8]]?
    /// Host ACL packets accepted and not yet reported in Number Of Completed Packets.
    var aclPacketsInController = 0
    /// Host_ACL_Data_Packet_Length from HCI_Host_Buffer_Size.
    var hostACLDataPacketLength: UInt16
    var leHostSupported = true

    // MARK: Link layer state (Core 5.4 Vol 6 Part B)
    var randomAddress: BluetoothAddress?
    var advertisingSets: [UInt8: AdvertisingSet] = [:]
    var legacyScanParameters = HCI.LESetScanParameters()
    var extendedScanParameters: HCI.LESetExtendedScanParameters?
    var scanner: ScanRun?
    var initiator: InitiatorRun?
    var connections: [ConnectionHandle: Connection] = [:]
    var nextConnectionHandle: ConnectionHandle = 0x0001
    var filterAcceptList: [LEAddress] = []
    var suggestedMaxTxOctets: UInt16 = 27
    var suggestedMaxTxTime: UInt16 = 328
    var defaultTxPHYs: HCI.LEPHYs? = nil
    var defaultRxPHYs: HCI.LEPHYs? = nil
    var hostChannelClassification = HCI.LEChannelMap.allDataChannels
    /// The resolving list, address resolution and the RPA timer (Vol 6 Part B §6).
    var privacy = PrivacyState()
    /// The last connection event this controller ran as central: the one radio is busy until
    /// its end (Vol 6 Part B §4.5.1).
    var lastCentralEvent: (link: ObjectIdentifier, end: VirtualInstant)?
    /// Called after each connection event this controller leads, run or skipped (for tests and
    /// measurements).
    var onConnectionEvent: ((ConnectionEventRecord) -> Void)?

    /// Attaches a new controller to `air` at `position`.
    ///
    /// Connection events follow the air-time model (`AirTimeExchange`) with the configuration's
    /// scheduling (end rule, packets-per-event cap).
    public convenience init(
        air: VirtualAir, position: AirPosition = .origin, configuration: Configuration = Configuration()
    ) {
        self.init(
            air: air, position: position, configuration: configuration,
            exchange: AirTimeExchange(scheduling: configuration.scheduling))
    }

    init(
        air: VirtualAir, position: AirPosition, configuration: Configuration,
        exchange: any ConnectionEventExchange
    ) {
        self.air = air
        self.configuration = configuration
        self.exchange = exchange
        self.random = SeededRandomGenerator(seed: configuration.seed ?? air.makeSeed())
        self.hostACLDataPacketLength = configuration.defaultHostACLDataPacketLength
        radio = air.attach(self, at: position)
        publicAddress = configuration.publicAddress ?? BluetoothAddress(0x0000_5E00_5300 &+ UInt64(radio.rawValue + 1))
        defaultRandomAddress = configuration.randomStaticAddress ?? BluetoothAddress.randomStatic(using: &random)
        randomAddress = defaultRandomAddress
    }

    /// The radio's position on the air; setting it moves the device at once.
    public var position: AirPosition {
        get { air.position(of: radio) ?? .origin }
        set { air.move(radio, to: newValue) }
    }

    var now: VirtualInstant { air.now }

    // MARK: Host input

    /// Bytes from the host's UART stream, in chunks of any size.
    ///
    /// Complete packets are handled `commandLatency` later, in order. A stream that cannot be
    /// framed ends this host's input: the failure is reported once through
    /// `onTransportFailure` and everything after it is ignored; the radio keeps running.
    public func receive(h4 bytes: ArraySlice<UInt8>) {
        guard transportFailure == nil else { return }
        parser.feed(bytes)
        while true {
            let packet: H4Packet?
            do {
                packet = try parser.next()
            } catch {
                failTransport(.framing(error))
                return
            }
            guard let packet else { return }
            switch packet.type {
            case .command, .acl:
                if packet.type == .command { checkCommandCredit(packet) }
                // The packet shares the host's chunk (a value: nobody can change it under us).
                hostPackets.append(packet)
                air.queue.schedule(after: configuration.commandLatency) { [hostPackets] in
                    hostPackets.handleFirst()
                }
            case .sco, .iso:
                // No synchronous or isochronous links exist here: the data has nowhere to go.
                statistics.unexpectedPackets += 1
                logger.notice("dropped a \(packet.type) packet from the host: no such links here")
                continue
            case .event:
                failTransport(.unexpectedPacketType(.event))
                return
            }
        }
    }

    public func receive(h4 bytes: [UInt8]) { receive(h4: bytes[...]) }

    /// Starts reading a new byte stream (a new host connected to the transport): the framing
    /// state and any transport failure are forgotten; the controller's state is kept, as a chip
    /// keeps it when its UART is reopened.
    public func restartTransport() {
        parser = H4StreamParser()
        transportFailure = nil
        commandCredit.restart()
    }

    /// Counts and logs a command the host sent beyond its credit (Vol 4 Part E §4.4); it is
    /// queued and handled in order all the same (`HostCommandCredit` says why).
    private func checkCommandCredit(_ packet: H4Packet) {
        // A packet too short for its opcode still spends credit; the dispatcher reports it.
        var reader = ByteReader(packet.payload)
        let opcode = HCIOpcode(rawValue: (try? reader.u16("opcode")) ?? 0)
        guard !commandCredit.commandArrived(opcode: opcode) else { return }
        statistics.commandsBeyondCredit += 1
        if commandCredit.beyondCreditInStream == 1 {
            logger.notice(
                "the host sends commands beyond its credit (Vol 4 Part E §4.4): \(opcode) and later ones are queued")
        } else {
            logger.debug("command \(opcode) beyond the host's credit (\(statistics.commandsBeyondCredit) so far)")
        }
    }

    private func failTransport(_ failure: TransportFailure) {
        transportFailure = failure
        statistics.transportFailures += 1
        logger.warning("stopped reading the host's byte stream: \(failure)")
        // The handler of the stream that failed, taken now: the transport may be restarted for
        // another host before the report runs, and that host's stream has not failed.
        let report = onTransportFailure
        air.queue.schedule(after: configuration.commandLatency) { report(failure) }
    }

    fileprivate func handle(hostPacket packet: H4Packet) {
        switch packet.type {
        case .command:
            let command = decoded(
                HCICommandPacket.self, "a command packet", from: packet, counting: \.undecodableCommands)
            guard let command else { return }
            process(command: command)
        case .acl:
            let acl = decoded(
                ACLPacket.self, "an ACL packet from the host", from: packet, counting: \.undecodableACL)
            guard let acl else { return }
            receiveHostACL(acl)
        case .sco, .iso, .event:
            return
        }
    }

    /// The packet's payload as a `Value`, or nil — counted in `counter` and logged with the
    /// error — when it does not decode.
    private func decoded<Value: WireDecodable>(
        _ type: Value.Type, _ what: String, from packet: H4Packet,
        counting counter: WritableKeyPath<Statistics, Int>
    ) -> Value? {
        do throws(DecodeError) {
            return try Value(decoding: packet.payload)
        } catch {
            statistics[keyPath: counter] += 1
            logger.warning("dropped \(what) that does not decode: \(error)")
            return nil
        }
    }

    // MARK: Output toward the host

    /// Sends `event` if the host's event masks allow it (Core 5.4 Vol 4 Part E §7.3.1, §7.3.69,
    /// §7.8.1).
    func send(_ event: HCIEvent) {
        commandCredit.sent(event)
        guard masks.allows(event) else { return }
        // Indicator and event in one buffer: one allocation per event.
        var writer = ByteWriter(capacity: 64)
        writer.u8(H4PacketType.event.rawValue)
        event.encode(into: &writer)
        output(writer.bytes)
    }

    func send(le event: LEMetaEvent) { send(.le(event)) }

    func sendACL(_ packet: ACLPacket) {
        var writer = ByteWriter(capacity: packet.data.count + 5)
        writer.u8(H4PacketType.acl.rawValue)
        packet.encode(into: &writer)
        output(writer.bytes)
    }

    private func output(_ bytes: [UInt8]) {
        if deferredEvents != nil {
            deferredEvents?.append(bytes)
        } else {
            onPacket(bytes)
        }
    }

    /// Runs `body` with events held back, then sends `completion` followed by the held events:
    /// a command's own completion always comes before what it caused (Vol 4 Part E §4.4).
    func completing(with completion: () -> HCIEvent, _ body: () -> Void) {
        deferredEvents = []
        body()
        let held = deferredEvents ?? []
        deferredEvents = nil
        send(completion())
        for bytes in held { onPacket(bytes) }
    }

    // MARK: Inspection (for tests and tools)

    /// Handles of the live connections.
    public var connectionHandles: [ConnectionHandle] { connections.keys.sorted() }
    /// LE ACL data buffers the host may fill now (Total_Num_LE_ACL_Data_Packets less the host's
    /// packets not yet reported completed or flushed, Core 5.4 Vol 4 Part E §4.1.1).
    public var freeACLBuffers: Int { Int(configuration.aclBufferCount) - aclPacketsInController }

    /// Connection events this controller has run as central (for measuring the simulation).
    public internal(set) var connectionEventCount = 0
    /// Whether any advertising set is enabled.
    public var isAdvertising: Bool { advertisingSets.values.contains { $0.run != nil } }
    /// Whether scanning is enabled.
    public var isScanning: Bool { scanner != nil }
    /// Whether a connection is being initiated.
    public var isInitiating: Bool { initiator != nil }
}

/// Host packets received and not yet handled, oldest first.
///
/// Each is handled `commandLatency` after it arrived, by a queue event whose closure captures
/// only this object (no closure context to allocate per packet). The events run in arrival
/// order — the same delay from a time that only moves forward, ties in scheduling order — so
/// each takes the oldest packet. The controller is held weakly, as the events may outlive it.
private final class HostPacketQueue {
    private weak var controller: VirtualController?
    private var packets: [H4Packet] = []
    private var head = 0

    init(controller: VirtualController) {
        self.controller = controller
    }

    func append(_ packet: H4Packet) { packets.append(packet) }

    func handleFirst() {
        guard head < packets.count else { return }
        let packet = packets[head]
        // Emptied in place, so the host's chunk is let go once handled.
        packets[head].payload = []
        head += 1
        if head == packets.count {
            packets.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= packets.count {
            // A stream that never lets the queue drain still does not grow it without end.
            packets.removeFirst(head)
            head = 0
        }
        controller?.handle(hostPacket: packet)
    }
}

/// Whether the host drives advertising, scanning and initiating with the legacy or the extended
/// commands: once it has used one family, the other is disallowed until Reset (Core 5.4 Vol 4
/// Part E §3.1.1).
enum AdvertisingCommandFamily: Hashable {
    case undecided
    case legacy
    case extended
}
