import BLEWire

/// Connection parameters a peripheral asks for, both ways: the central answers by its policy's
/// limits (`LinkPolicy.acceptedParameters`), the peripheral asks through the LL Connection
/// Parameters Request procedure when its controller has it, else through L2CAP (Core 5.4 Vol 3
/// Part A §4.20–§4.21; Vol 4 Part E §7.7.65.6, §7.8.18, §7.8.31, §7.8.32).
extension Host {
    /// How a peripheral's request for connection parameters ended.
    public enum ParameterRequestOutcome: Sendable, Hashable {
        /// The central took the parameters and updated the link (its new state is in
        /// `connection(_:)`).
        case accepted
        /// The central refused them (L2CAP result 0x0001, or the LL procedure's status).
        case rejected(HCIStatus)
    }

    /// Why the policy refuses the parameters, nil when it accepts them.
    private func parameterViolation(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16)
        -> String?
    {
        configuration.linkPolicy.acceptedParameters.violation(
            intervalMin: intervalMin, intervalMax: intervalMax, latency: latency, timeout: timeout)
    }

    /// An L2CAP Connection Parameter Update Request (Vol 3 Part A §4.20): as central, answered
    /// by the policy; accepted parameters go to the controller (LE Connection Update).
    func receivedParameterUpdateRequest(
        _ request: L2CAPSignal.ConnectionParameterUpdateRequest, identifier: UInt8, on handle: ConnectionHandle
    ) {
        guard connections[handle]?.role == .central else {
            // Only a peripheral sends this request (§4.20).
            statistics.badL2CAPSignals += 1
            logger.warning("dropped a Connection Parameter Update Request on handle \(handle): not central")
            return
        }
        let violation =
            (try? request.validate()) == nil
            ? "outside the specification's ranges"
            : parameterViolation(
                intervalMin: request.intervalMin, intervalMax: request.intervalMax,
                latency: request.peripheralLatency, timeout: request.timeoutMultiplier)
        if let violation {
            logger.debug("link \(handle): rejected the peer's connection parameters, \(violation)")
        }
        let response = L2CAPSignal(
            identifier: identifier,
            command: .connectionParameterUpdateResponse(.init(result: violation == nil ? .accepted : .rejected)))
        sendL2CAP(response.encoded, channel: .leSignaling, on: handle, priority: .signaling)
        guard violation == nil else { return }
        let parameters = HCI.ConnectionParameters(
            connectionIntervalMin: request.intervalMin, connectionIntervalMax: request.intervalMax,
            maxLatency: request.peripheralLatency, supervisionTimeout: request.timeoutMultiplier)
        spawn {
            do throws(HostError) {
                try await self.send(HCI.LEConnectionUpdate(connectionHandle: handle, connectionParameters: parameters))
            } catch {
                await self.ownCommandFailed("LE Connection Update asked for by the peer", error)
            }
        }
    }

    /// LE Remote Connection Parameter Request (§7.7.65.6): the peripheral's LL Connection
    /// Parameters Request, answered with a Reply (§7.8.31) when the policy accepts it, else a
    /// Negative Reply with Unacceptable Connection Parameters (§7.8.32).
    func receivedRemoteParameterRequest(_ request: LEMetaEvent.RemoteConnectionParameterRequest) {
        let handle = request.connectionHandle
        let violation = parameterViolation(
            intervalMin: request.intervalMin, intervalMax: request.intervalMax, latency: request.maxLatency,
            timeout: request.timeout)
        if let violation {
            logger.debug("link \(handle): rejected the peer's connection parameters, \(violation)")
        }
        spawn {
            do throws(HostError) {
                if violation == nil {
                    try await self.send(
                        HCI.LERemoteConnectionParameterRequestReply(
                            connectionHandle: handle,
                            connectionParameters: HCI.ConnectionParameters(
                                connectionIntervalMin: request.intervalMin, connectionIntervalMax: request.intervalMax,
                                maxLatency: request.maxLatency, supervisionTimeout: request.timeout)))
                } else {
                    try await self.send(
                        HCI.LERemoteConnectionParameterRequestNegativeReply(
                            connectionHandle: handle, reason: .unacceptableConnectionParameters))
                }
            } catch {
                await self.ownCommandFailed("the answer to the peer's connection parameter request", error)
            }
        }
    }

    /// The central's answer to one of our Connection Parameter Update Requests (§4.21).
    func receivedParameterUpdateResponse(
        _ response: L2CAPSignal.ConnectionParameterUpdateResponse, identifier: UInt8, on handle: ConnectionHandle
    ) {
        guard let pending = linkControl.parameterRequests[identifier], pending.handle == handle else {
            statistics.badL2CAPSignals += 1
            logger.notice("dropped a Connection Parameter Update Response on handle \(handle): nothing asked")
            return
        }
        linkControl.parameterRequests[identifier] = nil
        pending.waiter.resume(returning: response.result == .accepted ? .accepted : .rejected)
    }

    private func parameterRequestTimedOut(_ identifier: UInt8) {
        guard let pending = linkControl.parameterRequests.removeValue(forKey: identifier) else { return }
        statistics.linkProcedureTimeouts += 1
        logger.warning("link \(pending.handle): no answer to our Connection Parameter Update Request in 30 s")
        pending.waiter.resume(returning: .timedOut)
    }

    /// As peripheral, asks the central for connection parameters and returns its answer; when
    /// it accepts, returns once the link runs with the new ones (LE Connection Update Complete).
    /// Through the LL Connection Parameters Request procedure when the local controller has it
    /// (LE Connection Update from the peripheral, §7.8.18), falling back to L2CAP when the
    /// central's controller lacks it (0x1A Unsupported Remote Feature, §7.7.65.3).
    public func requestConnectionParameters(_ handle: ConnectionHandle, _ parameters: HCI.ConnectionParameters)
        async throws(HostError) -> ParameterRequestOutcome
    {
        guard let info = connections[handle], info.role == .peripheral else {
            throw .commandFailed(HCI.LEConnectionUpdate.opcode, .commandDisallowed)
        }
        if controllerInfo.leFeatures.contains(.connectionParametersRequestProcedure) {
            let status = try await updateConnection(handle, parameters)
            if status.isSuccess { return .accepted }
            if status != .unsupportedRemoteFeature && status != .unknownLMPPDU { return .rejected(status) }
            logger.debug("link \(handle): the central lacks the LL procedure; asking through L2CAP")
        }
        return try await requestParametersThroughL2CAP(handle, parameters)
    }

    /// The L2CAP Connection Parameter Update Request (Vol 3 Part A §4.20).
    private func requestParametersThroughL2CAP(_ handle: ConnectionHandle, _ p: HCI.ConnectionParameters)
        async throws(HostError) -> ParameterRequestOutcome
    {
        let identifier = linkControl.makeSignalIdentifier()
        let request = L2CAPSignal(
            identifier: identifier,
            command: .connectionParameterUpdateRequest(
                .init(
                    intervalMin: p.connectionIntervalMin, intervalMax: p.connectionIntervalMax,
                    peripheralLatency: p.maxLatency, timeoutMultiplier: p.supervisionTimeout)))
        // The update that follows an acceptance is expected before the request goes out, so
        // that its completion is never missed.
        let key = LinkControl.ProcedureKey(handle: handle, procedure: .connectionUpdate)
        guard linkControl.procedures[key] == nil else {
            throw .commandFailed(HCI.LEConnectionUpdate.opcode, .commandDisallowed)
        }
        linkControl.procedures[key] = .expecting
        // The signalling response timeout (RTX: 1–60 s, Vol 3 Part A §6.2.1): 30 s here.
        let clock = self.clock
        let watchdog = spawn {
            do {
                try await clock.sleep(for: .seconds(30))
            } catch {
                return
            }
            await self.parameterRequestTimedOut(identifier)
        }
        let answer = await withCheckedContinuation {
            (waiter: CheckedContinuation<LinkControl.ParameterAnswer, Never>) in
            linkControl.parameterRequests[identifier] = (handle, waiter)
            sendL2CAP(request.encoded, channel: .leSignaling, on: handle, priority: .signaling)
        }
        watchdog.cancel()
        guard case .accepted = answer else {
            if case .expecting? = linkControl.procedures[key] { linkControl.procedures[key] = nil }
            switch answer {
            case .linkLost: throw .commandFailed(HCI.LEConnectionUpdate.opcode, .unknownConnectionIdentifier)
            case .timedOut: return .rejected(.llResponseTimeout)
            case .accepted, .rejected: return .rejected(.unacceptableConnectionParameters)
            }
        }
        let status = await procedureEnd(.connectionUpdate, on: handle)
        // The central accepted: a controller that reports no update (nothing changed for it)
        // leaves the link as it was, which is still an acceptance.
        return status.isSuccess || status == .llResponseTimeout ? .accepted : .rejected(status)
    }
}
