import BLEWire

extension Host {
    /// Dispatches one event from the controller.
    func handle(_ event: HCIEvent) {
        switch event {
        case .commandComplete(let complete):
            commandCompleted(
                opcode: complete.opcode, credits: complete.numHCICommandPackets, outcome: .complete(complete))
        case .commandStatus(let status):
            commandCompleted(
                opcode: status.opcode, credits: status.numHCICommandPackets, outcome: .status(status.status))
        case .numberOfCompletedPackets(let completed):
            for entry in completed.entries {
                acl.completed(Int(entry.numCompletedPackets), on: entry.connectionHandle)
            }
            pumpACL()
        case .disconnectionComplete(let disconnection):
            guard disconnection.status.isSuccess else { return emit(.other(event)) }
            linkDown(disconnection.connectionHandle, reason: disconnection.reason)
        case .encryptionChange(let change):
            encryptionChanged(
                change.connectionHandle, enabled: change.encryptionEnabled != .off, keySize: nil, status: change.status)
        case .encryptionChangeV2(let change):
            encryptionChanged(
                change.connectionHandle, enabled: change.encryptionEnabled != .off,
                keySize: Int(change.encryptionKeySize), status: change.status)
        case .encryptionKeyRefreshComplete(let refresh):
            keyRefreshed(refresh.connectionHandle, status: refresh.status)
        case .hardwareError(let error):
            emit(.hardwareError(error.hardwareCode))
        case .dataBufferOverflow:
            // Vol 4 Part E §7.7.26: the controller had no buffer for an ACL packet this host
            // sent within its credits — the packet, and the PDU it belonged to, are lost.
            statistics.controllerBufferOverflows += 1
            logger.warning(
                "the controller dropped an ACL packet: Data Buffer Overflow (its buffers are not as announced)")
            emit(.other(event))
        case .le(let meta):
            handle(meta, event: event)
        default:
            emit(.other(event))
        }
    }

    private func handle(_ meta: LEMetaEvent, event: HCIEvent) {
        switch meta {
        case .advertisingReport(let reports):
            for report in reports.reports { emit(.advertisingReport(resolved(report))) }
        case .extendedAdvertisingReport(let reports):
            for report in reports.reports { emit(.extendedAdvertisingReport(resolved(report))) }
        case .connectionComplete(let complete):
            linkUp(
                status: complete.status, handle: complete.connectionHandle, role: complete.role,
                peer: complete.peerAddress, interval: complete.connectionInterval,
                latency: complete.peripheralLatency, timeout: complete.supervisionTimeout)
        case .enhancedConnectionComplete(let complete):
            linkUp(
                status: complete.status, handle: complete.connectionHandle, role: complete.role,
                peer: complete.peerAddress, interval: complete.connectionInterval,
                latency: complete.peripheralLatency, timeout: complete.supervisionTimeout)
        case .enhancedConnectionCompleteV2(let complete):
            let v1 = complete.v1
            linkUp(
                status: v1.status, handle: v1.connectionHandle, role: v1.role, peer: v1.peerAddress,
                interval: v1.connectionInterval, latency: v1.peripheralLatency, timeout: v1.supervisionTimeout)
        case .connectionUpdateComplete(let update):
            updateConnection(update.connectionHandle, in: "LE Connection Update Complete", status: update.status) {
                info in
                info.connectionInterval = update.connectionInterval
                info.peripheralLatency = update.peripheralLatency
                info.supervisionTimeout = update.supervisionTimeout
            }
            linkProcedureEnded(.connectionUpdate, on: update.connectionHandle, status: update.status)
        case .dataLengthChange(let change):
            updateConnection(change.connectionHandle, in: "LE Data Length Change") { info in
                info.maxTxOctets = change.maxTxOctets
                info.maxRxOctets = change.maxRxOctets
                info.maxTxTime = change.maxTxTime
                info.maxRxTime = change.maxRxTime
            }
        case .phyUpdateComplete(let update):
            updateConnection(update.connectionHandle, in: "LE PHY Update Complete", status: update.status) { info in
                info.txPHY = update.txPHY
                info.rxPHY = update.rxPHY
            }
            linkProcedureEnded(.phyUpdate, on: update.connectionHandle, status: update.status)
        case .longTermKeyRequest(let request):
            receivedLongTermKeyRequest(request)
        case .remoteConnectionParameterRequest(let request):
            receivedRemoteParameterRequest(request)
        default:
            emit(.other(event))
        }
    }

    private func linkUp(
        status: HCIStatus, handle: ConnectionHandle, role: LEMetaEvent.Role, peer: LEAddress, interval: UInt16,
        latency: UInt16, timeout: UInt16
    ) {
        guard status.isSuccess else {
            logger.debug("connection failed: \(status)")
            return emit(.connectionFailed(status))
        }
        guard connections[handle] == nil else {
            // The controller broke the handle's lifetime (§7.7.65.1). The live link keeps its
            // bearer and whatever waits on it; the event is dropped.
            statistics.connectionCompletesForLiveHandles += 1
            logger.warning("dropped an LE Connection Complete for handle \(handle): that link is already up")
            return
        }
        let info = ConnectionInfo(
            handle: handle, role: role, peerAddress: resolvedPeer(peer), connectionInterval: interval, peripheralLatency: latency,
            supervisionTimeout: timeout)
        connections[handle] = info
        logger.debug("link \(handle) up as \(role) with \(peer)")
        acl.addLink(handle)
        bearers[handle] = ATTBearerState(
            ATTBearer(
                preferredMTU: bearerMTU, transactionTimeout: configuration.attTransactionTimeout))
        securityLinkUp(info)
        emit(.connected(info))
        deliverEarlyACL(for: handle)
        startLinkNegotiation(info)
    }

    /// The link is gone: flow-control credits come back, reassembly and ATT transactions end.
    func linkDown(_ handle: ConnectionHandle, reason: HCIStatus) {
        guard connections.removeValue(forKey: handle) != nil else {
            return unknownHandle(handle, in: "Disconnection Complete")
        }
        logger.debug("link \(handle) down: \(reason)")
        acl.removeLink(handle)
        reassembler.reset(handle: handle)
        failBearer(handle, with: .disconnected(reason: reason))
        channelsLinkDown(handle, reason: reason)
        linkControl.linkEnded(handle, reason: reason)
        securityLinkDown(handle, reason: reason)
        if let server = attServer { spawn { await server.connectionEnded(handle) } }
        emit(.disconnected(handle: handle, reason: reason))
        pumpACL()
    }

    /// An event about a connection this host does not know: dropped, counted and logged.
    /// Applies a parameter change an LE event reports to the connection it names and tells the
    /// observers; an event for a handle with no connection is logged and counted, a failed
    /// update (`status`) only logged: the link keeps its parameters.
    private func updateConnection(
        _ handle: ConnectionHandle, in event: String, status: HCIStatus = .success,
        _ change: (inout ConnectionInfo) -> Void
    ) {
        guard status.isSuccess else { return logger.debug("\(event) on \(handle): the update failed, \(status)") }
        guard let index = connections.index(forKey: handle) else { return unknownHandle(handle, in: event) }
        change(&connections.values[index])
        emit(.connectionUpdated(connections.values[index]))
    }

    func unknownHandle(_ handle: ConnectionHandle, in event: String) {
        statistics.eventsForUnknownHandle += 1
        logger.notice("dropped \(event) for handle \(handle): no such connection")
    }

    /// Disconnects a link (API or protocol-violation policy).
    public func disconnect(_ handle: ConnectionHandle, reason: HCIStatus = .remoteUserTerminatedConnection) async {
        do throws(HostError) {
            try await send(HCI.Disconnect(connectionHandle: handle, reason: reason))
        } catch {
            ownCommandFailed("Disconnect of handle \(handle)", error)
        }
    }
}
