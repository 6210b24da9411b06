import BLEWire

// Resolving peers' resolvable private addresses with the IRKs of the bonds (Core 5.4 Vol 6
// Part B §1.3.2.3; Vol 3 Part C §10.7.1.2): in the controller's resolving list where it has LL
// privacy (Vol 4 Part E §7.8.38, §7.8.44 — its reports and LE Enhanced Connection Complete
// then carry the identity, typed 0x02 / 0x03, §7.7.65.10), and in the host for every address
// the controller left unresolved (a controller without LL privacy, a list that is full or could
// not be changed yet). Either way the layers above see the identity typed 0x02 / 0x03, so a
// bonded peer keeps one `Peripheral.identifier` across its address changes, and each link's
// security is keyed by the identity, so its bond is found and re-encryption works.
extension Host {
    /// Reads the bonded peers' IRKs again: after a bond was saved or removed through the host,
    /// or — for a store changed behind its back — when the app says so (`bondsChanged()`).
    func reloadPeerIdentities() {
        privacy.peerIRKs = bonds.compactMap { bond in bond.peerIRK.map { (bond.peer.identityForm, $0) } }
        privacy.lastSeen = privacy.lastSeen.filter { entry in privacy.peerIRKs.contains { $0.identity == entry.key } }
    }

    /// The bond store changed other than through this host: its IRKs are read again and the
    /// controller's resolving list follows.
    public func bondsChanged() async {
        reloadPeerIdentities()
        await syncResolvingList()
    }

    // MARK: Resolving in the host

    /// A peer address as the layers above should see it: an RPA the controller left
    /// unresolved that a bond's IRK resolves becomes that identity, typed 0x02 / 0x03 as a
    /// controller reports it; anything else unchanged.
    func resolvedPeer(_ address: LEAddress) -> LEAddress {
        guard let identity = PrivateAddress.resolve(address, among: privacy.peerIRKs) else { return address }
        privacy.lastSeen[identity] = address
        return identity.resolvedForm
    }

    /// An advertising report with its advertiser resolved (`resolvedPeer`).
    func resolved(_ report: LEMetaEvent.AdvertisingReport.Report) -> LEMetaEvent.AdvertisingReport.Report {
        var report = report
        report.address = resolvedPeer(report.address)
        return report
    }

    func resolved(_ report: LEMetaEvent.ExtendedAdvertisingReport.Report)
        -> LEMetaEvent.ExtendedAdvertisingReport.Report
    {
        var report = report
        report.address = resolvedPeer(report.address)
        return report
    }

    /// The address to give LE Create Connection for `peer`: a resolved identity (0x02 / 0x03)
    /// that the controller cannot resolve itself is replaced by the private address it was last
    /// seen at (the controller looks for that address on air).
    package func initiatorAddress(for peer: LEAddress) -> LEAddress {
        let identity = peer.identityForm
        guard identity != peer else { return peer }
        if privacy.controllerResolves, privacy.resolvingList.contains(identity) { return peer }
        return privacy.lastSeen[identity] ?? peer
    }

    /// The private address a bonded identity the host resolved by itself was last seen at.
    package func lastSeenAddress(of identity: LEAddress) -> LEAddress? {
        privacy.lastSeen[identity.identityForm]
    }

    /// The identity of a link's peer (what its security and bond are keyed by), and whether it
    /// was resolved from a private address to a bonded identity.
    func linkPeerIdentity(_ peer: LEAddress) -> (identity: LEAddress, resolved: Bool) {
        let identity = peer.identityForm
        return (identity, identity != peer)
    }

    // MARK: The controller's resolving list

    /// Brings the controller's resolving list to the bonds' IRKs and enables address
    /// resolution (§7.8.38–§7.8.40, §7.8.44), each entry in device privacy mode (§7.8.77) so a
    /// bonded peer that shows its identity address is still heard. A change the controller
    /// refuses now (Command Disallowed while advertising, scanning or initiating) is tried again
    /// before the next of them; the host resolves meanwhile.
    func syncResolvingList() async {
        guard configuration.security.resolvesInController, controllerInfo.leFeatures.contains(.llPrivacy) else {
            return
        }
        privacy.resolvingListStale = false
        let wanted = Dictionary(privacy.peerIRKs.map { ($0.identity, $0.irk) }, uniquingKeysWith: { first, _ in first })
        for identity in privacy.resolvingList.subtracting(wanted.keys).sorted(by: { $0.address < $1.address }) {
            let command = HCI.LERemoveDeviceFromResolvingList(
                peerIdentityAddressType: identity.type, peerIdentityAddress: identity.address)
            guard await privacyCommand(command) else { continue }
            privacy.resolvingList.remove(identity)
        }
        for (identity, irk) in wanted.sorted(by: { $0.key.address < $1.key.address })
        where !privacy.resolvingList.contains(identity) {
            let add = HCI.LEAddDeviceToResolvingList(
                peerIdentityAddressType: identity.type, peerIdentityAddress: identity.address, peerIRK: irk.hciKey,
                localIRK: identityResolvingKey.hciKey)
            guard await privacyCommand(add) else { continue }
            privacy.resolvingList.insert(identity)
            _ = await privacyCommand(
                HCI.LESetPrivacyMode(
                    peerIdentityAddressType: identity.type, peerIdentityAddress: identity.address, privacyMode: .device))
        }
        if !privacy.controllerResolves, !privacy.resolvingList.isEmpty {
            privacy.controllerResolves = await privacyCommand(HCI.LESetAddressResolutionEnable(addressResolutionEnable: true))
        }
    }

    /// Sends a privacy command; false when it failed (Command Disallowed marks the list stale,
    /// anything else is counted and logged — the host resolves that peer itself).
    private func privacyCommand<C: HCICommandWithCompleteEvent>(_ command: C) async -> Bool {
        do throws(HostError) {
            _ = try await send(command)
            return true
        } catch {
            if case .commandFailed(_, .commandDisallowed) = error {
                privacy.resolvingListStale = true
            } else {
                statistics.privacyCommandFailures += 1
                logger.notice("\(C.name) failed: \(error); the host resolves that peer itself")
            }
            return false
        }
    }
}

extension Host {
    /// A bond was saved or removed through the host: the IRKs are read again and the
    /// resolving list follows (on a task: the caller may be in the middle of an event).
    func peerIdentitiesChanged() {
        reloadPeerIdentities()
        spawn { await self.syncResolvingList() }
    }
}
