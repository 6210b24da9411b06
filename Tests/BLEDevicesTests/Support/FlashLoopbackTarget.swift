import BLE
import BLECompanion
import BLEDevices
import BLELocking
import BLESimulation

/// An `OTATarget` wired straight to a `FirmwareFlash` (no radio), with faults drawn from a
/// seeded generator: dropped and corrupted packets, lost resend reports, link losses, unanswered
/// status requests, device restarts and power cuts in the middle of a flash operation. The
/// storage is kept across restarts, as a device's flash is.
final class FlashLoopbackTarget: OTATarget {
    /// Probabilities per call (0 disables a fault).
    struct Faults: Sendable {
        var drop = 0.0
        var corrupt = 0.0
        var reportLoss = 0.0
        var linkLoss = 0.0
        var statusTimeout = 0.0
        var deviceRestart = 0.0
        /// A power cut within the next few storage operations of a packet or commit.
        var powerCut = 0.0
        var reconnectFailure = 0.0
        /// Packets sent after a packet before its reports reach the app (the link's pipeline,
        /// about 36 packets on the goodput benchmark); a status answer comes after them all.
        var reportDelay = 0

        static let none = Faults()
    }

    struct Counters: Sendable {
        var drops = 0
        var corruptions = 0
        var reportsLost = 0
        var linkLosses = 0
        var statusTimeouts = 0
        var deviceRestarts = 0
        var powerCuts = 0
        var reconnects = 0
        /// Selective repeat, summed over the stores a restart replaced (see `reorderTotals`).
        var packetsBuffered = 0
        var bufferOverflows = 0
        var selectiveReports = 0
    }

    private struct State {
        var flash: FirmwareFlash
        var connected = true
        var faults: Faults
        var generator: SeededRandomGenerator
        var counters = Counters()
        var subscribers: [AsyncStream<OTADeviceReport>.Continuation] = []
        var sends = 0
        /// Reports on their way to the app, released once `sends` reaches `due`.
        var delayedReports: [(due: Int, report: OTADeviceReport)] = []
    }

    let storage: MemoryFlashStorage
    let factoryImage: FirmwareImage
    let flashConfiguration: FirmwareFlash.Configuration
    let clock: VirtualClock
    let payload: Int
    let packetTime: Duration
    private let state: Locked<State>

    init(
        storage: MemoryFlashStorage, factoryImage: FirmwareImage,
        flashConfiguration: FirmwareFlash.Configuration = .init(),
        clock: VirtualClock, payload: Int = 244, packetTime: Duration = .microseconds(700), faults: Faults = .none,
        seed: UInt64 = 1
    ) throws {
        self.storage = storage
        self.factoryImage = factoryImage
        self.flashConfiguration = flashConfiguration
        self.clock = clock
        self.payload = payload
        self.packetTime = packetTime
        let flash = try FirmwareFlash(
            storage: storage, factoryImage: factoryImage, configuration: flashConfiguration, clock: clock)
        state = Locked(State(flash: flash, faults: faults, generator: SeededRandomGenerator(seed: seed)))
    }

    var flash: FirmwareFlash { state.withLock { $0.flash } }
    var counters: Counters {
        state.withLock { state in
            var counters = state.counters
            counters.packetsBuffered += state.flash.statistics.packetsBuffered
            counters.bufferOverflows += state.flash.statistics.bufferOverflows
            return counters
        }
    }

    func setFaults(_ faults: Faults) {
        state.withLock { $0.faults = faults }
    }

    /// A new app process: its link to the device is gone until it reconnects.
    func appRestarted() {
        state.withLock { $0.connected = false }
    }

    /// The device reboots: power back, a new store opened on the same storage, link gone.
    func restartDevice() {
        state.withLock { state in
            storage.restorePower()
            state.counters.deviceRestarts += 1
            state.connected = false
            state.delayedReports = []
            state.counters.packetsBuffered += state.flash.statistics.packetsBuffered
            state.counters.bufferOverflows += state.flash.statistics.bufferOverflows
            // Opening cannot meet a power cut (none is scheduled after restorePower).
            if let flash = try? FirmwareFlash(
                storage: storage, factoryImage: factoryImage, configuration: flashConfiguration, clock: clock)
            {
                state.flash = flash
            }
        }
    }

    /// Draws a fault; counts it when it happens.
    private func roll(_ probability: KeyPath<Faults, Double>, _ counter: WritableKeyPath<Counters, Int>) -> Bool {
        state.withLock { state in
            let chance = state.faults[keyPath: probability]
            guard chance > 0, Double.random(in: 0..<1, using: &state.generator) < chance else { return false }
            state.counters[keyPath: counter] += 1
            return true
        }
    }

    private func random(in range: ClosedRange<Int>) -> Int {
        state.withLock { Int.random(in: range, using: &$0.generator) }
    }

    private func pause(_ duration: Duration) async throws(OTALinkError) {
        do { try await clock.sleep(for: duration) } catch { throw .cancelled }
    }

    /// The link is up, it has not just dropped, and the device has not just rebooted.
    private func linkedFlash() throws(OTALinkError) -> FirmwareFlash {
        guard state.withLock({ $0.connected }) else { throw .linkLost }
        if roll(\.linkLoss, \.linkLosses) {
            state.withLock { $0.connected = false }
            throw .linkLost
        }
        if roll(\.deviceRestart, \.deviceRestarts) {
            restartDevice()
            throw .linkLost
        }
        return flash
    }

    /// A flash operation; a power cut reboots the device and drops the link.
    private func onDevice<T>(_ body: () async throws(FlashStorageError) -> T) async throws(OTALinkError) -> T {
        do {
            return try await body()
        } catch {
            restartDevice()
            throw .linkLost
        }
    }

    private func maybeCutPower(within operations: ClosedRange<Int>) {
        if roll(\.powerCut, \.powerCuts) { storage.schedulePowerLoss(afterOperations: random(in: operations)) }
    }

    func maximumPacketPayload() async throws(OTALinkError) -> Int {
        _ = try linkedFlash()
        return payload
    }

    func start(_ parameters: OTASessionParameters) async throws(OTALinkError) -> OTAStartAnswer {
        let flash = try linkedFlash()
        try await pause(.milliseconds(15))
        maybeCutPower(within: 0...3)
        return try await onDevice { () throws(FlashStorageError) in try flash.start(parameters) }
    }

    func send(_ packet: OTAPacket) async throws(OTALinkError) {
        let flash = try linkedFlash()
        try await pause(packetTime)
        if roll(\.drop, \.drops) { return }
        var delivered = packet
        if roll(\.corrupt, \.corruptions), !delivered.payload.isEmpty {
            let index = random(in: 0...(delivered.payload.count - 1))
            delivered.payload[index] ^= UInt8(truncatingIfNeeded: random(in: 1...255))
        }
        maybeCutPower(within: 0...1)
        let outcome = try await onDevice { () async throws(FlashStorageError) in try await flash.receive(delivered) }
        let reports = outcome.reports.filter { _ in !roll(\.reportLoss, \.reportsLost) }
        let due = state.withLock { state -> [OTADeviceReport] in
            state.sends += 1
            for report in reports {
                if case .resend = report { state.counters.selectiveReports += 1 }
                state.delayedReports.append((state.sends + state.faults.reportDelay, report))
            }
            return releaseReports(upTo: state.sends, in: &state)
        }
        deliver(due)
    }

    /// Takes the reports due by `sends` off the way to the app.
    private func releaseReports(upTo sends: Int, in state: inout State) -> [OTADeviceReport] {
        let due = state.delayedReports.filter { $0.due <= sends }.map(\.report)
        state.delayedReports.removeAll { $0.due <= sends }
        return due
    }

    private func deliver(_ reports: [OTADeviceReport]) {
        let subscribers = state.withLock { $0.subscribers }
        for report in reports {
            for subscriber in subscribers { subscriber.yield(report) }
        }
    }

    func status() async throws(OTALinkError) -> OTAStatus {
        let flash = try linkedFlash()
        if roll(\.statusTimeout, \.statusTimeouts) {
            try await pause(.seconds(2))
            throw .timedOut
        }
        // Notifications sent before the answer arrive before it.
        deliver(state.withLock { releaseReports(upTo: .max, in: &$0) })
        try await pause(.milliseconds(15))
        return flash.status()
    }

    func crc32OfStagedPackets(_ packetCount: Int) async throws(OTALinkError) -> UInt32? {
        let flash = try linkedFlash()
        try await pause(.milliseconds(15))
        return try await onDevice { () throws(FlashStorageError) in try flash.crc32OfStagedPackets(packetCount) }
    }

    func commit() async throws(OTALinkError) -> OTACommitOutcome {
        let flash = try linkedFlash()
        try await pause(.milliseconds(15))
        maybeCutPower(within: 0...2)
        let outcome = try await onDevice { () throws(FlashStorageError) in try flash.commit() }
        // The answer can be lost after the device acted on it.
        if roll(\.linkLoss, \.linkLosses) {
            state.withLock { $0.connected = false }
            throw .linkLost
        }
        return outcome
    }

    func abort() async throws(OTALinkError) {
        let flash = try linkedFlash()
        try await onDevice { () throws(FlashStorageError) in try flash.abort() }
    }

    func reconnect() async throws(OTALinkError) {
        try await pause(.milliseconds(200))
        if roll(\.reconnectFailure, \.reconnects) { throw .linkLost }
        state.withLock { $0.connected = true }
    }

    func reportStream() -> AsyncStream<OTADeviceReport> {
        let (stream, continuation) = AsyncStream.makeStream(of: OTADeviceReport.self)
        state.withLock { $0.subscribers.append(continuation) }
        return stream
    }
}


extension FirmwareImage {
    /// A random image for tests.
    static func random(size: Int, version: String, seed: UInt64) throws -> FirmwareImage {
        var generator = SeededRandomGenerator(seed: seed)
        return try FirmwareImage(
            bytes: (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }, version: version)
    }
}
