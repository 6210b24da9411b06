import BLECompanion
import BLELocking

/// The headset's firmware store: two slots (one active, one staging) on a `FlashStorage`, which
/// receives an OTA update packet by packet and swaps slots only for a complete image whose
/// SHA-256 matches the announced one; otherwise the old image stays active.
///
/// Every step persists before it answers, ordered so a power cut anywhere leaves either the old
/// consistent state or the new one: staged bytes are appended before the staging record that
/// counts them is replaced (a restart trims bytes the record does not count), and the swap is
/// the single atomic replacement of the slot table. A store opened on the same storage after a
/// restart resumes the staging where it stopped.
///
/// Writes take flash time (`writeSpeed` bytes per second), counted apart from radio time and,
/// when a clock is given, slept on it so the device is busy meanwhile. Calls are meant to come
/// one at a time from the device's receive loop; the lock only keeps the state whole.
public final class FirmwareFlash: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Bytes each slot holds.
        public var slotCapacity: Int
        /// Flash write speed in bytes per second (nil: writes take no time).
        public var writeSpeed: Int?
        /// Below this battery level (percent) an update is refused.
        public var minimumBatteryLevel: Int

        /// Persist the staging record every this many packets (1: every packet). A larger
        /// interval saves flash wear and sync time; a restart then resumes up to interval − 1
        /// packets earlier (the uncounted bytes are trimmed), never inconsistently.
        public var stagingRecordInterval: Int

        /// Packets past a gap held in RAM until the gap is filled (selective repeat): packets
        /// `next + 1 … next + reorderBufferCapacity` are kept and each missing one is reported on
        /// its own; a packet beyond that overflows and the device asks for everything from `next`
        /// again. 0: protocol v1's go-back-N only (nothing is kept past a gap).
        public var reorderBufferCapacity: Int

        public init(
            slotCapacity: Int = 1 << 20, writeSpeed: Int? = nil, minimumBatteryLevel: Int = 20,
            stagingRecordInterval: Int = 1, reorderBufferCapacity: Int = 64
        ) {
            self.slotCapacity = slotCapacity
            self.writeSpeed = writeSpeed
            self.minimumBatteryLevel = minimumBatteryLevel
            self.stagingRecordInterval = stagingRecordInterval
            self.reorderBufferCapacity = reorderBufferCapacity
        }
    }

    /// Counters since this store was opened.
    public struct Statistics: Sendable, Hashable {
        public var packetsStored = 0
        public var packetsRejected = 0
        public var duplicates = 0
        public var resendReports = 0
        /// Packets held in the reorder buffer (each written later, in order).
        public var packetsBuffered = 0
        /// Packets that arrived beyond the reorder buffer (each brought a go-back-N report).
        public var bufferOverflows = 0
        /// The most packets the reorder buffer held at once.
        public var reorderBufferPeak = 0
        public var bytesWritten = 0
        /// Flash time spent writing (apart from radio time).
        public var flashTime: Duration = .zero
    }

    struct Staging {
        var record: StagingRecord
        /// The expected packet when the device last reported a gap (one report per gap).
        var reportedGap: Int?
        /// The number of the last packet that arrived, to notice the sender going back.
        var lastSeen: Int?
        /// Selective repeat: verified packets past the next expected one, by number (RAM only:
        /// a restart drops them, and the sender resends from the persisted next packet).
        var reorder: [Int: [UInt8]] = [:]
        /// Selective repeat: the highest packet number seen since the last (re)start or
        /// go-back-N report; a packet beyond it reveals the ones in between as missing.
        var highestSeen: Int?
    }

    struct State {
        var table: SlotTable
        var staging: Staging?
        var batteryLevel: Int
        var statistics = Statistics()
        /// Set once the storage lost power: this store is dead; open a new one.
        var halted = false
    }

    public let configuration: Configuration
    let storage: any FlashStorage
    let state: Locked<State>
    private let sleep: (@Sendable (Duration) async throws -> Void)?

    /// Opens the store on `storage`: loads the slot table (writing `factoryImage` into slot A on
    /// first use — when the storage holds no record at all; a table that cannot be read, or is
    /// missing beside other records, is an error, never a reset) and any staging in progress, trimming bytes its record does not count and
    /// dropping staging that a completed swap made stale.
    public init(
        storage: any FlashStorage, factoryImage: FirmwareImage, configuration: Configuration = .init(),
        batteryLevel: Int = 100, clock: (any Clock<Duration>)? = nil
    ) throws(FlashStorageError) {
        self.storage = storage
        self.configuration = configuration
        if let clock {
            sleep = { duration in try await clock.sleep(for: duration) }
        } else {
            sleep = nil
        }
        let table: SlotTable
        if let stored = try storage.readRecord(SlotTable.self, from: .slotTable) {
            table = stored
        } else {
            // Only a store with nothing in it is new. A slot or a staging record without the
            // table is damage (the table was deleted): starting afresh would overwrite slot A —
            // unless slot A holds the factory image itself (a first start cut short before its
            // table was written), which loses nothing.
            for record in [FlashRecord.slot(.a), .slot(.b), .staging] {
                let bytes = try storage.read(record)
                guard bytes == nil || (record == .slot(.a) && bytes == factoryImage.bytes) else {
                    throw .corrupt("\(FlashRecord.slotTable.fileName) is missing but \(record.fileName) is there")
                }
            }
            try storage.replace(.slot(.a), with: factoryImage.bytes)
            table = SlotTable(
                active: .a, version: factoryImage.version.description, sha256: factoryImage.sha256,
                size: factoryImage.size)
            try storage.writeRecord(table, to: .slotTable)
        }
        var staging: Staging?
        if let record = try storage.readRecord(StagingRecord.self, from: .staging) {
            let stagedCount = try storage.read(.slot(record.slot))?.count ?? 0
            if record.slot == table.active || stagedCount < record.receivedBytes {
                // Stale (its image was swapped in) or inconsistent: start any update over.
                try storage.remove(.staging)
            } else {
                if stagedCount > record.receivedBytes {
                    try storage.truncate(.slot(record.slot), to: record.receivedBytes)
                }
                staging = Staging(record: record)
            }
        }
        state = Locked(State(table: table, staging: staging, batteryLevel: batteryLevel))
    }

    // MARK: Queries

    public var batteryLevel: Int {
        get { state.withLock { $0.batteryLevel } }
        set { state.withLock { $0.batteryLevel = newValue } }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The running image's version and digest, as the slot table names them.
    public var activeVersion: String { state.withLock { $0.table.version } }
    public var activeSHA256: [UInt8] { state.withLock { $0.table.sha256 } }
    public var activeSlot: FlashSlot { state.withLock { $0.table.active } }

    /// The bytes of the active slot, read back from storage.
    public func activeImageBytes() throws(FlashStorageError) -> [UInt8] {
        let slot = activeSlot
        return try storage.read(.slot(slot)) ?? []
    }

    /// Where the staging stands.
    public func status() -> OTAStatus {
        state.withLock { state in
            guard let staging = state.staging else { return .idle }
            return .receiving(nextPacket: staging.record.nextPacket, receivedBytes: staging.record.receivedBytes)
        }
    }

    /// CRC-32 of the first `packetCount` staged packets; nil when there is no staging or fewer
    /// packets are staged.
    public func crc32OfStagedPackets(_ packetCount: Int) throws(FlashStorageError) -> UInt32? {
        try state.withLock { state throws(FlashStorageError) -> UInt32? in
            guard !state.halted else { throw .powerLost }
            guard let record = state.staging?.record, packetCount >= 0, packetCount <= record.nextPacket else {
                return nil
            }
            let length = min(packetCount * record.parameters.packetSize, record.receivedBytes)
            let bytes = try storage.read(.slot(record.slot)) ?? []
            guard bytes.count >= length else { throw .corrupt("staging slot shorter than its record") }
            return CRC32.checksum(bytes[0..<length])
        }
    }

    /// Runs `body` on the state; a power loss on the way halts the store.
    func mutate<T: Sendable>(_ body: (inout State) throws(FlashStorageError) -> T) throws(FlashStorageError) -> T {
        try state.withLock { state throws(FlashStorageError) -> T in
            guard !state.halted else { throw .powerLost }
            do throws(FlashStorageError) {
                return try body(&state)
            } catch {
                if error == .powerLost { state.halted = true }
                throw error
            }
        }
    }

    /// Spends flash time for `byteCount` written bytes.
    func spendFlashTime(writing byteCount: Int) async throws(FlashStorageError) {
        guard let speed = configuration.writeSpeed, speed > 0, byteCount > 0 else { return }
        // Whole nanoseconds, so flash time adds up exactly.
        let (scaled, overflow) = Int64(byteCount).multipliedReportingOverflow(by: 1_000_000_000)
        let duration = Duration.nanoseconds(overflow ? Int64.max : scaled / Int64(speed))
        state.withLock { $0.statistics.flashTime += duration }
        guard let sleep else { return }
        do {
            try await sleep(duration)
        } catch {
            throw .io("flash write interrupted")
        }
    }
}
