import BLESimulation
import BLEWire

// LL privacy at work (Core 5.4 Vol 6 Part B §6): which address this device sends, what it makes
// of the addresses it receives, and the RPA timer that renews its private addresses.

extension VirtualController {
    // MARK: Own addresses (Vol 6 Part B §1.3, §6.2–§6.4; Vol 4 Part E §7.8.5, §7.8.10, §7.8.12)

    /// The address the controller sends for Own_Address_Type `type` toward `peer` (an identity
    /// address, when the role has one). 0x02 / 0x03 use an RPA made from the local IRK of
    /// `peer`'s resolving-list entry, and fall back to the public or random address when there
    /// is no such entry or its local IRK is zero. Nil when a random address is needed and none
    /// is set.
    ///
    /// Generation does not depend on Address_Resolution_Enable, which governs only what the
    /// controller does with the addresses it receives (§7.8.44).
    func ownAddress(_ type: HCI.OwnAddressType, random: BluetoothAddress?, peer: LEAddress? = nil) -> LEAddress? {
        if type.isResolvable, let peer, let rpa = localRPA(toward: peer) { return LEAddress(rpa, type: .random) }
        switch type {
        case .public, .resolvableOrPublic: return LEAddress(publicAddress, type: .public)
        case .random, .resolvableOrRandom: return random.map { LEAddress($0, type: .random) }
        case .other: return nil
        }
    }

    /// The address a scanner or initiator sends toward a peer it just heard: the RPA of the
    /// peer's entry for 0x02 / 0x03, else `fallback` (the public or random address chosen when
    /// the role was enabled).
    func localAddress(_ type: HCI.OwnAddressType, fallback: LEAddress, toward peer: ReceivedAddress?) -> LEAddress {
        guard type.isResolvable, let identity = peer?.identity, let rpa = localRPA(toward: identity) else {
            return fallback
        }
        return LEAddress(rpa, type: .random)
    }

    /// The Local_Resolvable_Private_Address of a connection (§7.7.65.10): the address this
    /// device used, when Own_Address_Type asked for an RPA and it got one; zeros otherwise.
    func localResolvableAddress(_ type: HCI.OwnAddressType, used address: LEAddress) -> BluetoothAddress {
        type.isResolvable && address.kind == .resolvablePrivate ? address.address : .zero
    }

    /// The RPA this device currently uses toward `peer`, generated from the entry's local IRK
    /// when there is none yet; nil without an entry or with a zero local IRK.
    func localRPA(toward peer: LEAddress) -> BluetoothAddress? {
        guard let index = privacy.index(of: peer), privacy.resolvingList[index].hasLocalIRK else { return nil }
        if let rpa = privacy.resolvingList[index].localRPA { return rpa }
        let rpa = ResolvablePrivateAddress.generate(irk: privacy.resolvingList[index].localIRK, using: &random)
        privacy.resolvingList[index].localRPA = rpa
        startRPATimer()
        return rpa
    }

    /// TargetA of connectable directed advertising toward `peer` (§6.2): an RPA from the peer's
    /// IRK when the resolving list has one, else the identity address itself.
    func directedTarget(_ peer: LEAddress) -> LEAddress {
        guard let index = privacy.index(of: peer), privacy.resolvingList[index].hasPeerIRK else { return peer }
        if let rpa = privacy.resolvingList[index].targetRPA { return LEAddress(rpa, type: .random) }
        let rpa = ResolvablePrivateAddress.generate(irk: privacy.resolvingList[index].peerIRK, using: &random)
        privacy.resolvingList[index].targetRPA = rpa
        privacy.resolvingList[index].peerRPA = rpa
        startRPATimer()
        return LEAddress(rpa, type: .random)
    }

    // MARK: Received addresses (Vol 6 Part B §1.3.2.3, §6.2–§6.4; Vol 4 Part E §7.8.44, §7.8.77)

    /// What the controller makes of a peer's AdvA, ScanA or InitA. With address resolution
    /// enabled an RPA is resolved against every entry's peer IRK, and an unresolved one is kept
    /// as received; the identity address of an entry with a peer IRK is refused (nil) unless
    /// the entry is in device privacy mode.
    func receivedPeer(_ onAir: LEAddress) -> ReceivedAddress? {
        guard privacy.resolutionEnabled else { return .unresolved(onAir) }
        if onAir.kind == .resolvablePrivate {
            for index in privacy.resolvingList.indices {
                let entry = privacy.resolvingList[index]
                guard entry.hasPeerIRK, ResolvablePrivateAddress.resolves(onAir.address, with: entry.peerIRK) else {
                    continue
                }
                privacy.resolvingList[index].peerRPA = onAir.address
                return ReceivedAddress(onAir: onAir, identity: entry.identity, resolved: true)
            }
            return .unresolved(onAir)
        }
        guard let index = privacy.index(of: onAir) else { return .unresolved(onAir) }
        let entry = privacy.resolvingList[index]
        if entry.hasPeerIRK && entry.privacyMode == .network { return nil }
        return ReceivedAddress(onAir: onAir, identity: entry.identity, resolved: false)
    }

    /// Whether a TargetA from `peer` names this device: one of its own addresses, or, with
    /// address resolution enabled, an RPA made from the local IRK of `peer`'s entry (§6.3, §6.4).
    func isAddressedToMe(_ target: LEAddress, own: LEAddress, from peer: ReceivedAddress?) -> Bool {
        if isOwn(target, as: own) { return true }
        guard privacy.resolutionEnabled, target.kind == .resolvablePrivate, let identity = peer?.identity,
            let index = privacy.index(of: identity)
        else { return false }
        let entry = privacy.resolvingList[index]
        return entry.hasLocalIRK && ResolvablePrivateAddress.resolves(target.address, with: entry.localIRK)
    }

    // MARK: The RPA timer (§7.8.45)

    /// Starts the timer when the first controller-generated RPA comes into use.
    private func startRPATimer() {
        guard privacy.rpaTimer == nil else { return }
        scheduleRPATimer(started: now)
    }

    /// (Re)arms the timer to expire `rpaTimeout` after `started` (at once if that has passed).
    func scheduleRPATimer(started: VirtualInstant) {
        if let timer = privacy.rpaTimer { air.queue.cancel(timer.token) }
        let token = air.queue.schedule(at: max(now, started.advanced(by: privacy.rpaTimeout))) { [weak self] in
            self?.rpaTimeoutExpired()
        }
        privacy.rpaTimer = (token, started)
    }

    func cancelRPATimer() {
        if let timer = privacy.rpaTimer { air.queue.cancel(timer.token) }
        privacy.rpaTimer = nil
    }

    /// The RPA timeout: every generated RPA is retired. Enabled advertising sets take new ones
    /// at once (their next PDU carries them, which restarts the timer); scanners and initiators
    /// generate theirs with their next request.
    private func rpaTimeoutExpired() {
        privacy.rpaTimer = nil
        for index in privacy.resolvingList.indices {
            privacy.resolvingList[index].localRPA = nil
            privacy.resolvingList[index].targetRPA = nil
        }
        for handle in advertisingSets.keys.sorted() {
            guard let set = advertisingSets[handle], let run = set.run else { continue }
            let p = set.parameters
            if p.ownAddressType.isResolvable,
                let address = ownAddress(p.ownAddressType, random: advertisingRandomAddress(of: set), peer: p.peer)
            {
                run.address = address
            }
            if p.isDirected { run.target = directedTarget(p.peer) }
        }
    }

    /// The random address a set advertises with: the controller's for the legacy commands, the
    /// set's own for the extended ones (§7.8.4, §7.8.52).
    func advertisingRandomAddress(of set: AdvertisingSet) -> BluetoothAddress? {
        set.isLegacyCommandSet ? randomAddress : set.randomAddress
    }
}
