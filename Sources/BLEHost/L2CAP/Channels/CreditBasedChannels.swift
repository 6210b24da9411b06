import BLEWire

/// The credit based channels of one host as a value (Core 5.4 Vol 3 Part A §4.6–§4.7, §4.22–
/// §4.27): the published SPSMs, the channels of every link, this end's signalling requests and
/// their RTX deadlines (§6.2.1). It takes one input at a time — a signalling command from a
/// peer, an API call, a clock reading, a link gone — and returns the actions to perform; the
/// host performs them and keeps the callers waiting, keyed by the tokens handed out here.
///
/// The data path of each open channel is its `CreditBasedChannel`, which the host drives in
/// place through `channels`.
package struct CreditBasedChannels {
    package struct Configuration: Sendable {
        /// Largest SDU this end takes (§4.22: at least 23; §4.25: at least 64).
        package var mtu = 2048
        /// Largest K-frame payload this end takes (23...65533; at least 64 for enhanced). 247
        /// fills one LE data channel PDU of 251 octets with its basic header.
        package var mps = 247
        /// Credits given to the peer, and kept topped up: 64 K-frames keep a 2M link with
        /// 15 ms events busy across the round trip of a credit indication (32 left OTA over a
        /// channel at 92.6 % of the air-time model's rule B, 64 reach 96.8 %).
        package var initialCredits = 64
        /// The RTX timeout of our signalling requests (§6.2.1: 1 to 60 s).
        package var signallingTimeout: Duration = .seconds(30)

        package init() {}
    }

    /// What to do.
    package enum Action: Equatable {
        /// Send this command on the link's LE signalling channel.
        case send(L2CAPSignal, on: ConnectionHandle)
        /// Our request `token` opened these channels, or failed.
        case connected(token: UInt64, Result<[L2CAPChannelKey], L2CAPChannelError>)
        /// A peer opened these channels to a published SPSM.
        case accepted([L2CAPChannelKey])
        /// The channel ended for the app (its CID may stay reserved until the peer answers our
        /// Disconnection Request).
        case closed(L2CAPChannelKey, L2CAPChannelError)
        /// The channel can send again (credits arrived).
        case credited(L2CAPChannelKey)
        /// Our Reconfigure request `token` was answered: nil when accepted, else why not.
        case reconfigured(token: UInt64, L2CAPChannelError?)
    }

    struct Server {
        var security: L2CAPChannelSecurity
        /// Channels a peer may open to it at once (no resources beyond).
        var maximumChannels: Int
    }

    /// A signalling request of ours, awaiting its response.
    enum Outstanding {
        case connect(token: UInt64, psm: UInt16, mode: L2CAPChannelMode, localCIDs: [UInt16], deadline: Duration)
        case disconnect(L2CAPChannelKey, deadline: Duration)
        case reconfigure(token: UInt64, keys: [L2CAPChannelKey], mtu: Int, mps: Int, deadline: Duration)

        var deadline: Duration {
            switch self {
            case .connect(_, _, _, _, let deadline), .disconnect(_, let deadline), .reconfigure(_, _, _, _, let deadline):
                deadline
            }
        }
    }

    struct RequestKey: Hashable {
        let handle: ConnectionHandle
        let identifier: UInt8
    }

    package let configuration: Configuration
    private(set) var servers: [UInt16: Server] = [:]
    /// Every channel open or disconnecting, by link and local CID.
    package var channels: [L2CAPChannelKey: CreditBasedChannel] = [:]
    var outstanding: [RequestKey: Outstanding] = [:]
    private var lastIdentifier: [ConnectionHandle: UInt8] = [:]
    /// The CID last given out on each link: the next search starts after it.
    private var lastCID: [ConnectionHandle: UInt16] = [:]
    private var nextToken: UInt64 = 1

    /// Dynamically allocated LE SPSMs (§4.22: 0x0080...0x00FF).
    package static let dynamicPSMs: ClosedRange<UInt16> = 0x0080...0x00FF

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: Servers

    /// Publishes an SPSM: `psm`, or the lowest free dynamic one when nil.
    package mutating func publish(
        psm: UInt16? = nil, security: L2CAPChannelSecurity, maximumChannels: Int = 64
    ) -> Result<UInt16, L2CAPChannelError> {
        let chosen: UInt16
        if let psm {
            guard L2CAPSignal.LECreditBasedConnectionRequest.spsmRange.contains(Int(psm)), servers[psm] == nil else {
                return .failure(.psmUnavailable(psm))
            }
            chosen = psm
        } else {
            guard let free = Self.dynamicPSMs.first(where: { servers[$0] == nil }) else {
                return .failure(.psmUnavailable(nil))
            }
            chosen = free
        }
        servers[chosen] = Server(security: security, maximumChannels: max(0, maximumChannels))
        return .success(chosen)
    }

    /// Stops accepting channels to `psm`; channels already open stay.
    package mutating func unpublish(_ psm: UInt16) {
        servers[psm] = nil
    }

    package func isPublished(_ psm: UInt16) -> Bool { servers[psm] != nil }

    // MARK: Identifiers

    /// Identifiers of channel signalling; the link procedures (connection parameter update
    /// requests, `LinkControl`) take 0x80...0xFF, so a response is never matched to the wrong one.
    package static let identifiers: ClosedRange<UInt8> = 0x01...0x7F

    /// A fresh identifier for a request or indication of ours on `handle` (§4: never 0, and
    /// not one of our requests still outstanding, while one is free).
    package mutating func identifier(on handle: ConnectionHandle) -> UInt8 {
        let range = Self.identifiers
        var candidate = lastIdentifier[handle] ?? range.upperBound
        for _ in range {
            candidate = candidate >= range.upperBound ? range.lowerBound : candidate + 1
            if outstanding[RequestKey(handle: handle, identifier: candidate)] == nil { break }
        }
        lastIdentifier[handle] = candidate
        return candidate
    }

    private mutating func makeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    /// Whether the peer's CID is already the far end of a channel on the link.
    func peerCIDInUse(_ cid: UInt16, on handle: ConnectionHandle) -> Bool {
        channels.contains { $0.key.handle == handle && $0.value.peerCID == cid }
    }

    /// Up to `count` free local CIDs on the link (§2.1), in turn from the one after the CID
    /// last given out: a CID just freed is the last to be reused, so a late K-frame of a closed
    /// channel — or a peer that still counts it as taken — does not meet a new channel.
    /// Reserved CIDs of outstanding connection requests count as taken.
    func freeLocalCIDs(on handle: ConnectionHandle, count: Int) -> [UInt16] {
        var taken = Set(channels.keys.lazy.filter { $0.handle == handle }.map(\.localCID))
        for (key, request) in outstanding where key.handle == handle {
            if case .connect(_, _, _, let cids, _) = request { taken.formUnion(cids) }
        }
        let range = L2CAPSignal.leDynamicCIDs
        let start = lastCID[handle].map { $0 == range.upperBound ? range.lowerBound : $0 + 1 } ?? range.lowerBound
        var free: [UInt16] = []
        for cid in Array(start...range.upperBound) + Array(range.lowerBound..<start) where !taken.contains(cid) {
            free.append(cid)
            if free.count == count { break }
        }
        return free
    }

    /// Gives out `cid` on the link.
    mutating func allocated(_ cid: UInt16, on handle: ConnectionHandle) {
        lastCID[handle] = cid
    }

    /// The channel on `handle` whose far end is `peerCID`.
    func channelKey(peerCID: UInt16, on handle: ConnectionHandle) -> L2CAPChannelKey? {
        channels.first { $0.key.handle == handle && $0.value.peerCID == peerCID }?.key
    }

    // MARK: Our requests

    /// Opens `count` channels to the peer's `psm`: one LE Credit Based Connection Request
    /// (§4.22, count 1) or one Credit Based Connection Request (§4.25, up to 5).
    package mutating func connect(
        psm: UInt16, on handle: ConnectionHandle, mode: L2CAPChannelMode, count: Int = 1, at now: Duration
    ) -> (token: UInt64, actions: [Action]) {
        let token = makeToken()
        let wanted = mode == .leCreditBased ? 1 : min(max(count, 1), L2CAPSignal.CIDList.capacity)
        let cids = freeLocalCIDs(on: handle, count: wanted)
        guard cids.count == wanted, let last = cids.last else {
            return (token, [.connected(token: token, .failure(.noChannelIdentifiers))])
        }
        allocated(last, on: handle)
        let identifier = identifier(on: handle)
        let config = configuration
        let command: L2CAPSignalCommand
        switch mode {
        case .leCreditBased:
            command = .leCreditBasedConnectionRequest(
                .init(
                    spsm: psm, sourceCID: cids[0], mtu: UInt16(config.mtu), mps: UInt16(config.mps),
                    initialCredits: UInt16(config.initialCredits)))
        case .enhancedCreditBased:
            command = .creditBasedConnectionRequest(
                .init(
                    spsm: psm, mtu: UInt16(max(config.mtu, 64)), mps: UInt16(max(config.mps, 64)),
                    initialCredits: UInt16(config.initialCredits), sourceCIDs: L2CAPSignal.CIDList(cids) ?? []))
        }
        outstanding[RequestKey(handle: handle, identifier: identifier)] = .connect(
            token: token, psm: psm, mode: mode, localCIDs: cids, deadline: now + config.signallingTimeout)
        return (token, [.send(L2CAPSignal(identifier: identifier, command: command), on: handle)])
    }

    /// Closes a channel of ours (§4.6): a Disconnection Request goes out and the channel ends
    /// for the app at once; its CID stays reserved until the peer answers or RTX expires.
    package mutating func disconnect(
        _ key: L2CAPChannelKey, reason: L2CAPChannelError = .closedLocally, at now: Duration
    ) -> [Action] {
        guard let index = channels.index(forKey: key), channels.values[index].state == .open else { return [] }
        channels.values[index].beginDisconnecting()
        let identifier = identifier(on: key.handle)
        outstanding[RequestKey(handle: key.handle, identifier: identifier)] = .disconnect(
            key, deadline: now + configuration.signallingTimeout)
        let request = L2CAPSignal.DisconnectionRequest(
            destinationCID: channels.values[index].peerCID, sourceCID: key.localCID)
        return [.send(request.signal(identifier: identifier), on: key.handle), .closed(key, reason)]
    }

    /// Asks the peer to take larger SDUs and K-frames from us on enhanced channels (§4.27).
    /// MTU may not shrink; MPS may shrink only on a single channel.
    package mutating func reconfigure(
        _ keys: [L2CAPChannelKey], mtu: Int, mps: Int, at now: Duration
    ) -> (token: UInt64, actions: [Action]) {
        let token = makeToken()
        let open = keys.compactMap { channels[$0] }.filter { $0.state == .open && $0.mode == .enhancedCreditBased }
        guard let handle = keys.first?.handle, open.count == keys.count, keys.allSatisfy({ $0.handle == handle }),
            (1...L2CAPSignal.CIDList.capacity).contains(keys.count), L2CAPSignal.enhancedMTURange.contains(mtu),
            L2CAPSignal.enhancedMPSRange.contains(mps), open.allSatisfy({ mtu >= $0.localMTU }),
            keys.count == 1 || open.allSatisfy({ mps >= $0.localMPS })
        else { return (token, [.reconfigured(token: token, .notOpen)]) }
        let identifier = identifier(on: handle)
        outstanding[RequestKey(handle: handle, identifier: identifier)] = .reconfigure(
            token: token, keys: keys, mtu: mtu, mps: mps, deadline: now + configuration.signallingTimeout)
        let request = L2CAPSignal.CreditBasedReconfigureRequest(
            mtu: UInt16(mtu), mps: UInt16(mps), destinationCIDs: L2CAPSignal.CIDList(keys.map(\.localCID)) ?? [])
        return (token, [.send(request.signal(identifier: identifier), on: handle)])
    }

    /// The peer broke flow control on `key`: disconnect the channel (§3.4.3, §10.1).
    package mutating func violated(_ key: L2CAPChannelKey, _ violation: L2CAPChannelViolation, at now: Duration) -> [Action] {
        disconnect(key, reason: .violation(violation), at: now)
    }

    // MARK: Time and links

    /// The earliest RTX deadline, if any request is outstanding.
    package var nextDeadline: Duration? { outstanding.values.lazy.map(\.deadline).min() }

    /// Ends our requests past their RTX deadline (§6.2.1): connections fail with `.timeout`,
    /// a disconnecting channel is freed.
    package mutating func timeout(at now: Duration) -> [Action] {
        var actions: [Action] = []
        for (key, request) in outstanding where request.deadline <= now {
            outstanding[key] = nil
            switch request {
            case .connect(let token, _, _, _, _):
                actions.append(.connected(token: token, .failure(.timeout)))
            case .disconnect(let channel, _):
                channels[channel] = nil
            case .reconfigure(let token, _, _, _, _):
                actions.append(.reconfigured(token: token, .timeout))
            }
        }
        return actions
    }

    /// The link is gone: its channels end, its requests fail.
    package mutating func linkDown(_ handle: ConnectionHandle, reason: HCIStatus) -> [Action] {
        var actions: [Action] = []
        for key in channels.keys.filter({ $0.handle == handle }).sorted() {
            if channels[key]?.state == .open { actions.append(.closed(key, .linkDown(reason))) }
            channels[key] = nil
        }
        for (key, request) in outstanding where key.handle == handle {
            outstanding[key] = nil
            switch request {
            case .connect(let token, _, _, _, _): actions.append(.connected(token: token, .failure(.linkDown(reason))))
            case .reconfigure(let token, _, _, _, _):
                actions.append(.reconfigured(token: token, .linkDown(reason)))
            case .disconnect: break
            }
        }
        lastIdentifier[handle] = nil
        lastCID[handle] = nil
        return actions
    }

    // MARK: Shared with the incoming half

    mutating func takeOutstanding(_ handle: ConnectionHandle, _ identifier: UInt8) -> Outstanding? {
        outstanding.removeValue(forKey: RequestKey(handle: handle, identifier: identifier))
    }

    func server(_ psm: UInt16) -> Server? { servers[psm] }

    func openChannels(to psm: UInt16) -> Int {
        channels.values.lazy.filter { $0.psm == psm && $0.state == .open }.count
    }

    /// Forgets one outstanding disconnection of `key` (the peer's crossing request ended it).
    mutating func dropOutstandingDisconnect(of key: L2CAPChannelKey) {
        for (request, value) in outstanding {
            if case .disconnect(let channel, _) = value, channel == key { outstanding[request] = nil }
        }
    }
}
