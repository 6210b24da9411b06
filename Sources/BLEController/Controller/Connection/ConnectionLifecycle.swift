import BLESimulation
import BLEWire

// A connection from creation to termination (Core 5.4 Vol 6 Part B §4.5): its HCI events, its
// supervision timer, and the connection events the central drives.

extension VirtualController {
    /// Opens this side of a connection created by CONNECT_IND or AUX_CONNECT_RSP, and tells the
    /// host (LE Connection Complete or Enhanced Connection Complete, then LE Channel Selection
    /// Algorithm). `localRPA` is the RPA this device used to make it, zeros for none.
    @discardableResult
    func openConnection(
        role: ConnectionRole, link: ConnectionLink, peer: ReceivedAddress, localRPA: BluetoothAddress = .zero,
        advertisingHandle: UInt8 = 0xFF, centralClockAccuracy: UInt8 = 0
    ) -> Connection {
        let connection = Connection(
            handle: allocateConnectionHandle(), role: role, peerAddress: peer, localRPA: localRPA, link: link,
            createdAt: now, owner: self, localTx: (suggestedMaxTxOctets, suggestedMaxTxTime),
            localRx: (configuration.supportedMaxRxOctets, configuration.supportedMaxRxTime))
        connection.preferredTxPHYs = defaultTxPHYs
        connection.preferredRxPHYs = defaultRxPHYs
        connections[connection.handle] = connection
        switch role {
        case .central: link.central = connection
        case .peripheral:
            link.peripheral = connection
            link.peripheralRadio = radio
        }
        scheduleSupervision(connection)
        sendConnectionComplete(
            connection, advertisingHandle: advertisingHandle, centralClockAccuracy: centralClockAccuracy)
        send(
            le: .channelSelectionAlgorithm(
                .init(connectionHandle: connection.handle, channelSelectionAlgorithm: .algorithm2)))
        if role == .central { scheduleConnectionEvent(link) }
        // A host that asked for longer packets by default gets them negotiated at once (§4.5.10).
        if suggestedMaxTxOctets != 27 || suggestedMaxTxTime != 328 { startDataLengthProcedure(connection) }
        return connection
    }

    private func allocateConnectionHandle() -> ConnectionHandle {
        while connections[nextConnectionHandle] != nil || nextConnectionHandle == 0 || !nextConnectionHandle.isValid {
            nextConnectionHandle = Self.handle(after: nextConnectionHandle)
        }
        let handle = nextConnectionHandle
        nextConnectionHandle = Self.handle(after: handle)
        return handle
    }

    /// The next candidate, wrapping past 0x0EFF to 0x0001 (0x0000 is never handed out).
    private static func handle(after handle: ConnectionHandle) -> ConnectionHandle {
        handle >= .maximum ? 0x0001 : ConnectionHandle(handle.rawValue + 1)
    }

    /// LE Connection Complete, or its Enhanced [v1] or [v2] form when the host unmasked them
    /// (Core 5.4 Vol 4 Part E §7.7.65.1, §7.7.65.10): both sides report the same interval,
    /// latency and timeout. A peer whose RPA was resolved is reported by its identity address
    /// (type 0x02 / 0x03); the enhanced forms add the RPAs both sides used.
    private func sendConnectionComplete(_ c: Connection, advertisingHandle: UInt8, centralClockAccuracy: UInt8) {
        let t = c.timing
        let legacy = LEMetaEvent.ConnectionComplete(
            connectionHandle: c.handle, role: c.role.hci, peerAddress: c.peerAddress.reported,
            connectionInterval: t.interval, peripheralLatency: t.latency, supervisionTimeout: t.timeout,
            centralClockAccuracy: c.role == .central ? 0 : centralClockAccuracy)
        sendConnectionCompleteEvent(
            legacy, localRPA: c.localRPA, peerRPA: c.peerAddress.resolvablePrivateAddress,
            advertisingHandle: advertisingHandle)
    }

    /// A failed connection attempt: cancelled (0x02), high duty cycle advertising timed out
    /// (0x3C), … All other fields are zero.
    func sendConnectionComplete(failure status: HCIStatus, role: ConnectionRole) {
        let legacy = LEMetaEvent.ConnectionComplete(
            status: status, connectionHandle: 0, role: role.hci, peerAddress: LEAddress(.zero, type: .public),
            connectionInterval: 0, peripheralLatency: 0, supervisionTimeout: 0, centralClockAccuracy: 0)
        sendConnectionCompleteEvent(legacy, localRPA: .zero, peerRPA: .zero, advertisingHandle: 0xFF)
    }

    private func sendConnectionCompleteEvent(
        _ legacy: LEMetaEvent.ConnectionComplete, localRPA: BluetoothAddress, peerRPA: BluetoothAddress,
        advertisingHandle: UInt8
    ) {
        var enhanced = LEMetaEvent.EnhancedConnectionComplete(legacy)
        enhanced.localResolvablePrivateAddress = localRPA
        enhanced.peerResolvablePrivateAddress = peerRPA
        if masks.allowsLE(.enhancedConnectionCompleteV2) {
            send(
                le: .enhancedConnectionCompleteV2(
                    .init(enhanced, advertisingHandle: advertisingHandle, syncHandle: 0xFFFF)))
        } else if masks.allowsLE(.enhancedConnectionComplete) {
            send(le: .enhancedConnectionComplete(enhanced))
        } else {
            send(le: .connectionComplete(legacy))
        }
    }

    // MARK: Supervision (§4.5.2)

    /// The supervision deadline: 6 connection intervals after creation until the first packet
    /// arrives, then connSupervisionTimeout after the last one.
    func supervisionDeadline(_ c: Connection) -> VirtualInstant {
        if let last = c.lastReceived { return last.advanced(by: c.timing.timeoutDuration) }
        return c.createdAt.advanced(by: c.timing.intervalDuration * 6)
    }

    func scheduleSupervision(_ c: Connection) {
        if let token = c.supervisionToken { air.queue.cancel(token) }
        // `c` is held strongly (a weak reference would give every connection a side table and
        // slow each of its retains): the timer keeps a closed connection's object alive until
        // its deadline at most, and does nothing then, as `c` is no longer in `connections`.
        c.supervisionToken = air.queue.schedule(at: supervisionDeadline(c)) { [weak self, c] in
            guard let self, self.connections[c.handle] === c else { return }
            if self.now < self.supervisionDeadline(c) {
                self.scheduleSupervision(c)
                return
            }
            // The connection is lost: 0x08, or 0x3E when it never got established (§4.5.2);
            // a termination the host asked for still reports the host's reason.
            let reason: HCIStatus =
                c.terminationReason != nil
                ? .connectionTerminatedByLocalHost
                : (c.isEstablished ? .connectionTimeout : .connectionFailedToBeEstablished)
            self.closeConnection(c, reason: reason)
        }
    }

    // MARK: Ending

    /// Ends this side of the connection and tells the host (Disconnection Complete, §7.7.5).
    /// The host's packets still queued on the handle are flushed: it counts them as freed.
    func closeConnection(_ c: Connection, reason: HCIStatus) {
        guard connections[c.handle] === c else { return }
        abandon(c)
        send(.disconnectionComplete(.init(connectionHandle: c.handle, reason: reason)))
    }

    /// Drops this side of the connection without a word (Reset, or after closing).
    func abandon(_ c: Connection) {
        if connections[c.handle] === c { connections[c.handle] = nil }
        if let token = c.supervisionToken { air.queue.cancel(token) }
        c.supervisionToken = nil
        // Every buffer the connection's host packets hold comes back, wherever the packet was:
        // counting what is still queued would miss one acknowledged on air whose delivery step
        // had not run yet (it is then in no queue), leaking a buffer per such disconnect.
        c.transmit.removeAllData()
        aclPacketsInController -= c.hostPacketsHeld
        c.hostPacketsHeld = 0
        c.completedPackets = 0
        switch c.role {
        case .central:
            if let token = c.link.eventToken { air.queue.cancel(token) }
            c.link.eventToken = nil
            if c.link.central === c { c.link.central = nil }
        case .peripheral:
            if c.link.peripheral === c { c.link.peripheral = nil }
        }
    }

    // MARK: Connection events (§4.5.1)

    func scheduleConnectionEvent(_ link: ConnectionLink) {
        // The link is the closure's only capture (no context to allocate per event); the central
        // end's owner is this controller, held weakly as before, and the event is cancelled
        // when the central end goes (`abandon`).
        link.eventToken = air.queue.schedule(at: link.nextAnchor) { [link] in
            link.central?.owner?.runConnectionEvent(link)
        }
    }

    private func runConnectionEvent(_ link: ConnectionLink) {
        guard let central = link.central, central.owner === self else { return }
        let anchor = link.nextAnchor
        applyInstants(link)
        let closingAfterEvent = central.terminationReceived
        let interval = link.timing.intervalDuration
        let peripheral = link.peripheral
        let listening = peripheral != nil && link.peripheralInStep
        let centralDirection = LinkDirection(
            phy: link.centralToPeripheralPHY, maxPayload: central.maximumPayload, encrypted: central.encryption.isOn)
        let peripheralDirection = LinkDirection(
            phy: link.peripheralToCentralPHY, maxPayload: peripheral?.maximumPayload ?? 27,
            encrypted: peripheral?.encryption.isOn ?? false)
        // The one radio is shared with the other connections this controller leads.
        // The planner's room for a first pair: the central's next packet and a full-length reply.
        let firstPair = link.firstPairPlanner.planner(
            central: centralDirection, peripheral: peripheralDirection, interval: interval
        ).firstPairRoom(centralPayload: central.transmit.nextPayloadLength(maxPayload: centralDirection.maxPayload))
        guard
            let eventLength = allottedEventLength(
                link, at: anchor, eventLength: min(link.eventLength ?? interval, interval), firstPair: firstPair)
        else {
            skipConnectionEvent(link, anchor: anchor, handle: central.handle)
            return
        }
        link.skippedLastEvent = false
        let setup = ConnectionEventSetup(
            anchor: anchor, counter: link.eventCounter, interval: interval, eventLength: eventLength,
            central: centralDirection, peripheral: peripheralDirection, peripheralListening: listening)
        let centralPower = configuration.txPower
        let peripheralPower = peripheral?.owner?.configuration.txPower ?? 0
        // The outcome is written into the link's delivery, reusing its buffers, unless the last
        // event's steps are still running (they end by that event's end, before this anchor).
        if link.delivery.isDelivering { link.delivery = ConnectionEventDelivery() }
        let delivery = link.delivery
        // Nothing moves during the event, which is planned at once: each packet only draws its
        // loss, with the RSSI each way worked out before.
        let rssi = linkRSSI(link, centralPower: centralPower, peripheralPower: peripheralPower)
        // A local function called directly, with the medium as a closure literal: nothing here
        // escapes, so no closure context is allocated per event.
        func exchangePackets(peripheralQueue: inout LinkTransmitQueue) {
            exchange.run(
                setup, central: &central.transmit, peripheral: &peripheralQueue, into: &delivery.outcome
            ) { [air] sender in
                guard let rssi else { return nil }
                let (centralRadio, peripheralRadio) = (link.centralRadio, rssi.peripheralRadio)
                switch sender {
                case .central:
                    return air.sampleReception(rssi: rssi.atPeripheral, from: centralRadio, to: peripheralRadio)
                case .peripheral:
                    return air.sampleReception(rssi: rssi.atCentral, from: peripheralRadio, to: centralRadio)
                }
            }
        }
        if let peripheral, listening {
            exchangePackets(peripheralQueue: &peripheral.transmit)
        } else {
            var nobody = LinkTransmitQueue()
            exchangePackets(peripheralQueue: &nobody)
        }
        let end = delivery.outcome.end
        delivery.start(on: link, queue: air.queue)
        connectionEventCount += 1
        lastCentralEvent = (ObjectIdentifier(link), end)
        onConnectionEvent?(
            ConnectionEventRecord(
                handle: central.handle, counter: link.eventCounter, anchor: anchor, end: end, skipped: false))
        link.eventCounter &+= 1
        link.nextAnchor = anchor.advanced(by: interval)
        if let reason = closingAfterEvent {
            // The peer's LL_TERMINATE_IND is acknowledged by this event's packet (§5.1.6).
            air.queue.schedule(at: end) { [weak self, weak central] in
                guard let self, let central else { return }
                self.closeConnection(central, reason: reason)
            }
        } else {
            scheduleConnectionEvent(link)
        }
    }

    /// The RSSI at both ends of `link` (nil while it has no peripheral radio): kept from the
    /// last event while nothing it depends on changed, as path loss is not cheap to work out.
    private func linkRSSI(_ link: ConnectionLink, centralPower: Int8, peripheralPower: Int8) -> LinkRSSI? {
        guard let peripheralRadio = link.peripheralRadio else { return nil }
        if let known = link.rssi, known.geometryVersion == air.geometryVersion,
            known.peripheralRadio == peripheralRadio, known.centralPower == centralPower,
            known.peripheralPower == peripheralPower
        {
            return known
        }
        let rssi = LinkRSSI(
            geometryVersion: air.geometryVersion, peripheralRadio: peripheralRadio, centralPower: centralPower,
            peripheralPower: peripheralPower,
            atPeripheral: air.rssi(from: link.centralRadio, to: peripheralRadio, txPower: centralPower),
            atCentral: air.rssi(from: peripheralRadio, to: link.centralRadio, txPower: peripheralPower))
        link.rssi = rssi
        return rssi
    }

    /// A connection event given up to another connection's (`RadioSharing`): nothing is sent,
    /// the counter moves on (the change at an instant has been applied all the same).
    private func skipConnectionEvent(_ link: ConnectionLink, anchor: VirtualInstant, handle: ConnectionHandle) {
        link.skippedLastEvent = true
        onConnectionEvent?(
            ConnectionEventRecord(
                handle: handle, counter: link.eventCounter, anchor: anchor, end: anchor, skipped: true))
        link.eventCounter &+= 1
        link.nextAnchor = anchor.advanced(by: link.timing.intervalDuration)
        scheduleConnectionEvent(link)
    }

    /// An empty packet from the peer: the link is alive (supervision restarts from its arrival).
    func linkAlive(_ reception: ConnectionEventOutcome.Reception, on c: Connection) {
        guard connections[c.handle] === c else { return }
        c.lastReceived = reception.at
        c.lastRSSI = reception.rssi
    }

    /// A packet from the peer arrived on `c`.
    func linkReceived(_ reception: ConnectionEventOutcome.Reception, on c: Connection) {
        guard connections[c.handle] === c else { return }
        c.lastReceived = reception.at
        c.lastRSSI = reception.rssi
        guard reception.isNew else { return }
        switch reception.pdu {
        case .empty: return
        case .data(let data): deliverToHost(data, on: c)
        case .control(let control): handleControl(control, on: c)
        }
    }

    /// The peer acknowledged a PDU `c` sent. A completed host packet is reported at once, or
    /// held for the event's end, as the Number Of Completed Packets policy says.
    func linkAcknowledged(_ pdu: LinkLayerPDU, on c: Connection) {
        guard connections[c.handle] === c else { return }
        switch pdu {
        case .data(let data) where data.completesHostPacket:
            c.completedPackets += 1
            switch configuration.completedPacketsReporting {
            case .endOfEvent: break
            case .perAcknowledgement: reportCompletedPackets(c)
            case .coalesced(let threshold):
                if c.completedPackets >= max(1, threshold) { reportCompletedPackets(c) }
            }
        case .control(.terminateInd): closeConnection(c, reason: .connectionTerminatedByLocalHost)
        default: return
        }
    }

    /// Applies the changes whose instant is this event (§5.1.1, §5.1.10): both ends switch at
    /// the same anchor and both hosts hear of it.
    private func applyInstants(_ link: ConnectionLink) {
        let counter = link.eventCounter
        if let update = link.pendingTimingUpdate, update.instant == counter {
            link.pendingTimingUpdate = nil
            let previous = link.timing
            link.timing = update.timing
            // A peripheral that never got the indication keeps the old timing: it is lost.
            if !link.peripheralHasTimingUpdate { link.peripheralInStep = false }
            let informed = link.peripheralInStep ? [link.central, link.peripheral] : [link.central]
            for connection in informed.compactMap({ $0 }) {
                guard let owner = connection.owner else { continue }
                let wasRequested = connection.hostRequestedUpdate
                connection.hostRequestedUpdate = false
                if previous != update.timing || wasRequested {
                    owner.send(
                        le: .connectionUpdateComplete(
                            .init(
                                connectionHandle: connection.handle, connectionInterval: update.timing.interval,
                                peripheralLatency: update.timing.latency, supervisionTimeout: update.timing.timeout)))
                }
                owner.scheduleSupervision(connection)
            }
        }
        if let update = link.pendingPHYUpdate, update.instant == counter {
            link.pendingPHYUpdate = nil
            if let phy = update.centralToPeripheral { link.centralToPeripheralPHY = phy }
            if let phy = update.peripheralToCentral { link.peripheralToCentralPHY = phy }
            if !link.peripheralHasPHYUpdate { link.peripheralInStep = false }
            let informed = link.peripheralInStep ? [link.central, link.peripheral] : [link.central]
            for connection in informed.compactMap({ $0 }) {
                connection.owner?.completePHYUpdate(on: connection)
            }
        }
    }
}
