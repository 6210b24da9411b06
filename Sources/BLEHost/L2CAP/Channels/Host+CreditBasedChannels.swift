import BLEWire

/// One open credit based channel as the layers above see it.
package struct L2CAPChannelInfo: Sendable {
    package let key: L2CAPChannelKey
    /// Tells this channel from a later one that reuses its CID.
    package let serial: UInt64
    package let psm: UInt16
    package let mode: L2CAPChannelMode
    package let peer: LEAddress
    /// The peer's end of the channel.
    package let peerCID: UInt16
    package let localMTU: Int
    package let peerMTU: Int
    package let localMPS: Int
    package let peerMPS: Int
    /// The peer's SDUs in order; ends when the channel does. A reader reports each SDU it
    /// takes to `backlog` (and `Host.l2capSDUConsumed` when that says so).
    package let incoming: EventStream<[UInt8]>
    package let backlog: L2CAPChannelBacklog
}

/// What the host keeps for credit based channels besides the state machine: the callers
/// waiting, the streams to the app, why channels ended.
struct HostChannelState {
    typealias ConnectWaiter = CheckedContinuation<Result<[L2CAPChannelInfo], L2CAPChannelError>, Never>
    typealias DoneWaiter = CheckedContinuation<Result<Void, L2CAPChannelError>, Never>

    var machine = CreditBasedChannels()
    var sinks: [L2CAPChannelKey: EventStream<[UInt8]>.Continuation] = [:]
    var backlogs: [L2CAPChannelKey: L2CAPChannelBacklog] = [:]
    var serials: [L2CAPChannelKey: UInt64] = [:]
    var servers: [UInt16: EventStream<L2CAPChannelInfo>.Continuation] = [:]
    var connecting: [UInt64: ConnectWaiter] = [:]
    var reconfiguring: [UInt64: DoneWaiter] = [:]
    var writers: [L2CAPChannelKey: [(target: UInt64, waiter: DoneWaiter)]] = [:]
    /// Why recent channels ended, by serial (bounded: the oldest go first).
    var endings: [UInt64: L2CAPChannelError] = [:]
    var nextSerial: UInt64 = 1
    var watchdog: Task<Void, Never>?

    static let endingsKept = 256
    /// Unread SDUs of a channel at which the host stops giving the peer credits.
    static let backlogLimit = 8
}

/// LE credit based channels on the host (Core 5.4 Vol 3 Part A §4.22–§4.27, §10.1): the
/// machine's actions performed, K-frames routed, writes paced by credits.
extension Host {
    /// Sets this end's MTU, MPS, initial credits and RTX timeout; only while no channel is
    /// open and no request outstanding.
    package func setL2CAPChannelConfiguration(_ configuration: CreditBasedChannels.Configuration) {
        guard l2cap.machine.channels.isEmpty, l2cap.machine.nextDeadline == nil else { return }
        var machine = CreditBasedChannels(configuration: configuration)
        for (psm, server) in l2cap.machine.servers {
            _ = machine.publish(psm: psm, security: server.security, maximumChannels: server.maximumChannels)
        }
        l2cap.machine = machine
    }

    /// Publishes an SPSM (`psm`, or a free one of 0x0080...0x00FF): peers' channels to it
    /// arrive on the stream.
    package func publishL2CAPServer(
        psm: UInt16? = nil, security: L2CAPChannelSecurity = .none, maximumChannels: Int = 64
    ) throws(L2CAPChannelError) -> (psm: UInt16, channels: EventStream<L2CAPChannelInfo>) {
        let chosen: UInt16
        switch l2cap.machine.publish(psm: psm, security: security, maximumChannels: maximumChannels) {
        case .success(let value): chosen = value
        case .failure(let error): throw error
        }
        let (stream, sink) = EventStream.makeStream(of: L2CAPChannelInfo.self)
        l2cap.servers[chosen] = sink
        return (chosen, stream)
    }

    /// Stops accepting channels to `psm` (open ones stay); its stream ends.
    package func unpublishL2CAPServer(_ psm: UInt16) {
        l2cap.machine.unpublish(psm)
        l2cap.servers.removeValue(forKey: psm)?.finish()
    }

    /// Opens channels to the peer's `psm` on `handle`: one LE credit based channel, or up to
    /// five enhanced ones with one request.
    package func openL2CAPChannels(
        psm: UInt16, on handle: ConnectionHandle, mode: L2CAPChannelMode = .leCreditBased, count: Int = 1
    ) async throws(L2CAPChannelError) -> [L2CAPChannelInfo] {
        guard connections[handle] != nil else { throw .linkDown(.unknownConnectionIdentifier) }
        let (token, actions) = l2cap.machine.connect(psm: psm, on: handle, mode: mode, count: count, at: timeline.now())
        let result = await withCheckedContinuation { (waiter: HostChannelState.ConnectWaiter) in
            l2cap.connecting[token] = waiter
            perform(actions)
        }
        switch result {
        case .success(let infos): return infos
        case .failure(let error): throw error
        }
    }

    /// Sends one SDU: segmented into K-frames, returning once the last went to the controller
    /// — waiting while the peer has given no credits (§10.1).
    package func writeL2CAP(_ sdu: [UInt8], on key: L2CAPChannelKey, serial: UInt64) async throws(L2CAPChannelError) {
        guard l2cap.serials[key] == serial, let index = l2cap.machine.channels.index(forKey: key) else {
            throw l2cap.endings[serial] ?? .notOpen
        }
        let target: UInt64
        switch l2cap.machine.channels.values[index].enqueue(sdu) {
        case .success(let count): target = count
        case .failure(let error): throw error
        }
        flushChannel(key)
        guard let channel = l2cap.machine.channels[key], channel.sentFrames < target else { return }
        let result = await withCheckedContinuation { (waiter: HostChannelState.DoneWaiter) in
            l2cap.writers[key, default: []].append((target, waiter))
        }
        if case .failure(let error) = result { throw error }
    }

    /// Closes a channel (§4.6); its incoming stream ends.
    package func closeL2CAPChannel(_ key: L2CAPChannelKey, serial: UInt64) {
        guard l2cap.serials[key] == serial else { return }
        perform(l2cap.machine.disconnect(key, at: timeline.now()))
    }

    /// Why the channel `serial` ended; nil while it is open (or long forgotten).
    package func l2capChannelEnding(_ serial: UInt64) -> L2CAPChannelError? {
        l2cap.endings[serial]
    }

    /// K-frames of the channel waiting for the peer's credits, and the credits left.
    package func l2capChannelCredits(_ key: L2CAPChannelKey) -> (tx: Int, rx: Int, waiting: Int)? {
        l2cap.machine.channels[key].map { ($0.txCredits, $0.rxCredits, $0.waitingFrames) }
    }

    /// Asks the peer to take larger SDUs and K-frames on enhanced channels (§4.27).
    package func reconfigureL2CAPChannels(_ keys: [L2CAPChannelKey], mtu: Int, mps: Int) async throws(L2CAPChannelError) {
        let (token, actions) = l2cap.machine.reconfigure(keys, mtu: mtu, mps: mps, at: timeline.now())
        let result = await withCheckedContinuation { (waiter: HostChannelState.DoneWaiter) in
            l2cap.reconfiguring[token] = waiter
            perform(actions)
        }
        if case .failure(let error) = result { throw error }
    }

    // MARK: From the link

    /// A signalling command about credit based channels; false when it is not one.
    func receivedChannelSignal(_ signal: L2CAPSignal, on handle: ConnectionHandle) -> Bool {
        let security = L2CAPLinkSecurity(security(of: handle))
        guard let actions = l2cap.machine.received(signal, on: handle, security: security, at: timeline.now()) else {
            return false
        }
        if case .flowControlCreditIndication(let indication) = signal.command, indication.credits == 0 {
            statistics.badL2CAPSignals += 1
            logger.notice("ignored a Flow Control Credit Indication with 0 credits on handle \(handle)")
        }
        perform(actions)
        return true
    }

    /// A frame on an LE dynamic CID (§3.4.3): false when no channel has that CID.
    func receivedKFrame(_ payload: ArraySlice<UInt8>, cid: L2CAPChannelID, on handle: ConnectionHandle) -> Bool {
        let key = L2CAPChannelKey(handle: handle, localCID: cid.rawValue)
        guard let index = l2cap.machine.channels.index(forKey: key) else { return false }
        switch l2cap.machine.channels.values[index].receive(payload) {
        case .partial:
            break
        case .sdu(let sdu):
            guard l2cap.sinks[key]?.yield(sdu) == .enqueued else {
                // The app let go of the channel without closing it: nobody will read, so the
                // channel is closed rather than its SDUs dropped unseen.
                logger.notice("closing \(key): an SDU of \(sdu.count) octets arrived and nobody reads the channel")
                perform(l2cap.machine.disconnect(key, at: timeline.now()))
                return true
            }
            l2cap.backlogs[key]?.delivered()
        case .discarded:
            return true
        case .violation(let violation):
            perform(l2cap.machine.violated(key, violation, at: timeline.now()))
            return true
        }
        grantCredits(key)
        return true
    }

    /// Gives the peer credits back once it used half of them (§4.24) — unless the app has
    /// `backlogLimit` SDUs unread: then the peer waits until it reads (§10.1 back-pressure).
    private func grantCredits(_ key: L2CAPChannelKey) {
        guard let index = l2cap.machine.channels.index(forKey: key) else { return }
        if l2cap.backlogs[key]?.shouldHold() == true { return }
        guard let credits = l2cap.machine.channels.values[index].takeCreditGrant() else { return }
        let indication = L2CAPSignal.FlowControlCreditIndication(cid: key.localCID, credits: credits)
        let identifier = l2cap.machine.identifier(on: key.handle)
        sendL2CAP(
            indication.signal(identifier: identifier).encoded, channel: .leSignaling, on: key.handle, priority: .signaling)
    }

    /// The app read SDUs of the channel `serial` after the host held its credits back: give
    /// them now.
    package nonisolated func l2capSDUConsumed(_ key: L2CAPChannelKey, serial: UInt64) {
        spawn {
            await self.resumeCredits(key, serial: serial)
        }
    }

    private func resumeCredits(_ key: L2CAPChannelKey, serial: UInt64) {
        guard l2cap.serials[key] == serial else { return }
        grantCredits(key)
    }

    /// The link went down: its channels end and their callers fail.
    func channelsLinkDown(_ handle: ConnectionHandle, reason: HCIStatus) {
        perform(l2cap.machine.linkDown(handle, reason: reason))
    }

    /// The host stops: every channel and caller ends, and the published SPSMs are forgotten (a
    /// host that `reattach`es to a controller starts with none; the app publishes again).
    func channelsStopped() {
        // A lost transport took the links with it (Hardware Failure, as `transportLost` reports
        // them); otherwise this host closed them.
        let reason: HCIStatus = lostTransport != nil ? .hardwareFailure : .connectionTerminatedByLocalHost
        let handles = Set(l2cap.machine.channels.keys.map(\.handle)).union(l2cap.machine.outstanding.keys.map(\.handle))
        for handle in handles.sorted() { perform(l2cap.machine.linkDown(handle, reason: reason)) }
        for (_, waiter) in l2cap.connecting { waiter.resume(returning: .failure(.linkDown(reason))) }
        l2cap.connecting = [:]
        for (_, waiter) in l2cap.reconfiguring { waiter.resume(returning: .failure(.linkDown(reason))) }
        l2cap.reconfiguring = [:]
        for sink in l2cap.servers.values { sink.finish() }
        l2cap.servers = [:]
        l2cap.watchdog?.cancel()
        l2cap.watchdog = nil
        // Why channels ended stays answerable, and serials keep growing.
        let (endings, nextSerial, configuration) = (l2cap.endings, l2cap.nextSerial, l2cap.machine.configuration)
        l2cap = HostChannelState()
        l2cap.machine = CreditBasedChannels(configuration: configuration)
        (l2cap.endings, l2cap.nextSerial) = (endings, nextSerial)
    }

    // MARK: Performing

    func perform(_ actions: [CreditBasedChannels.Action]) {
        for action in actions {
            switch action {
            case .send(let signal, let handle):
                sendL2CAP(signal.encoded, channel: .leSignaling, on: handle, priority: .signaling)
            case .connected(let token, let result):
                let infos = result.map { keys in keys.compactMap { openedChannel($0) } }
                l2cap.connecting.removeValue(forKey: token)?.resume(returning: infos)
            case .accepted(let keys):
                for key in keys {
                    guard let info = openedChannel(key) else { continue }
                    guard let sink = l2cap.servers[info.psm], sink.yield(info) != .terminated else {
                        // Nobody listens any more: the channel is closed again at once.
                        logger.notice("closing \(key) to PSM \(info.psm): nobody takes its channels")
                        perform(l2cap.machine.disconnect(key, at: timeline.now()))
                        continue
                    }
                }
            case .closed(let key, let reason):
                if case .violation(let violation) = reason {
                    // Counted and logged once, whichever path found it (a K-frame, a credit).
                    statistics.l2capChannelViolations += 1
                    logger.warning("the peer sent \(violation) on \(key): the channel is disconnected, the link stays")
                }
                channelEnded(key, reason)
            case .credited(let key):
                flushChannel(key)
            case .reconfigured(let token, let result):
                l2cap.reconfiguring.removeValue(forKey: token)?.resume(returning: result.map { .failure($0) } ?? .success(()))
            }
        }
        armChannelWatchdog()
    }

    /// A channel just opened: its stream to the app.
    private func openedChannel(_ key: L2CAPChannelKey) -> L2CAPChannelInfo? {
        guard let channel = l2cap.machine.channels[key], let link = connections[key.handle] else { return nil }
        let (stream, sink) = EventStream.makeStream(of: [UInt8].self)
        let serial = l2cap.nextSerial
        l2cap.nextSerial += 1
        let backlog = L2CAPChannelBacklog(limit: HostChannelState.backlogLimit)
        l2cap.sinks[key] = sink
        l2cap.backlogs[key] = backlog
        l2cap.serials[key] = serial
        logger.debug("opened \(key) to PSM \(channel.psm): MTU \(channel.peerMTU) MPS \(channel.peerMPS) credits \(channel.txCredits)")
        return L2CAPChannelInfo(
            key: key, serial: serial, psm: channel.psm, mode: channel.mode, peer: link.peerAddress, peerCID: channel.peerCID,
            localMTU: channel.localMTU, peerMTU: channel.peerMTU, localMPS: channel.localMPS, peerMPS: channel.peerMPS,
            incoming: stream, backlog: backlog)
    }

    private func channelEnded(_ key: L2CAPChannelKey, _ reason: L2CAPChannelError) {
        l2cap.sinks.removeValue(forKey: key)?.finish()
        l2cap.backlogs[key] = nil
        if let serial = l2cap.serials.removeValue(forKey: key) {
            l2cap.endings[serial] = reason
            if l2cap.endings.count > HostChannelState.endingsKept, let oldest = l2cap.endings.keys.min() {
                l2cap.endings[oldest] = nil
            }
        }
        for writer in l2cap.writers.removeValue(forKey: key) ?? [] { writer.waiter.resume(returning: .failure(reason)) }
        logger.debug("\(key) ended: \(reason)")
    }

    /// Hands the K-frames the credits allow to the ACL scheduler, and wakes the writes done.
    private func flushChannel(_ key: L2CAPChannelKey) {
        guard let index = l2cap.machine.channels.index(forKey: key) else { return }
        var sent = false
        while let frame = l2cap.machine.channels.values[index].nextFrame() {
            acl.enqueue(frame, on: key.handle, priority: .channelData)
            sent = true
        }
        if sent { pumpACL() }
        guard var writers = l2cap.writers[key], !writers.isEmpty else { return }
        let done = l2cap.machine.channels.values[index].sentFrames
        while let first = writers.first, first.target <= done {
            writers.removeFirst()
            first.waiter.resume(returning: .success(()))
        }
        l2cap.writers[key] = writers.isEmpty ? nil : writers
    }

    /// Sleeps until the earliest RTX deadline (§6.2.1) while a request is outstanding.
    private func armChannelWatchdog() {
        guard l2cap.watchdog == nil, let first = l2cap.machine.nextDeadline else { return }
        let timeline = self.timeline
        l2cap.watchdog = spawn {
            var wake = first
            while true {
                do { try await timeline.sleep(until: wake) } catch { return }
                guard let next = await self.expireChannelRequests() else { return }
                wake = next
            }
        }
    }

    private func expireChannelRequests() -> Duration? {
        let actions = l2cap.machine.timeout(at: timeline.now())
        if !actions.isEmpty { logger.notice("L2CAP signalling requests timed out (RTX)") }
        l2cap.watchdog = nil
        perform(actions)
        // `perform` re-armed the watchdog when a deadline is left; this task ends.
        return nil
    }
}
