import BLEWire

extension GATTClient {
    /// Write Without Response (Core 5.4 Vol 3 Part G §4.9.1): a Write Command, at most
    /// ATT_MTU − 3 octets; it waits for transmit room, never for an answer.
    public nonisolated(nonsending) func writeValueWithoutResponse(_ value: [UInt8], handle: UInt16) async throws(GATTError) {
        try check(value, maximum: await currentMTU - 3)
        try await sendCommand(ATT.WriteCommand(handle: handle, value: value[...]).pdu)
    }

    /// Signed Write Without Response (Core 5.4 Vol 3 Part G §4.9.2): a Signed Write Command, at
    /// most ATT_MTU − 15 octets.
    ///
    /// The client holds no keys: `signer` receives the octets to sign — opcode (0xD2), handle
    /// and value, as Vol 3 Part F §3.4.5.4 defines the signed message — and returns the
    /// Authentication Signature: the SignCounter it used and the MAC computed with the CSRK
    /// (Vol 3 Part H §2.4.5, Part C §10.4.1), advancing its own counter. The caller uses this
    /// procedure only on an unencrypted link to a characteristic with the
    /// `authenticatedSignedWrites` property (§4.9.2: an encrypted link uses Write Without
    /// Response instead).
    public nonisolated(nonsending) func signedWriteValueWithoutResponse(
        _ value: [UInt8], handle: UInt16,
        signer: @Sendable (_ message: [UInt8]) async -> ATT.AuthenticationSignature
    ) async throws(GATTError) {
        try check(value, maximum: await currentMTU - 3 - ATT.AuthenticationSignature.length)
        let message =
            [ATTOpcode.signedWriteCommand.rawValue, UInt8(truncatingIfNeeded: handle), UInt8(handle >> 8)] + value
        let signature = await signer(message)
        try await sendCommand(ATT.SignedWriteCommand(handle: handle, value: value[...], signature: signature).pdu)
    }

    /// Write Characteristic Value (Core 5.4 Vol 3 Part G §4.9.3) — and Write Characteristic
    /// Descriptors (§4.12.3): a Write Request of at most ATT_MTU − 3 octets (and 512),
    /// answered by a Write Response.
    public nonisolated(nonsending) func writeValue(_ value: [UInt8], handle: UInt16) async throws(GATTError) {
        try check(value, maximum: min(await currentMTU - 3, GATTClientSupport.maximumValueLength))
        let request = ATT.WriteRequest(handle: handle, value: value[...]).pdu
        let response = try await send(request)
        guard case .writeResponse = response else { throw .unexpected(response, to: request.opcode) }
    }

    /// Write Long Characteristic Values (Core 5.4 Vol 3 Part G §4.9.4) — and Write Long
    /// Characteristic Descriptors (§4.12.4): Prepare Write Requests carrying ATT_MTU − 5 octets
    /// each at increasing offsets, then an Execute Write Request that writes them. Up to 512
    /// octets. Each Prepare Write Response must echo its request; if one does not, or the server
    /// refuses a part after accepting others, the queue is cancelled (Execute Write, flags
    /// 0x00) and the procedure fails.
    public nonisolated(nonsending) func writeLongValue(_ value: [UInt8], handle: UInt16) async throws(GATTError) {
        try check(value, maximum: GATTClientSupport.maximumValueLength)
        try await prepareAndExecute([(handle, value)])
    }

    /// Reliable Writes (Core 5.4 Vol 3 Part G §4.9.5): every value is queued with Prepare
    /// Write Requests (in ATT_MTU − 5 octet parts, so a value may be long), each echo checked
    /// against what was sent, then all are written at once by one Execute Write Request; an
    /// echo that differs cancels them all (flags 0x00) and fails. Nothing is sent for no writes.
    public nonisolated(nonsending) func reliableWrite(_ writes: [(handle: UInt16, value: [UInt8])]) async throws(GATTError) {
        for write in writes { try check(write.value, maximum: GATTClientSupport.maximumValueLength) }
        guard !writes.isEmpty else { return }
        try await prepareAndExecute(writes.map { ($0.handle, $0.value) })
    }

    /// Write Characteristic Descriptors (Core 5.4 Vol 3 Part G §4.12.3): a Write Request.
    public nonisolated(nonsending) func writeDescriptor(_ value: [UInt8], handle: UInt16) async throws(GATTError) {
        try await writeValue(value, handle: handle)
    }

    /// Write Long Characteristic Descriptors (Core 5.4 Vol 3 Part G §4.12.4): Prepare Writes
    /// then Execute Write, as `writeLongValue`.
    public nonisolated(nonsending) func writeLongDescriptor(_ value: [UInt8], handle: UInt16) async throws(GATTError) {
        try await writeLongValue(value, handle: handle)
    }

    /// Refuses a value longer than `maximum` before anything is sent.
    private func check(_ value: [UInt8], maximum: Int) throws(GATTError) {
        guard value.count <= maximum else { throw .valueTooLong(length: value.count, maximum: maximum) }
    }

    /// Queues `writes` part by part, checking every echo, then executes them (§4.9.4, §4.9.5).
    /// On failure after the server may hold queued parts, the queue is cancelled (best effort:
    /// the first failure is what is thrown); a failed bearer is not asked again.
    private nonisolated(nonsending) func prepareAndExecute(_ writes: [(UInt16, [UInt8])]) async throws(GATTError) {
        let partLength = await currentMTU - 5
        var serverHoldsParts = false
        do throws(GATTError) {
            for (handle, value) in writes {
                var offset = 0
                repeat {
                    let part = value[offset..<min(offset + partLength, value.count)]
                    let prepare = ATT.PrepareWriteRequest(handle: handle, valueOffset: UInt16(offset), partValue: part)
                    let response = try await send(prepare.pdu)
                    serverHoldsParts = true
                    guard case .prepareWriteResponse(let echo) = response else {
                        throw GATTError.unexpected(response, to: prepare.pdu.opcode)
                    }
                    guard echo == ATT.PrepareWriteResponse(echoing: prepare) else {
                        throw GATTError.invalidResponse(
                            "Prepare Write Response (handle \(Hex.prefixed(echo.handle, width: 4)), offset "
                                + "\(echo.valueOffset), \(echo.partValue.count) octets) does not echo the request "
                                + "(handle \(Hex.prefixed(handle, width: 4)), offset \(offset), \(part.count) octets)")
                    }
                    offset += part.count
                } while offset < value.count
            }
        } catch {
            if serverHoldsParts, !error.isBearerFailure {
                _ = try? await execute(.cancel)
            }
            throw error
        }
        try await execute(.write)
    }

    /// Sends an Execute Write Request with `flags` and checks its response.
    private nonisolated(nonsending) func execute(_ flags: ATT.ExecuteWriteRequest.Flags) async throws(GATTError) {
        let request = ATT.ExecuteWriteRequest(flags: flags).pdu
        let response = try await send(request)
        guard case .executeWriteResponse = response else { throw .unexpected(response, to: request.opcode) }
    }

    // MARK: Client Characteristic Configuration

    /// Writes a Client Characteristic Configuration descriptor (Core 5.4 Vol 3 Part G §3.3.3.3,
    /// with Write Characteristic Descriptors, §4.12.3): `.notifications` (0x0001) enables
    /// Characteristic Value Notification (§4.10), `.indications` (0x0002) Characteristic Value
    /// Indications (§4.11), `[]` (0x0000) turns both off.
    public nonisolated(nonsending) func writeClientCharacteristicConfiguration(
        _ configuration: ClientCharacteristicConfiguration, descriptorHandle: UInt16
    ) async throws(GATTError) {
        try await writeDescriptor(configuration.octets, handle: descriptorHandle)
    }

    /// Subscribes to, or unsubscribes from, a characteristic's value updates through its Client
    /// Characteristic Configuration descriptor, as Core Bluetooth's `setNotifyValue(_:for:)`:
    /// notifications when the characteristic has `notify`, else indications when it has
    /// `indicate`; neither is `.propertyNotSupported`, refused before sending. Disabling writes
    /// 0x0000 whatever the properties.
    public nonisolated(nonsending) func setNotifyValue(
        _ enabled: Bool, for characteristic: DiscoveredCharacteristic, descriptorHandle: UInt16
    ) async throws(GATTError) {
        let configuration: ClientCharacteristicConfiguration
        if !enabled {
            configuration = []
        } else if characteristic.properties.contains(.notify) {
            configuration = .notifications
        } else if characteristic.properties.contains(.indicate) {
            configuration = .indications
        } else {
            throw .propertyNotSupported(required: [.notify, .indicate])
        }
        try await writeClientCharacteristicConfiguration(configuration, descriptorHandle: descriptorHandle)
    }
}

extension GATTError {
    /// The bearer itself failed: nothing more can be sent over it.
    var isBearerFailure: Bool {
        if case .bearer = self { return true }
        return false
    }
}
