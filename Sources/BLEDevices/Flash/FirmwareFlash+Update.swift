import BLECompanion

/// The update procedures: start (or resume), receive a packet, commit, abort.
extension FirmwareFlash {
    /// Enters OTA mode for `parameters`: refuses on bad parameters, a bad version format, an
    /// image larger than a slot or a low battery; answers "already installed" for the running
    /// image; resumes a staging with the same parameters; otherwise empties the staging slot
    /// and starts at packet 0.
    public func start(_ parameters: OTASessionParameters) throws(FlashStorageError) -> OTAStartAnswer {
        if let refusal = refusal(of: parameters) { return .refused(refusal) }
        return try mutate { state throws(FlashStorageError) -> OTAStartAnswer in
            if state.batteryLevel < configuration.minimumBatteryLevel {
                return .refused(
                    .batteryTooLow(level: state.batteryLevel, minimum: configuration.minimumBatteryLevel))
            }
            if parameters.sha256 == state.table.sha256, parameters.imageSize == state.table.size {
                return .alreadyInstalled
            }
            if var staging = state.staging, staging.record.parameters == parameters {
                // A new pass of the sender: report gaps afresh.
                staging.reportedGap = nil
                staging.lastSeen = nil
                staging.reorder = [:]
                staging.highestSeen = nil
                state.staging = staging
                return .ready(nextPacket: staging.record.nextPacket)
            }
            let slot = state.table.active.other
            state.staging = nil
            try storage.remove(.staging)
            try storage.replace(.slot(slot), with: [])
            let record = StagingRecord(parameters: parameters, slot: slot, receivedBytes: 0, nextPacket: 0)
            try storage.writeRecord(record, to: .staging)
            state.staging = Staging(record: record)
            return .ready(nextPacket: 0)
        }
    }

    /// Checks that need no state.
    private func refusal(of parameters: OTASessionParameters) -> OTARefusal? {
        guard parameters.imageSize > 0 else { return .invalidParameters("image size \(parameters.imageSize)") }
        guard parameters.sha256.count == 32 else {
            return .invalidParameters("SHA-256 of \(parameters.sha256.count) bytes")
        }
        guard parameters.packetSize > 0 else { return .invalidParameters("packet size \(parameters.packetSize)") }
        guard parameters.packetCount <= OTASessionParameters.maximumPacketCount else {
            return .invalidParameters("\(parameters.packetCount) packets")
        }
        do {
            _ = try FirmwareVersion(parsing: parameters.version)
        } catch {
            return .versionFormat(parameters.version)
        }
        guard parameters.imageSize <= configuration.slotCapacity else {
            return .imageTooLarge(size: parameters.imageSize, capacity: configuration.slotCapacity)
        }
        return nil
    }

    /// Takes one packet. Nothing is ever written out of order or unverified: the expected packet
    /// with the right length and CRC is written (then any packets after it waiting in the
    /// reorder buffer); with a reorder buffer, a verified packet past a gap is held and the
    /// missing packets are named one by one (`selectiveReceive`); without one, or beyond it,
    /// nothing is kept and the first missing packet is named for a go-back-N resend. Earlier
    /// packets are duplicates of a resend and are ignored.
    public func receive(_ packet: OTAPacket) async throws(FlashStorageError) -> OTAPacketOutcome {
        let (outcome, written) = try mutate { state throws(FlashStorageError) -> (OTAPacketOutcome, Int) in
            guard var staging = state.staging else { return (.noSession, 0) }
            defer { state.staging = staging }
            let record = staging.record
            let number = Int(packet.number)
            let expected = record.nextPacket
            // Earlier packets are resends; with every packet staged, nothing more is needed.
            if number < expected || expected >= record.parameters.packetCount {
                staging.lastSeen = number
                staging.highestSeen = max(staging.highestSeen ?? number, number)
                state.statistics.duplicates += 1
                return (.duplicate, 0)
            }
            if configuration.reorderBufferCapacity > 0 {
                return try selectiveReceive(packet, staging: &staging, statistics: &state.statistics)
            }
            let expectedLength = min(record.parameters.packetSize, record.parameters.imageSize - record.receivedBytes)
            let intact =
                number == expected && packet.payload.count == expectedLength && expectedLength > 0
                && CRC32.checksum(packet.payload) == packet.crc32
            guard intact else {
                // Once per gap, and again when the sender starts a new pass (a number not above
                // the last one seen), so a burst of out-of-order packets gives one report.
                let report = staging.reportedGap != expected || number <= (staging.lastSeen ?? -1)
                staging.lastSeen = number
                state.statistics.packetsRejected += 1
                if report {
                    staging.reportedGap = expected
                    state.statistics.resendReports += 1
                }
                return (.resendFrom(packet: expected, report: report), 0)
            }
            try write(packet.payload, to: &staging, statistics: &state.statistics)
            staging.lastSeen = number
            return (.stored, packet.payload.count)
        }
        try await spendFlashTime(writing: written)
        return outcome
    }

    /// Appends the next packet's bytes to the staging slot and counts them. Bytes first, then the
    /// record that counts them: a cut between leaves extra bytes the next start trims.
    func write(
        _ payload: [UInt8], to staging: inout Staging, statistics: inout Statistics
    ) throws(FlashStorageError) {
        let record = staging.record
        try storage.append(payload, to: .slot(record.slot))
        var updated = record
        updated.receivedBytes += payload.count
        updated.nextPacket += 1
        let interval = max(1, configuration.stagingRecordInterval)
        if updated.nextPacket % interval == 0 || updated.receivedBytes == updated.parameters.imageSize {
            try storage.writeRecord(updated, to: .staging)
        }
        staging.record = updated
        statistics.packetsStored += 1
        statistics.bytesWritten += payload.count
    }

    /// Verifies the staged image (size, then SHA-256 over the bytes read back) and only then
    /// swaps: the slot table's atomic replacement is the moment the new image becomes active.
    /// A digest mismatch discards the staging; the old image stays either way.
    public func commit() throws(FlashStorageError) -> OTACommitOutcome {
        try mutate { state throws(FlashStorageError) -> OTACommitOutcome in
            guard let record = state.staging?.record else { return .failed(.noSession) }
            guard record.receivedBytes == record.parameters.imageSize else {
                return .failed(
                    .incomplete(receivedBytes: record.receivedBytes, expectedBytes: record.parameters.imageSize))
            }
            let staged = try storage.read(.slot(record.slot)) ?? []
            guard staged.count == record.parameters.imageSize,
                FirmwareDigest.sha256(staged) == record.parameters.sha256
            else {
                state.staging = nil
                try storage.remove(.staging)
                try storage.replace(.slot(record.slot), with: [])
                return .failed(.digestMismatch)
            }
            let table = SlotTable(
                active: record.slot, version: record.parameters.version, sha256: record.parameters.sha256,
                size: record.parameters.imageSize)
            try storage.writeRecord(table, to: .slotTable)
            state.table = table
            state.staging = nil
            // A cut before this removal leaves a staging record naming the active slot, which
            // the next start recognises as stale.
            try storage.remove(.staging)
            return .installed
        }
    }

    /// Drops the staging; the active image is untouched.
    public func abort() throws(FlashStorageError) {
        try mutate { state throws(FlashStorageError) in
            guard let record = state.staging?.record else { return }
            state.staging = nil
            try storage.remove(.staging)
            try storage.replace(.slot(record.slot), with: [])
        }
    }
}
