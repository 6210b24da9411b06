import BLEWire
import Testing

@testable import BLEHost

/// The signalling procedures of credit based channels, one input at a time (Core 5.4 Vol 3
/// Part A §4.6, §4.22–§4.27, §6.2.1).
@Suite("Credit based channel signalling (Core 5.4 Vol 3 Part A §4.22–§4.27)")
struct CreditBasedChannelsTests {
    typealias S = L2CAPSignal
    let link: ConnectionHandle = 0x0040
    let plain = L2CAPLinkSecurity()

    private func machine(mtu: Int = 512, mps: Int = 100, credits: Int = 8) -> CreditBasedChannels {
        var configuration = CreditBasedChannels.Configuration()
        configuration.mtu = mtu
        configuration.mps = mps
        configuration.initialCredits = credits
        configuration.signallingTimeout = .seconds(20)
        return CreditBasedChannels(configuration: configuration)
    }

    private func leRequest(spsm: UInt16 = 0x80, source: UInt16 = 0x50, mtu: UInt16 = 100, mps: UInt16 = 50) -> L2CAPSignal {
        S(identifier: 7, command: .leCreditBasedConnectionRequest(.init(spsm: spsm, sourceCID: source, mtu: mtu, mps: mps, initialCredits: 3)))
    }

    /// The LE response the machine sent.
    private func leResponse(_ actions: [CreditBasedChannels.Action]?) -> S.LECreditBasedConnectionResponse? {
        for case .send(let signal, _) in actions ?? [] {
            if case .leCreditBasedConnectionResponse(let response) = signal.command { return response }
        }
        return nil
    }

    private func enhancedResponse(_ actions: [CreditBasedChannels.Action]?) -> S.CreditBasedConnectionResponse? {
        for case .send(let signal, _) in actions ?? [] {
            if case .creditBasedConnectionResponse(let response) = signal.command { return response }
        }
        return nil
    }

    @Test("§4.22 a request to a published SPSM opens a channel: our CID, MTU, MPS and credits answer it")
    func acceptLE() throws {
        var machine = machine()
        #expect(machine.publish(psm: 0x80, security: .none) == .success(0x80))
        let actions = machine.received(leRequest(), on: link, security: plain, at: .zero)
        let response = try #require(leResponse(actions))
        #expect(response == .init(destinationCID: 0x40, mtu: 512, mps: 100, initialCredits: 8, result: .success))
        let key = L2CAPChannelKey(handle: link, localCID: 0x40)
        #expect(actions?.last == .accepted([key]))
        let channel = try #require(machine.channels[key])
        #expect(channel.peerCID == 0x50)
        #expect(channel.peerMTU == 100)
        #expect(channel.peerMPS == 50)
        #expect(channel.txCredits == 3)
    }

    @Test("§4.23 every refusal result: SPSM not supported, invalid or allocated Source CID, unacceptable parameters, security, no resources")
    func leRefusals() throws {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none, maximumChannels: 1)
        _ = machine.publish(psm: 0x81, security: .encrypted)
        _ = machine.publish(psm: 0x82, security: L2CAPChannelSecurity(authentication: true))
        _ = machine.publish(psm: 0x83, security: L2CAPChannelSecurity(authorization: true))
        _ = machine.publish(psm: 0x84, security: L2CAPChannelSecurity(encryption: true, minimumKeySize: 16))
        func result(_ signal: L2CAPSignal, security: L2CAPLinkSecurity = L2CAPLinkSecurity()) -> S.LECreditBasedConnectionResponse.Result? {
            leResponse(machine.received(signal, on: link, security: security, at: .zero))?.result
        }
        #expect(result(leRequest(spsm: 0x90)) == .spsmNotSupported)
        #expect(result(leRequest(spsm: 0x0100)) == .spsmNotSupported)
        #expect(result(leRequest(source: 0x0020)) == .invalidSourceCID)
        #expect(result(leRequest(mtu: 22)) == .unacceptableParameters)
        #expect(result(leRequest(mps: 65534)) == .unacceptableParameters)
        #expect(result(leRequest(spsm: 0x81)) == .insufficientEncryption)
        #expect(result(leRequest(spsm: 0x82)) == .insufficientAuthentication)
        #expect(result(leRequest(spsm: 0x83)) == .insufficientAuthorization)
        #expect(result(leRequest(spsm: 0x84), security: L2CAPLinkSecurity(isEncrypted: true, keySize: 7)) == .encryptionKeySizeTooShort)
        // An encrypted link passes the encryption check.
        #expect(result(leRequest(spsm: 0x81), security: L2CAPLinkSecurity(isEncrypted: true)) == .success)
        #expect(result(leRequest(spsm: 0x81, source: 0x50)) == .insufficientEncryption)
        #expect(result(leRequest(spsm: 0x80, source: 0x50)) == .sourceCIDAlreadyAllocated)
        #expect(result(leRequest(spsm: 0x80, source: 0x51)) == .success)
        // PSM 0x80 takes one channel at a time.
        #expect(result(leRequest(spsm: 0x80, source: 0x52)) == .noResourcesAvailable)
    }

    @Test("§4.23 no resources once all 64 LE dynamic CIDs of the link are taken")
    func cidsExhausted() {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none)
        for source in UInt16(0x40)...0x7F {
            let actions = machine.received(leRequest(source: source), on: link, security: plain, at: .zero)
            #expect(leResponse(actions)?.result == .success)
        }
        #expect(machine.freeLocalCIDs(on: link, count: 1).isEmpty)
        let (_, actions) = machine.connect(psm: 0x80, on: link, mode: .leCreditBased, at: .zero)
        #expect(actions == [.connected(token: 1, .failure(.noChannelIdentifiers))])
        // Another link has its own CIDs.
        #expect(machine.freeLocalCIDs(on: 0x41, count: 1) == [0x40])
    }

    @Test("§4.22–§4.23 our request: success opens the channel with the peer's parameters; a refusal fails with its result")
    func connectLE() throws {
        var machine = machine()
        let (token, actions) = machine.connect(psm: 0x25, on: link, mode: .leCreditBased, at: .zero)
        guard case .send(let signal, _) = try #require(actions.first),
            case .leCreditBasedConnectionRequest(let request) = signal.command
        else { Issue.record("no request sent"); return }
        #expect(request == .init(spsm: 0x25, sourceCID: 0x40, mtu: 512, mps: 100, initialCredits: 8))
        let response = S.LECreditBasedConnectionResponse(destinationCID: 0x77, mtu: 300, mps: 64, initialCredits: 2, result: .success)
        let done = machine.received(response.signal(identifier: signal.identifier), on: link, security: plain, at: .zero)
        let key = L2CAPChannelKey(handle: link, localCID: 0x40)
        #expect(done == [.connected(token: token, .success([key]))])
        #expect(machine.channels[key]?.peerCID == 0x77)
        #expect(machine.channels[key]?.psm == 0x25)

        let (second, next) = machine.connect(psm: 0x25, on: link, mode: .leCreditBased, at: .zero)
        guard case .send(let request2, _) = next.first else { Issue.record("no request"); return }
        for refusal in [S.LECreditBasedConnectionResponse.Result.insufficientEncryption] {
            let answer = machine.received(
                S.LECreditBasedConnectionResponse.refused(refusal).signal(identifier: request2.identifier), on: link,
                security: plain, at: .zero)
            #expect(answer == [.connected(token: second, .failure(.refused(.insufficientEncryption)))])
        }
        // The refused request's CID is free again, and given out last (§2.1: in turn).
        #expect(machine.freeLocalCIDs(on: link, count: 64) == Array(0x42...0x7F) + [0x41])
    }

    @Test("§4.23 a successful response with an out-of-range Destination CID fails the request")
    func invalidResponse() {
        var machine = machine()
        let (token, actions) = machine.connect(psm: 0x25, on: link, mode: .leCreditBased, at: .zero)
        guard case .send(let signal, _) = actions.first else { return }
        let response = S.LECreditBasedConnectionResponse(destinationCID: 0x0004, mtu: 300, mps: 64, initialCredits: 2, result: .success)
        let done = machine.received(response.signal(identifier: signal.identifier), on: link, security: plain, at: .zero)
        guard case .connected(token, .failure(.invalidResponse))? = done?.first else {
            Issue.record("expected invalidResponse, got \(String(describing: done))")
            return
        }
    }

    @Test("§6.2.1 RTX: a request unanswered within the signalling timeout fails")
    func signallingTimeout() {
        var machine = machine()
        let (token, _) = machine.connect(psm: 0x25, on: link, mode: .leCreditBased, at: .zero)
        #expect(machine.nextDeadline == .seconds(20))
        #expect(machine.timeout(at: .seconds(19)).isEmpty)
        #expect(machine.timeout(at: .seconds(20)) == [.connected(token: token, .failure(.timeout))])
        #expect(machine.nextDeadline == nil)
    }

    @Test("§4.6 Disconnection Request from the peer: answered, the channel closed; an unknown CID gets Command Reject")
    func peerDisconnects() throws {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none)
        _ = machine.received(leRequest(), on: link, security: plain, at: .zero)
        let key = L2CAPChannelKey(handle: link, localCID: 0x40)
        // A Source CID that does not match is silently discarded.
        let wrong = S.DisconnectionRequest(destinationCID: 0x40, sourceCID: 0x51).signal(identifier: 9)
        #expect(machine.received(wrong, on: link, security: plain, at: .zero) == [])
        let request = S.DisconnectionRequest(destinationCID: 0x40, sourceCID: 0x50).signal(identifier: 9)
        let actions = machine.received(request, on: link, security: plain, at: .zero)
        #expect(actions == [
            .send(S.DisconnectionResponse(destinationCID: 0x40, sourceCID: 0x50).signal(identifier: 9), on: link),
            .closed(key, .closedByPeer),
        ])
        #expect(machine.channels[key] == nil)
        let again = machine.received(request, on: link, security: plain, at: .zero)
        #expect(again == [.send(S.CommandReject(reason: .invalidCIDInRequest(localCID: 0x40, remoteCID: 0x50)).signal(identifier: 9), on: link)])
    }

    @Test("§4.6 our Disconnection Request: the channel ends at once, its CID is free when the peer answers")
    func weDisconnect() throws {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none)
        _ = machine.received(leRequest(), on: link, security: plain, at: .zero)
        let key = L2CAPChannelKey(handle: link, localCID: 0x40)
        let actions = machine.disconnect(key, at: .zero)
        guard case .send(let signal, _) = actions.first, case .disconnectionRequest(let request) = signal.command else {
            Issue.record("no Disconnection Request")
            return
        }
        #expect(request == .init(destinationCID: 0x50, sourceCID: 0x40))
        #expect(actions.last == .closed(key, .closedLocally))
        #expect(machine.freeLocalCIDs(on: link, count: 1) == [0x41])
        _ = machine.received(S.DisconnectionResponse(destinationCID: 0x50, sourceCID: 0x40).signal(identifier: signal.identifier), on: link, security: plain, at: .zero)
        #expect(machine.channels.isEmpty)
        #expect(machine.nextDeadline == nil)
    }

    @Test("§4.24 credits summing past 65535 disconnect the channel, not the link")
    func creditOverflowDisconnects() throws {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none)
        _ = machine.received(leRequest(), on: link, security: plain, at: .zero)
        let key = L2CAPChannelKey(handle: link, localCID: 0x40)
        let more = S.FlowControlCreditIndication(cid: 0x50, credits: 10).signal(identifier: 3)
        #expect(machine.received(more, on: link, security: plain, at: .zero) == [.credited(key)])
        let overflow = S.FlowControlCreditIndication(cid: 0x50, credits: 65530).signal(identifier: 4)
        let received = machine.received(overflow, on: link, security: plain, at: .zero)
        let actions = try #require(received)
        #expect(actions.last == .closed(key, .violation(.creditOverflow(total: 65543))))
        guard case .send(let signal, let handle) = actions.first, case .disconnectionRequest = signal.command else {
            Issue.record("no Disconnection Request")
            return
        }
        #expect(handle == link)
    }

    @Test("The link going down ends its channels and fails its requests")
    func linkDown() {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none)
        _ = machine.received(leRequest(), on: link, security: plain, at: .zero)
        let (token, _) = machine.connect(psm: 0x25, on: link, mode: .leCreditBased, at: .zero)
        let actions = machine.linkDown(link, reason: .connectionTimeout)
        #expect(actions.contains(.closed(L2CAPChannelKey(handle: link, localCID: 0x40), .linkDown(.connectionTimeout))))
        #expect(actions.contains(.connected(token: token, .failure(.linkDown(.connectionTimeout)))))
        #expect(machine.channels.isEmpty)
        #expect(machine.nextDeadline == nil)
    }

    @Test("Publishing picks free dynamic SPSMs 0x0080...0x00FF and refuses a taken one")
    func psmRegistry() {
        var machine = machine()
        #expect(machine.publish(security: .none) == .success(0x80))
        #expect(machine.publish(security: .none) == .success(0x81))
        #expect(machine.publish(psm: 0x81, security: .none) == .failure(.psmUnavailable(0x81)))
        #expect(machine.publish(psm: 0x100, security: .none) == .failure(.psmUnavailable(0x100)))
        machine.unpublish(0x80)
        #expect(machine.publish(security: .none) == .success(0x80))
    }

    // MARK: Enhanced

    private func enhancedRequest(spsm: UInt16 = 0x80, sources: S.CIDList, mtu: UInt16 = 100, mps: UInt16 = 64) -> L2CAPSignal {
        S(identifier: 5, command: .creditBasedConnectionRequest(.init(spsm: spsm, mtu: mtu, mps: mps, initialCredits: 4, sourceCIDs: sources)))
    }

    @Test("§4.25–§4.26 an enhanced request opens up to five channels; refused ones get Destination CID 0")
    func acceptEnhanced() throws {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none, maximumChannels: 3)
        let actions = machine.received(enhancedRequest(sources: [0x50, 0x0010, 0x51, 0x51, 0x52]), on: link, security: plain, at: .zero)
        let response = try #require(enhancedResponse(actions))
        // 0x0010 is invalid, the second 0x51 a repeat.
        #expect(Array(response.destinationCIDs) == [0x40, 0, 0x41, 0, 0x42])
        #expect(response.result == .someRefusedSourceCIDAlreadyAllocated)
        #expect(response.mtu == 512)
        #expect(actions?.last == .accepted([0x40, 0x41, 0x42].map { L2CAPChannelKey(handle: link, localCID: $0) }))
        // The server takes three: a fourth is refused for resources.
        let more = machine.received(enhancedRequest(sources: [0x60]), on: link, security: plain, at: .zero)
        #expect(enhancedResponse(more)?.result == .someRefusedInsufficientResources)
        #expect(enhancedResponse(more).map { Array($0.destinationCIDs) } == [0])
    }

    @Test("§4.26 every all-refused result of an enhanced request")
    func enhancedRefusals() {
        var machine = machine()
        _ = machine.publish(psm: 0x81, security: .encrypted)
        _ = machine.publish(psm: 0x82, security: L2CAPChannelSecurity(authentication: true))
        _ = machine.publish(psm: 0x83, security: L2CAPChannelSecurity(authorization: true))
        _ = machine.publish(psm: 0x84, security: L2CAPChannelSecurity(encryption: true, minimumKeySize: 16))
        func result(_ signal: L2CAPSignal, _ security: L2CAPLinkSecurity = L2CAPLinkSecurity()) -> S.CreditBasedConnectionResponse.Result? {
            enhancedResponse(machine.received(signal, on: link, security: security, at: .zero))?.result
        }
        #expect(result(enhancedRequest(spsm: 0x90, sources: [0x50])) == .allRefusedSPSMNotSupported)
        #expect(result(enhancedRequest(sources: [0x50], mtu: 63)) == .allRefusedInvalidParameters)
        #expect(result(enhancedRequest(sources: [0x50], mps: 63)) == .allRefusedInvalidParameters)
        #expect(result(enhancedRequest(spsm: 0x81, sources: [0x50])) == .allRefusedInsufficientEncryption)
        #expect(result(enhancedRequest(spsm: 0x82, sources: [0x50])) == .allRefusedInsufficientAuthentication)
        #expect(result(enhancedRequest(spsm: 0x83, sources: [0x50])) == .allRefusedInsufficientAuthorization)
        #expect(result(enhancedRequest(spsm: 0x84, sources: [0x50]), L2CAPLinkSecurity(isEncrypted: true, keySize: 10)) == .allRefusedEncryptionKeySizeTooShort)
        #expect(result(enhancedRequest(spsm: 0x81, sources: [0x0001])) == .allRefusedInsufficientEncryption)
        #expect(result(enhancedRequest(spsm: 0x81, sources: [0x0001]), L2CAPLinkSecurity(isEncrypted: true)) == .someRefusedInvalidSourceCID)
    }

    @Test("§4.25–§4.26 our enhanced request: the channels the peer accepted open, the refused ones' CIDs are free")
    func connectEnhanced() throws {
        var machine = machine()
        let (token, actions) = machine.connect(psm: 0x80, on: link, mode: .enhancedCreditBased, count: 3, at: .zero)
        guard case .send(let signal, _) = actions.first, case .creditBasedConnectionRequest(let request) = signal.command else {
            Issue.record("no request")
            return
        }
        #expect(Array(request.sourceCIDs) == [0x40, 0x41, 0x42])
        let response = S.CreditBasedConnectionResponse(mtu: 200, mps: 64, initialCredits: 5, result: .someRefusedInsufficientResources, destinationCIDs: [0x60, 0, 0x61])
        let done = machine.received(response.signal(identifier: signal.identifier), on: link, security: plain, at: .zero)
        #expect(done == [.connected(token: token, .success([0x40, 0x42].map { L2CAPChannelKey(handle: link, localCID: $0) }))])
        #expect(machine.freeLocalCIDs(on: link, count: 64) == Array(0x43...0x7F) + [0x41])
        // Pending results wait for the final answer.
        let (next, more) = machine.connect(psm: 0x80, on: link, mode: .enhancedCreditBased, count: 1, at: .zero)
        guard case .send(let signal2, _) = more.first else { return }
        let pending = S.CreditBasedConnectionResponse(mtu: 0, mps: 0, initialCredits: 0, result: .allPendingAuthentication, destinationCIDs: [0])
        #expect(machine.received(pending.signal(identifier: signal2.identifier), on: link, security: plain, at: .zero) == [])
        let refused = S.CreditBasedConnectionResponse(mtu: 0, mps: 0, initialCredits: 0, result: .allRefusedInsufficientAuthentication, destinationCIDs: [0])
        #expect(machine.received(refused.signal(identifier: signal2.identifier), on: link, security: plain, at: .zero) == [.connected(token: next, .failure(.refused(.insufficientAuthentication)))])
    }

    @Test("§4.27 reconfigure: the peer may grow its MTU and MPS; shrinking the MTU or an unknown CID is refused")
    func peerReconfigures() throws {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none)
        _ = machine.received(enhancedRequest(sources: [0x50, 0x51]), on: link, security: plain, at: .zero)
        func result(_ mtu: UInt16, _ mps: UInt16, _ cids: S.CIDList) -> S.CreditBasedReconfigureResponse.Result? {
            let request = S.CreditBasedReconfigureRequest(mtu: mtu, mps: mps, destinationCIDs: cids).signal(identifier: 11)
            for case .send(let signal, _) in machine.received(request, on: link, security: plain, at: .zero) ?? [] {
                if case .creditBasedReconfigureResponse(let response) = signal.command { return response.result }
            }
            return nil
        }
        #expect(result(200, 64, [0x50, 0x59]) == .invalidDestinationCID)
        #expect(result(99, 64, [0x50]) == .mtuReductionNotAllowed)
        #expect(result(100, 63, [0x50]) == .otherUnacceptableParameters)
        #expect(result(200, 64, [0x50, 0x51]) == .success)
        #expect(machine.channels[L2CAPChannelKey(handle: link, localCID: 0x40)]?.peerMTU == 200)
        #expect(result(300, 100, [0x50, 0x51]) == .success)
        #expect(result(300, 80, [0x50, 0x51]) == .mpsReductionNotAllowed)
        #expect(result(300, 80, [0x50]) == .success)
        #expect(machine.channels[L2CAPChannelKey(handle: link, localCID: 0x40)]?.peerMPS == 80)
    }

    @Test("§4.27 our reconfigure request: on success the channels take the new MTU and MPS")
    func weReconfigure() throws {
        var machine = machine()
        _ = machine.publish(psm: 0x80, security: .none)
        _ = machine.received(enhancedRequest(sources: [0x50]), on: link, security: plain, at: .zero)
        let key = L2CAPChannelKey(handle: link, localCID: 0x40)
        let (refusedToken, refused) = machine.reconfigure([key], mtu: 100, mps: 100, at: .zero)
        #expect(refused == [.reconfigured(token: refusedToken, .notOpen)])
        let (token, actions) = machine.reconfigure([key], mtu: 1024, mps: 200, at: .zero)
        guard case .send(let signal, _) = actions.first, case .creditBasedReconfigureRequest(let request) = signal.command else {
            Issue.record("no request")
            return
        }
        #expect(Array(request.destinationCIDs) == [0x40])
        let answer = S.CreditBasedReconfigureResponse(result: .success).signal(identifier: signal.identifier)
        #expect(machine.received(answer, on: link, security: plain, at: .zero) == [.reconfigured(token: token, nil)])
        #expect(machine.channels[key]?.localMTU == 1024)
        #expect(machine.channels[key]?.localMPS == 200)
    }
}
