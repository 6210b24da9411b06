import BLEWire

/// The peer's signalling commands about credit based channels (Core 5.4 Vol 3 Part A §4).
extension CreditBasedChannels {
    /// What a signalling command from the peer does; nil when it is not about credit based
    /// channels (connection parameter updates, unknown commands: the host's).
    package mutating func received(
        _ signal: L2CAPSignal, on handle: ConnectionHandle, security: L2CAPLinkSecurity, at now: Duration
    ) -> [Action]? {
        let id = signal.identifier
        switch signal.command {
        case .leCreditBasedConnectionRequest(let request):
            return acceptLE(request, identifier: id, on: handle, security: security)
        case .creditBasedConnectionRequest(let request):
            return acceptEnhanced(request, identifier: id, on: handle, security: security)
        case .leCreditBasedConnectionResponse(let response):
            guard case .connect(let token, let psm, .leCreditBased, let cids, _)? = outstanding[RequestKey(handle: handle, identifier: id)]
            else { return [] }
            outstanding[RequestKey(handle: handle, identifier: id)] = nil
            let (opened, result) = openedLE(response, cid: cids[0], psm: psm, on: handle)
            return finishConnect(token: token, opened, result, on: handle)
        case .creditBasedConnectionResponse(let response):
            // §4.26: pending results leave the request waiting for the final response.
            switch response.result {
            case .allPendingNoFurtherInformation, .allPendingAuthentication, .allPendingAuthorization: return []
            default: break
            }
            guard case .connect(let token, let psm, .enhancedCreditBased, let cids, _)? = outstanding[RequestKey(handle: handle, identifier: id)]
            else { return [] }
            outstanding[RequestKey(handle: handle, identifier: id)] = nil
            let (opened, result) = openedEnhanced(response, cids: cids, psm: psm, on: handle)
            return finishConnect(token: token, opened, result, on: handle)
        case .flowControlCreditIndication(let indication):
            return credits(indication, on: handle, at: now)
        case .disconnectionRequest(let request):
            return peerDisconnects(request, identifier: id, on: handle)
        case .disconnectionResponse:
            guard case .disconnect(let key, _)? = takeOutstanding(handle, id) else { return [] }
            channels[key] = nil
            return []
        case .creditBasedReconfigureRequest(let request):
            return peerReconfigures(request, identifier: id, on: handle)
        case .creditBasedReconfigureResponse(let response):
            guard case .reconfigure(let token, let keys, let mtu, let mps, _)? = takeOutstanding(handle, id) else {
                return []
            }
            guard response.result == .success else {
                return [.reconfigured(token: token, .invalidResponse("reconfiguration refused: \(response.result.rawValue)"))]
            }
            for key in keys { channels[key]?.reconfiguredLocal(mtu: mtu, mps: mps) }
            return [.reconfigured(token: token, nil)]
        case .commandReject:
            // A reject of one of our requests ends it; a reject of someone else's request (a
            // connection parameter update) is not ours.
            guard let request = takeOutstanding(handle, id) else { return nil }
            switch request {
            case .connect(let token, _, _, _, _): return [.connected(token: token, .failure(.commandRejected))]
            case .disconnect(let key, _):
                channels[key] = nil
                return []
            case .reconfigure(let token, _, _, _, _): return [.reconfigured(token: token, .commandRejected)]
            }
        case .connectionParameterUpdateRequest, .connectionParameterUpdateResponse, .unknown:
            return nil
        }
    }

    // MARK: The peer opens

    /// The refusal the server's security gives this link, if any (§4.23, §4.26).
    private func securityRefusal(_ required: L2CAPChannelSecurity, _ link: L2CAPLinkSecurity) -> L2CAPRefusal? {
        if required.authentication && !link.isAuthenticated { return .insufficientAuthentication }
        if required.encryption && !link.isEncrypted { return .insufficientEncryption }
        if link.isEncrypted && (required.encryption || required.authentication) && link.keySize < required.minimumKeySize {
            return .encryptionKeySizeTooShort
        }
        if required.authorization && !link.isAuthorized { return .insufficientAuthorization }
        return nil
    }

    /// L2CAP_LE_CREDIT_BASED_CONNECTION_REQ (§4.22): answer with a channel or a refusal (§4.23).
    private mutating func acceptLE(
        _ request: L2CAPSignal.LECreditBasedConnectionRequest, identifier: UInt8, on handle: ConnectionHandle,
        security: L2CAPLinkSecurity
    ) -> [Action] {
        func refuse(_ refusal: L2CAPRefusal) -> [Action] {
            [.send(L2CAPSignal(identifier: identifier, command: .leCreditBasedConnectionResponse(.refused(refusal.leResult))), on: handle)]
        }
        if let result = request.refusal { return refuse(L2CAPRefusal(result)) }
        guard let server = server(request.spsm) else { return refuse(.spsmNotSupported) }
        if let refusal = securityRefusal(server.security, security) { return refuse(refusal) }
        if peerCIDInUse(request.sourceCID, on: handle) { return refuse(.sourceCIDAlreadyAllocated) }
        guard openChannels(to: request.spsm) < server.maximumChannels,
            let cid = freeLocalCIDs(on: handle, count: 1).first
        else { return refuse(.noResources) }
        allocated(cid, on: handle)
        let config = configuration
        let key = L2CAPChannelKey(handle: handle, localCID: cid)
        channels[key] = CreditBasedChannel(
            mode: .leCreditBased, psm: request.spsm, localCID: cid, peerCID: request.sourceCID, localMTU: config.mtu,
            localMPS: config.mps, peerMTU: Int(request.mtu), peerMPS: Int(request.mps),
            txCredits: Int(request.initialCredits), rxCredits: config.initialCredits)
        let response = L2CAPSignal.LECreditBasedConnectionResponse(
            destinationCID: cid, mtu: UInt16(config.mtu), mps: UInt16(config.mps),
            initialCredits: UInt16(config.initialCredits), result: .success)
        return [.send(response.signal(identifier: identifier), on: handle), .accepted([key])]
    }

    /// L2CAP_CREDIT_BASED_CONNECTION_REQ (§4.25): up to five channels, each accepted or refused
    /// on its own (a refused one's Destination CID is 0x0000, §4.26).
    private mutating func acceptEnhanced(
        _ request: L2CAPSignal.CreditBasedConnectionRequest, identifier: UInt8, on handle: ConnectionHandle,
        security: L2CAPLinkSecurity
    ) -> [Action] {
        let local = enhancedLocal
        func respond(_ result: L2CAPSignal.CreditBasedConnectionResponse.Result, _ cids: [UInt16]) -> Action {
            let accepted = cids.contains { $0 != 0 }
            let response = L2CAPSignal.CreditBasedConnectionResponse(
                mtu: accepted ? UInt16(local.mtu) : 0, mps: accepted ? UInt16(local.mps) : 0,
                initialCredits: accepted ? UInt16(configuration.initialCredits) : 0, result: result,
                destinationCIDs: L2CAPSignal.CIDList(cids) ?? [])
            return .send(response.signal(identifier: identifier), on: handle)
        }
        let none = Array(repeating: UInt16(0), count: request.sourceCIDs.count)
        if !L2CAPSignal.enhancedMTURange.contains(Int(request.mtu))
            || !L2CAPSignal.enhancedMPSRange.contains(Int(request.mps))
        {
            return [respond(.allRefusedInvalidParameters, none)]
        }
        guard L2CAPSignal.LECreditBasedConnectionRequest.spsmRange.contains(Int(request.spsm)),
            let server = server(request.spsm)
        else { return [respond(.allRefusedSPSMNotSupported, none)] }
        if let refusal = securityRefusal(server.security, security) { return [respond(refusal.enhancedResult, none)] }
        var result = L2CAPSignal.CreditBasedConnectionResponse.Result.allSuccessful
        var answered: [UInt16] = []
        var keys: [L2CAPChannelKey] = []
        var sources = Set<UInt16>()
        for source in request.sourceCIDs {
            let refusal: L2CAPRefusal?
            if !L2CAPSignal.leDynamicCIDs.contains(source) {
                refusal = .invalidSourceCID
            } else if peerCIDInUse(source, on: handle) || !sources.insert(source).inserted {
                refusal = .sourceCIDAlreadyAllocated
            } else if openChannels(to: request.spsm) >= server.maximumChannels {
                refusal = .noResources
            } else if freeLocalCIDs(on: handle, count: 1).isEmpty {
                refusal = .noResources
            } else {
                refusal = nil
            }
            if let refusal {
                result = refusal.enhancedResult
                answered.append(0)
                continue
            }
            let cid = freeLocalCIDs(on: handle, count: 1)[0]
            allocated(cid, on: handle)
            let key = L2CAPChannelKey(handle: handle, localCID: cid)
            channels[key] = CreditBasedChannel(
                mode: .enhancedCreditBased, psm: request.spsm, localCID: cid, peerCID: source, localMTU: local.mtu,
                localMPS: local.mps, peerMTU: Int(request.mtu), peerMPS: Int(request.mps),
                txCredits: Int(request.initialCredits), rxCredits: configuration.initialCredits)
            answered.append(cid)
            keys.append(key)
        }
        return keys.isEmpty ? [respond(result, answered)] : [respond(result, answered), .accepted(keys)]
    }

    /// This end's MTU and MPS on enhanced channels (§4.25: at least 64 each).
    var enhancedLocal: (mtu: Int, mps: Int) { (max(configuration.mtu, 64), max(configuration.mps, 64)) }

    // MARK: The peer answers

    /// Our connection request ended: the channels it opened join the table.
    private mutating func finishConnect(
        token: UInt64, _ opened: [CreditBasedChannel], _ result: Result<Void, L2CAPChannelError>, on handle: ConnectionHandle
    ) -> [Action] {
        var keys: [L2CAPChannelKey] = []
        for channel in opened {
            let key = L2CAPChannelKey(handle: handle, localCID: channel.localCID)
            channels[key] = channel
            keys.append(key)
        }
        switch result {
        case .failure(let error) where keys.isEmpty: return [.connected(token: token, .failure(error))]
        default: return [.connected(token: token, .success(keys))]
        }
    }

    private func openedLE(
        _ response: L2CAPSignal.LECreditBasedConnectionResponse, cid: UInt16, psm: UInt16, on handle: ConnectionHandle
    ) -> ([CreditBasedChannel], Result<Void, L2CAPChannelError>) {
        guard response.result == .success else { return ([], .failure(.refused(L2CAPRefusal(response.result)))) }
        do throws(DecodeError) {
            try response.validate()
        } catch {
            return ([], .failure(.invalidResponse("\(error)")))
        }
        guard !peerCIDInUse(response.destinationCID, on: handle) else {
            return ([], .failure(.invalidResponse("Destination CID \(response.destinationCID) already in use")))
        }
        let config = configuration
        let channel = CreditBasedChannel(
            mode: .leCreditBased, psm: psm, localCID: cid, peerCID: response.destinationCID, localMTU: config.mtu,
            localMPS: config.mps, peerMTU: Int(response.mtu), peerMPS: Int(response.mps),
            txCredits: Int(response.initialCredits), rxCredits: config.initialCredits)
        return ([channel], .success(()))
    }

    private func openedEnhanced(
        _ response: L2CAPSignal.CreditBasedConnectionResponse, cids: [UInt16], psm: UInt16, on handle: ConnectionHandle
    ) -> ([CreditBasedChannel], Result<Void, L2CAPChannelError>) {
        let refusal: Result<Void, L2CAPChannelError> =
            response.result == .allSuccessful ? .success(()) : .failure(.refused(L2CAPRefusal(response.result)))
        guard L2CAPSignal.enhancedMTURange.contains(Int(response.mtu)),
            L2CAPSignal.enhancedMPSRange.contains(Int(response.mps))
        else {
            if case .failure = refusal { return ([], refusal) }
            return ([], .failure(.invalidResponse("MTU \(response.mtu) or MPS \(response.mps) below 64")))
        }
        let local = enhancedLocal
        var opened: [CreditBasedChannel] = []
        var seen = Set<UInt16>()
        for (index, cid) in cids.enumerated() where index < response.destinationCIDs.count {
            let peer = response.destinationCIDs[index]
            // 0x0000: refused; an out-of-range or repeated CID is unusable.
            guard peer != 0, L2CAPSignal.leDynamicCIDs.contains(peer), !peerCIDInUse(peer, on: handle),
                seen.insert(peer).inserted
            else { continue }
            opened.append(
                CreditBasedChannel(
                    mode: .enhancedCreditBased, psm: psm, localCID: cid, peerCID: peer, localMTU: local.mtu,
                    localMPS: local.mps, peerMTU: Int(response.mtu), peerMPS: Int(response.mps),
                    txCredits: Int(response.initialCredits), rxCredits: configuration.initialCredits))
        }
        return (opened, refusal)
    }

    // MARK: Credits, disconnection, reconfiguration

    /// L2CAP_FLOW_CONTROL_CREDIT_IND (§4.24): `cid` is the peer's end of the channel.
    private mutating func credits(
        _ indication: L2CAPSignal.FlowControlCreditIndication, on handle: ConnectionHandle, at now: Duration
    ) -> [Action] {
        guard indication.credits > 0, let key = channelKey(peerCID: indication.cid, on: handle),
            channels[key]?.state == .open
        else { return [] }
        if let violation = channels[key]?.addCredits(indication.credits) {
            return violated(key, violation, at: now)
        }
        return [.credited(key)]
    }

    /// L2CAP_DISCONNECTION_REQ (§4.6): the Destination CID is ours, the Source CID the peer's.
    private mutating func peerDisconnects(
        _ request: L2CAPSignal.DisconnectionRequest, identifier: UInt8, on handle: ConnectionHandle
    ) -> [Action] {
        let key = L2CAPChannelKey(handle: handle, localCID: request.destinationCID)
        guard let channel = channels[key] else {
            let reject = L2CAPSignal.CommandReject(
                reason: .invalidCIDInRequest(localCID: request.destinationCID, remoteCID: request.sourceCID))
            return [.send(reject.signal(identifier: identifier), on: handle)]
        }
        // §4.6: a Source CID that does not match the channel is silently discarded.
        guard channel.peerCID == request.sourceCID else { return [] }
        channels[key] = nil
        dropOutstandingDisconnect(of: key)
        let response = L2CAPSignal.DisconnectionResponse(destinationCID: request.destinationCID, sourceCID: request.sourceCID)
        var actions: [Action] = [.send(response.signal(identifier: identifier), on: handle)]
        if channel.state == .open { actions.append(.closed(key, .closedByPeer)) }
        return actions
    }

    /// L2CAP_CREDIT_BASED_RECONFIGURE_REQ (§4.27): the peer's new receive MTU and MPS for the
    /// channels whose far ends it lists.
    private mutating func peerReconfigures(
        _ request: L2CAPSignal.CreditBasedReconfigureRequest, identifier: UInt8, on handle: ConnectionHandle
    ) -> [Action] {
        func respond(_ result: L2CAPSignal.CreditBasedReconfigureResponse.Result) -> [Action] {
            [.send(L2CAPSignal.CreditBasedReconfigureResponse(result: result).signal(identifier: identifier), on: handle)]
        }
        let keys = request.destinationCIDs.map { channelKey(peerCID: $0, on: handle) }
        let found = keys.compactMap { $0 }
        guard found.count == keys.count, found.allSatisfy({ channels[$0]?.mode == .enhancedCreditBased }) else {
            return respond(.invalidDestinationCID)
        }
        let mtu = Int(request.mtu)
        let mps = Int(request.mps)
        if found.contains(where: { mtu < channels[$0]!.peerMTU }) { return respond(.mtuReductionNotAllowed) }
        if found.count > 1 && found.contains(where: { mps < channels[$0]!.peerMPS }) {
            return respond(.mpsReductionNotAllowed)
        }
        if !L2CAPSignal.enhancedMTURange.contains(mtu) || !L2CAPSignal.enhancedMPSRange.contains(mps) {
            return respond(.otherUnacceptableParameters)
        }
        for key in found { channels[key]?.reconfiguredPeer(mtu: mtu, mps: mps) }
        return respond(.success)
    }
}
