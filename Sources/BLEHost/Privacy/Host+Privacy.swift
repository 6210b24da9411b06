import BLEWire

// This host's own privacy (Core 5.4 Vol 6 Part B §1.3.2.2; Vol 3 Part C §10.7.1): its identity
// key, and the resolvable private address it advertises, scans and initiates with when the
// security policy asks for privacy.
//
// The host makes the address itself from its IRK and sets it with LE Set Random Address
// (Vol 4 Part E §7.8.4; LE Set Advertising Set Random Address, §7.8.52, for extended sets),
// with Own_Address_Type 0x01 (random). It does not use the controller's own generation
// (Own_Address_Type 0x02 / 0x03, §7.8.5): that makes an address only toward a peer in the
// resolving list, and needs LL privacy, which many controllers lack; the host's way works on
// every controller and keeps `currentAddress` exact. The address is renewed every
// `PrivacyPolicy.addressRenewal` on the host's clock. A controller refuses a new random address
// while legacy advertising, scanning or initiating uses the old one (§7.8.4): nothing running is
// broken — the new address waits and is set before the next of them starts
// (`prepareOwnAddress`). An enabled connectable extended set also refuses a new address
// (§7.8.52); the host pauses that set for the change (disable, set, enable: a gap of a few
// commands in its advertising), as it knows the sets that advertise from its private address.
extension Host {
    /// The address this host shows on air now: its resolvable private address when the policy
    /// asks for privacy, else its identity address (`ownAddress`, which bonds are keyed by).
    public var currentAddress: LEAddress? { privacy.address ?? ownAddress }

    /// At start (and after a controller reset): this host's IRK — the configuration's, else the
    /// bond store's, else a new one saved there — then its private address and the resolving list.
    func startPrivacy() async {
        loadLocalIdentity()
        reloadPeerIdentities()
        privacy.address = nil
        privacy.resolvingList = []
        privacy.controllerResolves = false
        privacy.advertisingSets = []
        await syncResolvingList()
        guard configuration.security.privacy != nil else { return }
        await renewOwnAddress()
    }

    /// Stops the renewal timer (the host stopped).
    func stopPrivacy() {
        privacy.timer?.cancel()
        privacy.timer = nil
    }

    /// Takes the store's IRK when the configuration names none; saves the host's own when the
    /// store has none yet, so that peers that bonded keep recognising this host after a restart.
    private func loadLocalIdentity() {
        guard configuration.identityResolvingKey == nil else { return }
        do throws(BondStoreError) {
            if let stored = try configuration.bondStore.localIdentity() {
                identityResolvingKey = stored
            } else {
                try configuration.bondStore.saveLocalIdentity(identityResolvingKey)
            }
        } catch {
            bondStoreFailed(error)
        }
    }

    // MARK: The address

    /// Makes a new resolvable private address and sets it; when the controller refuses it for
    /// now, the renewal waits (`renewalPending`). Arms the timer for the next renewal.
    func renewOwnAddress() async {
        guard let policy = configuration.security.privacy else { return }
        var generator = SystemRandomNumberGenerator()
        let address = PrivateAddress.generate(irk: identityResolvingKey, using: &generator)
        do throws(HostError) {
            try await send(HCI.LESetRandomAddress(randomAddress: address))
            privacy.address = LEAddress(address, type: .random)
            privacy.renewalPending = false
            logger.debug("own resolvable private address \(address)")
            for set in privacy.advertisingSets.sorted() { await setAdvertisingSetAddress(set, address) }
        } catch {
            if case .commandFailed(_, .commandDisallowed) = error {
                logger.debug("own address renewal waits: the controller uses the current one")
            } else {
                statistics.privacyCommandFailures += 1
                logger.notice("LE Set Random Address for a private address failed: \(error)")
            }
            privacy.renewalPending = true
        }
        scheduleRenewal(after: policy.addressRenewal)
    }

    private func scheduleRenewal(after period: Duration) {
        privacy.timer?.cancel()
        let due = timeline.now() + period
        privacy.renewalDue = due
        let timeline = self.timeline
        privacy.timer = spawn { [weak self] in
            do { try await timeline.sleep(until: due) } catch { return }
            await self?.renewalTimerFired(due)
        }
    }

    private func renewalTimerFired(_ due: Duration) async {
        guard case .running = runState, privacy.renewalDue == due else { return }
        await renewOwnAddress()
    }

    /// Before advertising (legacy), scanning or initiating starts: a renewal or a resolving-list
    /// change the controller refused while the previous one ran is made now.
    package func prepareOwnAddress() async {
        if privacy.resolvingListStale { await syncResolvingList() }
        guard privacy.renewalPending, configuration.security.privacy != nil else { return }
        var generator = SystemRandomNumberGenerator()
        let address = PrivateAddress.generate(irk: identityResolvingKey, using: &generator)
        do throws(HostError) {
            try await send(HCI.LESetRandomAddress(randomAddress: address))
            privacy.address = LEAddress(address, type: .random)
            privacy.renewalPending = false
        } catch {
            logger.debug("own address renewal still waits: \(error)")
        }
    }

    /// Gives extended advertising set `set` this host's current random address (§7.8.52) and,
    /// with privacy, renews it with the host's address from now on.
    package func useCurrentAddress(forAdvertisingSet set: UInt8) async throws(HostError) {
        guard let address = currentAddress, address.type == .random else { return }
        if privacy.address != nil { privacy.advertisingSets.insert(set) }
        try await send(HCI.LESetAdvertisingSetRandomAddress(advertisingHandle: set, randomAddress: address.address))
    }

    /// Gives a set the new address. An enabled connectable set refuses it (Command Disallowed,
    /// §7.8.52): it is paused for the change — disabled, given the address, enabled again
    /// (§7.8.56) — so a peripheral that advertises for hours still renews its address.
    private func setAdvertisingSetAddress(_ set: UInt8, _ address: BluetoothAddress) async {
        let change = HCI.LESetAdvertisingSetRandomAddress(advertisingHandle: set, randomAddress: address)
        do throws(HostError) {
            do throws(HostError) {
                try await send(change)
            } catch .commandFailed(_, .commandDisallowed) {
                try await send(HCI.LESetExtendedAdvertisingEnable(enable: false, sets: [.init(advertisingHandle: set)]))
                try await send(change)
                try await send(HCI.LESetExtendedAdvertisingEnable(enable: true, sets: [.init(advertisingHandle: set)]))
            }
        } catch {
            // A set that is gone no longer needs an address; any other failure leaves the set
            // with its old one until it is started again.
            if case .commandFailed(_, .unknownAdvertisingIdentifier) = error {
                privacy.advertisingSets.remove(set)
            } else {
                statistics.privacyCommandFailures += 1
                logger.notice("advertising set \(set) keeps its old address until restarted: \(error)")
            }
        }
    }
}
