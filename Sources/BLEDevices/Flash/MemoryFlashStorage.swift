import BLELocking

/// Flash in memory, for a device without a state directory, and for tests: the object outlives
/// a simulated device restart (a new store on the same storage), and a power loss can be
/// scheduled after any number of operations to cut the store mid-procedure.
public final class MemoryFlashStorage: FlashStorage {
    private struct State {
        var records: [FlashRecord: [UInt8]] = [:]
        /// Mutating operations left before the power goes (nil: never).
        var operationsBeforePowerLoss: Int?
        var powered = true
    }

    private let state = Locked(State())

    public init() {}

    /// Cuts the power at the `count`-th mutating operation from now (0: the next one): that
    /// operation is half done (an append keeps half its bytes, an atomic replace none) and
    /// every operation after it fails with `.powerLost` until `restorePower()`.
    public func schedulePowerLoss(afterOperations count: Int) {
        state.withLock { $0.operationsBeforePowerLoss = count }
    }

    /// Powers the storage again (its contents are what the cut left).
    public func restorePower() {
        state.withLock { state in
            state.powered = true
            state.operationsBeforePowerLoss = nil
        }
    }

    public var isPowered: Bool { state.withLock { $0.powered } }

    public func read(_ record: FlashRecord) throws(FlashStorageError) -> [UInt8]? {
        try state.withLock { state throws(FlashStorageError) -> [UInt8]? in
            guard state.powered else { throw .powerLost }
            return state.records[record]
        }
    }

    public func replace(_ record: FlashRecord, with bytes: [UInt8]) throws(FlashStorageError) {
        try mutate { state, completes throws(FlashStorageError) in
            if completes { state.records[record] = bytes }
        }
    }

    public func append(_ bytes: [UInt8], to record: FlashRecord) throws(FlashStorageError) {
        try mutate { state, completes throws(FlashStorageError) in
            let kept = completes ? bytes[...] : bytes.prefix(bytes.count / 2)
            state.records[record, default: []].append(contentsOf: kept)
        }
    }

    public func truncate(_ record: FlashRecord, to length: Int) throws(FlashStorageError) {
        try mutate { state, completes throws(FlashStorageError) in
            guard completes, let count = state.records[record]?.count, length < count else { return }
            state.records[record]?.removeLast(count - max(0, length))
        }
    }

    public func remove(_ record: FlashRecord) throws(FlashStorageError) {
        try mutate { state, completes throws(FlashStorageError) in
            if completes { state.records[record] = nil }
        }
    }

    /// Runs one mutating operation; `completes` is false for the one the power cut interrupts.
    private func mutate(_ body: (inout State, Bool) throws(FlashStorageError) -> Void) throws(FlashStorageError) {
        try state.withLock { state throws(FlashStorageError) in
            guard state.powered else { throw .powerLost }
            if let left = state.operationsBeforePowerLoss {
                if left == 0 {
                    try body(&state, false)
                    state.powered = false
                    state.operationsBeforePowerLoss = nil
                    throw .powerLost
                }
                state.operationsBeforePowerLoss = left - 1
            }
            try body(&state, true)
        }
    }
}
