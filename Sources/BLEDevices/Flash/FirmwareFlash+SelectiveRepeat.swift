import BLECompanion

/// Selective repeat (headset protocol v1.1, docs/headset-protocol.md): a bounded reorder buffer
/// in RAM keeps verified packets that arrive after a gap, so one lost packet costs one resend
/// instead of every packet queued behind it. Flash still sees only the next expected packet.
extension FirmwareFlash {
    /// Takes a packet at or after the next expected one (the caller has sorted out duplicates
    /// before it). Returns the outcome and the bytes written to flash.
    func selectiveReceive(
        _ packet: OTAPacket, staging: inout Staging, statistics: inout Statistics
    ) throws(FlashStorageError) -> (OTAPacketOutcome, Int) {
        let record = staging.record
        let parameters = record.parameters
        let number = Int(packet.number)
        let expected = record.nextPacket
        let capacity = configuration.reorderBufferCapacity
        staging.lastSeen = number
        guard number - expected <= capacity, number < parameters.packetCount else {
            // Beyond the buffer (or past the image): kept nowhere. Ask for everything from the
            // first missing packet, once per gap; the sender's new pass starts the count afresh.
            statistics.packetsRejected += 1
            if number < parameters.packetCount { statistics.bufferOverflows += 1 }
            let report = staging.reportedGap != expected
            if report {
                staging.reportedGap = expected
                staging.highestSeen = expected - 1
                statistics.resendReports += 1
            }
            return (.resendFrom(packet: expected, report: report), 0)
        }
        // Inside the window again: a later overflow is a new one and is reported.
        staging.reportedGap = nil
        // Packets between the highest seen and this one never arrived (the link keeps order).
        let highest = staging.highestSeen ?? (expected - 1)
        var missing: [Int] = []
        if number > highest + 1 {
            missing = (max(highest + 1, expected)..<number).filter { staging.reorder[$0] == nil }
        }
        staging.highestSeen = max(highest, number)
        let offset = number * parameters.packetSize
        let expectedLength = min(parameters.packetSize, parameters.imageSize - offset)
        let intact =
            expectedLength > 0 && packet.payload.count == expectedLength
            && CRC32.checksum(packet.payload) == packet.crc32
        guard intact else {
            statistics.packetsRejected += 1
            if staging.reorder[number] == nil { missing.append(number) }
            statistics.resendReports += missing.count
            return (.rejected(missing: missing), 0)
        }
        statistics.resendReports += missing.count
        if number > expected {
            guard staging.reorder[number] == nil else {
                statistics.duplicates += 1
                return (.duplicate, 0)
            }
            staging.reorder[number] = packet.payload
            statistics.packetsBuffered += 1
            statistics.reorderBufferPeak = max(statistics.reorderBufferPeak, staging.reorder.count)
            return (.buffered(missing: missing), 0)
        }
        // The next expected packet: write it, then whatever the buffer holds in sequence.
        try write(packet.payload, to: &staging, statistics: &statistics)
        var written = packet.payload.count
        while let held = staging.reorder.removeValue(forKey: staging.record.nextPacket) {
            try write(held, to: &staging, statistics: &statistics)
            written += held.count
        }
        return (.stored, written)
    }
}
