import BLE
import BLECompanion
import BLELocking
import BLESimulation

/// A minimal device for the engine's tests: keeps the packets it accepts in order, and misbehaves
/// as a test scripts it (drop a packet once, hang, refuse, lie). The full flash model is tested
/// with the engine in BLEDevicesTests.
final class ScriptedDevice: OTATarget {
    struct Script: Sendable {
        var payload = 100
        var startAnswer: OTAStartAnswer?
        /// Packet numbers lost the first time they are sent.
        var dropOnce: Set<Int> = []
        /// Report a resend for out-of-order packets.
        var reportsGaps = true
        /// Status calls never answer (until cancelled).
        var statusHangs = false
        /// Every reconnect fails.
        var reconnectFails = false
        /// Throw `.linkLost` on this send (counted from 1), once.
        var linkLossAtSend: Int?
        /// Report this packet number for resend after the first packet.
        var bogusReport: Int?
        /// Virtual air time of one packet.
        var packetTime: Duration = .milliseconds(1)
        /// Bytes already staged (with this CRC answered), for resume tests.
        var preStaged: [UInt8] = []
        var supportsPrefixCRC = true
        /// Every packet is lost.
        var dropsAll = false
    }

    struct Record: Sendable {
        var received: [UInt8] = []
        var nextPacket = 0
        var packetSize = 0
        var sends = 0
        var statusCalls = 0
        var aborts = 0
        var reconnects = 0
        var committed = false
        var connected = true
        var dropped: Set<Int> = []
        var subscribers: [AsyncStream<OTADeviceReport>.Continuation] = []
    }

    let script: Script
    let clock: VirtualClock
    let record = Locked(Record())

    init(script: Script, clock: VirtualClock) {
        self.script = script
        self.clock = clock
        if !script.preStaged.isEmpty {
            record.withLock {
                $0.received = script.preStaged
                $0.packetSize = script.payload
                $0.nextPacket = script.preStaged.count / script.payload
            }
        }
    }

    private func pause(_ duration: Duration) async throws(OTALinkError) {
        do { try await clock.sleep(for: duration) } catch { throw .cancelled }
    }

    private func requireLink() throws(OTALinkError) {
        guard record.withLock({ $0.connected }) else { throw .linkLost }
    }

    func maximumPacketPayload() async throws(OTALinkError) -> Int {
        try requireLink()
        return script.payload
    }

    func start(_ parameters: OTASessionParameters) async throws(OTALinkError) -> OTAStartAnswer {
        try requireLink()
        try await pause(.milliseconds(20))
        if let answer = script.startAnswer { return answer }
        return record.withLock { state in
            if state.packetSize != parameters.packetSize {
                state = Record(subscribers: state.subscribers)
                state.packetSize = parameters.packetSize
            }
            return .ready(nextPacket: state.nextPacket)
        }
    }

    func send(_ packet: OTAPacket) async throws(OTALinkError) {
        try requireLink()
        try await pause(script.packetTime)
        let (report, lost) = record.withLock { state -> (OTADeviceReport?, Bool) in
            state.sends += 1
            if state.sends == script.linkLossAtSend {
                state.connected = false
                return (nil, true)
            }
            let number = Int(packet.number)
            if script.dropsAll { return (nil, false) }
            if script.dropOnce.contains(number), !state.dropped.contains(number) {
                state.dropped.insert(number)
                return (nil, false)
            }
            if state.sends == 1, let bogus = script.bogusReport { return (.resendFrom(packet: bogus), false) }
            if number == state.nextPacket {
                state.received += packet.payload
                state.nextPacket += 1
                return (nil, false)
            }
            if number > state.nextPacket, script.reportsGaps { return (.resendFrom(packet: state.nextPacket), false) }
            return (nil, false)
        }
        if lost { throw .linkLost }
        if let report {
            for subscriber in record.withLock({ $0.subscribers }) { subscriber.yield(report) }
        }
    }

    func status() async throws(OTALinkError) -> OTAStatus {
        try requireLink()
        if script.statusHangs { try await pause(.seconds(3600)) }
        try await pause(.milliseconds(30))
        return record.withLock { state in
            state.statusCalls += 1
            return .receiving(nextPacket: state.nextPacket, receivedBytes: state.received.count)
        }
    }

    func crc32OfStagedPackets(_ packetCount: Int) async throws(OTALinkError) -> UInt32? {
        try requireLink()
        guard script.supportsPrefixCRC else { return nil }
        return record.withLock { CRC32.checksum($0.received.prefix(packetCount * $0.packetSize)) }
    }

    func commit() async throws(OTALinkError) -> OTACommitOutcome {
        try requireLink()
        try await pause(.milliseconds(50))
        return record.withLock { state in
            state.committed = true
            return .installed
        }
    }

    func abort() async throws(OTALinkError) {
        record.withLock { state in
            state.aborts += 1
            state.received = []
            state.nextPacket = 0
        }
    }

    func reconnect() async throws(OTALinkError) {
        try await pause(.milliseconds(100))
        if script.reconnectFails { throw .linkLost }
        record.withLock { state in
            state.reconnects += 1
            state.connected = true
        }
    }

    func reportStream() -> AsyncStream<OTADeviceReport> {
        let (stream, continuation) = AsyncStream.makeStream(of: OTADeviceReport.self)
        record.withLock { $0.subscribers.append(continuation) }
        return stream
    }
}
