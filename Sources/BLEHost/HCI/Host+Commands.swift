import BLETransport
import BLEWire

extension HCI.SetEventMask {
    /// The events this host handles (Core 5.4 Vol 4 Part E §7.3.1).
    public static let hostDefault: HCI.EventMask = [
        .disconnectionComplete, .encryptionChange, .readRemoteVersionInformationComplete, .hardwareError,
        .dataBufferOverflow, .encryptionKeyRefreshComplete, .leMeta,
    ]
}

extension HCI.LESetEventMask {
    /// The LE subevents this host handles (Core 5.4 Vol 4 Part E §7.8.1).
    public static let hostDefault: HCI.LEEventMask = [
        .connectionComplete, .advertisingReport, .connectionUpdateComplete, .readRemoteFeaturesComplete,
        .longTermKeyRequest, .remoteConnectionParameterRequest, .dataLengthChange, .enhancedConnectionComplete,
        .phyUpdateComplete, .extendedAdvertisingReport,
    ]
}

extension Host {
    /// Sends a command answered by Command Complete and returns its typed return parameters;
    /// a failure status throws `.commandFailed`.
    @discardableResult
    public func send<C: HCICommandWithCompleteEvent>(_ command: C) async throws(HostError) -> C.ReturnParameters {
        switch await execute(command.packet) {
        case .complete(let complete):
            if let status = complete.status, !status.isSuccess { throw .commandFailed(C.opcode, status) }
            do {
                return try complete.returnParameters(for: C.self)
            } catch {
                throw .invalidReturnParameters(C.opcode, error)
            }
        case .status(let status):
            // A controller may answer any command with Command Status (e.g. Unknown HCI Command).
            throw .commandFailed(C.opcode, status.isSuccess ? .unspecifiedError : status)
        case .timedOut: throw .commandTimeout(C.opcode)
        case .stopped: throw stoppedError
        }
    }

    /// Sends a command answered by Command Status; a failure status throws `.commandFailed`.
    /// The command's own completion event arrives later on `events`.
    public func send<C: HCICommandWithStatusEvent>(_ command: C) async throws(HostError) {
        switch await execute(command.packet) {
        case .status(let status):
            if !status.isSuccess { throw .commandFailed(C.opcode, status) }
        case .complete(let complete):
            // Unknown commands may come back as Command Complete with their status.
            let status = complete.status ?? .unspecifiedError
            if !status.isSuccess { throw .commandFailed(C.opcode, status) }
        case .timedOut: throw .commandTimeout(C.opcode)
        case .stopped: throw stoppedError
        }
    }

    /// Why a command could not run on a stopped host: its transport's end, when that stopped it.
    var stoppedError: HostError { lostTransport.map { .transport($0) } ?? .stopped }

    /// Queues a command packet, sends it when the controller has a credit, and waits for its
    /// completion or the command timeout.
    func execute(_ packet: HCICommandPacket) async -> CommandFlow.CommandOutcome {
        guard case .running = runState else { return .stopped }
        return await withCheckedContinuation { continuation in
            // The host may have stopped before this body ran (see `Host.waitingInPlace`).
            guard case .running = runState else { return continuation.resume(returning: .stopped) }
            let id = commandFlow.makeID()
            commandFlow.enqueue(CommandFlow.Pending(id: id, packet: packet, completion: continuation))
            pumpCommands()
        }
    }

    /// Sends what the credits allow and arms a timeout for each command sent.
    func pumpCommands() {
        for pending in commandFlow.takeSendable() {
            let id = pending.id
            let timeout = configuration.commandTimeout
            commandTimers[id] = spawn {
                do {
                    try await self.clock.sleep(for: timeout)
                } catch {
                    return
                }
                await self.commandTimedOut(id)
            }
            transmit(H4Packet(command: pending.packet))
        }
    }

    private func commandTimedOut(_ id: UInt64) {
        commandTimers[id] = nil
        guard let pending = commandFlow.timeOut(id: id) else { return }
        statistics.commandTimeouts += 1
        logger.warning(
            "command \(pending.packet.opcode) got no Command Complete or Status within \(configuration.commandTimeout)")
        pending.completion.resume(returning: .timedOut)
        pumpCommands()
    }

    /// Command Complete / Command Status from the controller.
    func commandCompleted(opcode: HCIOpcode, credits: UInt8, outcome: CommandFlow.CommandOutcome) {
        if let pending = commandFlow.complete(opcode: opcode, credits: credits) {
            commandTimers.removeValue(forKey: pending.id)?.cancel()
            pending.completion.resume(returning: outcome)
        } else if opcode.rawValue != 0 {
            // Opcode 0x0000 only hands back credits (Core 5.4 Vol 4 Part E §7.7.14); any other
            // answers no command in flight (one that timed out, or a confused controller).
            statistics.unexpectedCommandCompletes += 1
            logger.notice("dropped the completion of command \(opcode): no such command outstanding")
        }
        pumpCommands()
    }

    /// The initialisation sequence. Only Reset is required; a command the controller lacks
    /// (Unknown HCI Command, or no answer before the timeout) is skipped and the host goes on
    /// without that feature.
    func initialize() async throws(HostError) {
        _ = try await send(HCI.Reset())
        var info = ControllerInfo()
        info.version = try? await send(HCI.ReadLocalVersionInformation())
        info.address = (try? await send(HCI.ReadBDADDR()))?.bdAddr
        info.supportedCommands = (try? await send(HCI.ReadLocalSupportedCommands()))?.supportedCommands
        _ = try? await send(HCI.SetEventMask(eventMask: configuration.eventMask))
        _ = try? await send(HCI.LESetEventMask(leEventMask: configuration.leEventMask))
        if let address = configuration.randomStaticAddress {
            // Required when asked for: advertising under another address than the one asked
            // for would be worse than failing to start.
            guard LEAddress(address, type: .random).kind == .randomStatic else {
                throw .invalidRandomStaticAddress(address)
            }
            try await send(HCI.LESetRandomAddress(randomAddress: address))
            ownAddress = LEAddress(address, type: .random)
        } else if let address = info.address, address != .zero {
            ownAddress = LEAddress(address, type: .public)
        } else {
            // No usable identity: a random static address keeps this device apart from others
            // on the same controller model (Vol 6 Part B §1.3.2.1).
            var generator = SystemRandomNumberGenerator()
            let address = BluetoothAddress.randomStatic(using: &generator)
            if (try? await send(HCI.LESetRandomAddress(randomAddress: address))) != nil {
                ownAddress = LEAddress(address, type: .random)
            }
        }
        info.leFeatures = (try? await send(HCI.LEReadLocalSupportedFeatures()))?.leFeatures ?? []
        if let length = configuration.linkPolicy.dataLength, info.leFeatures.contains(.leDataPacketLengthExtension) {
            // New links, whoever starts them, offer the policy's data length (§7.8.35).
            _ = try? await send(
                HCI.LEWriteSuggestedDefaultDataLength(
                    suggestedMaxTXOctets: length.octets, suggestedMaxTXTime: length.time))
        }
        // LE buffers: v2, else v1; zero LE buffers means the shared BR/EDR buffers apply
        // (Vol 4 Part E §7.8.2).
        var size = 0
        var count = 0
        if let v2 = try? await send(HCI.LEReadBufferSizeV2()) {
            size = Int(v2.leACLDataPacketLength)
            count = Int(v2.totalNumLEACLDataPackets)
        } else if let v1 = try? await send(HCI.LEReadBufferSize()) {
            size = Int(v1.leACLDataPacketLength)
            count = Int(v1.totalNumLEACLDataPackets)
        }
        if size == 0 || count == 0, let shared = try? await send(HCI.ReadBufferSize()) {
            size = Int(shared.aclDataPacketLength)
            count = Int(shared.totalNumACLDataPackets)
        }
        info.aclBufferSize = max(size, 27)
        info.aclBufferCount = max(count, 1)
        acl.configure(bufferSize: info.aclBufferSize, bufferCount: info.aclBufferCount)
        controllerInfo = info
        await startPrivacy()
        logger.debug(
            """
            controller ready: address \(ownAddress.map { "\($0)" } ?? "none"), \
            LE ACL buffers \(info.aclBufferCount) × \(info.aclBufferSize) octets, LE features \(Rendering.text(info.leFeatures))
            """)
    }
}
