import BLEController
import BLEWire
import Testing

@testable import BLE
@testable import BLEHost

/// L2CAP connection-oriented channels between two hosts on the virtual radio, through the
/// public API (Core 5.4 Vol 3 Part A §4.22–§4.26, §10.1).
@Suite("L2CAP credit based channels through the public API (Core 5.4 Vol 3 Part A §4.22–§4.26)")
struct L2CAPChannelTests {
    /// A published PSM, a central's channel to it and the peripheral's end of it.
    struct OpenChannel {
        let peripheral: Peripheral
        let central: L2CAPChannel
        let server: L2CAPChannel
    }

    static func open(_ devices: TwoDevices, encryption: Bool = false) async throws -> OpenChannel {
        let manager = devices.peripheralManager
        var accepted = await manager.incomingL2CAPChannels().makeAsyncIterator()
        let psm = try await manager.publishL2CAPChannel(withEncryption: encryption)
        #expect(L2CAPPSM(0x80)...0xFF ~= psm)
        let peripheral = try await devices.publishAndConnect()
        let central = try await peripheral.openL2CAPChannel(psm)
        guard let server = await accepted.next() else { throw TestFailure("no incoming channel") }
        #expect(server.psm == psm)
        #expect(central.psm == psm)
        return OpenChannel(peripheral: peripheral, central: central, server: server)
    }

    @Test("§4.22–§4.23 a central opens a channel to a published PSM; SDUs flow both ways, segmented and reassembled")
    func exchange() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            var atServer = open.server.incoming.makeAsyncIterator()
            var atCentral = open.central.incoming.makeAsyncIterator()
            // An SDU of the peer's whole MTU: many K-frames of the MPS.
            let big = (0..<open.central.outgoingMTU).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try await open.central.write(big)
            #expect(await atServer.next() == big)
            try await open.server.write([1, 2, 3])
            #expect(await atCentral.next() == [1, 2, 3])
            try await open.server.write([])
            #expect(await atCentral.next() == [])
            // Far beyond the initial credits: the receiver gives credits back as it goes (§4.24).
            let sdus = (0..<60).map { index in (0..<1000).map { UInt8(truncatingIfNeeded: $0 + index) } }
            let writer = devices.spawn {
                for sdu in sdus { try await open.central.write(sdu) }
            }
            for sdu in sdus { #expect(await atServer.next() == sdu) }
            try await writer.value
            #expect(await devices.peripheralManager.hostStatistics.l2capChannelViolations == 0)
        }
    }

    @Test("A write longer than the peer's MTU throws at once; nothing is sent")
    func writeOverMTU() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            let mtu = open.central.outgoingMTU
            await #expect(throws: BLEError.l2cap(.sduTooLong(length: mtu + 1, mtu: mtu))) {
                try await open.central.write(Array(repeating: 0, count: mtu + 1))
            }
        }
    }

    @Test("§4.6 closing a channel ends both ends' streams; the link stays")
    func close() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            var atServer = open.server.incoming.makeAsyncIterator()
            await open.central.close()
            #expect(await atServer.next() == nil)
            #expect(await open.server.closeReason == .l2cap(.closedByPeer))
            #expect(await open.central.closeReason == .l2cap(.closedLocally))
            await #expect(throws: BLEError.l2cap(.closedLocally)) { try await open.central.write([1]) }
            #expect(await open.peripheral.state == .connected)
            // The CID is free again once the peer answered: a second channel opens.
            let psm = open.central.psm
            var accepted = await devices.peripheralManager.incomingL2CAPChannels().makeAsyncIterator()
            let again = try await open.peripheral.openL2CAPChannel(psm)
            #expect(await accepted.next() != nil)
            try await again.write([9])
        }
    }

    @Test("§4.23 refusals reach the app: SPSM not supported, insufficient encryption on an unencrypted link")
    func refusals() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            let encrypted = try await manager.publishL2CAPChannel(withEncryption: true)
            let peripheral = try await devices.publishAndConnect()
            await #expect(throws: BLEError.l2cap(.refused(.insufficientEncryption))) {
                _ = try await peripheral.openL2CAPChannel(encrypted)
            }
            await #expect(throws: BLEError.l2cap(.refused(.spsmNotSupported))) {
                _ = try await peripheral.openL2CAPChannel(0x00F0)
            }
            await manager.unpublishL2CAPChannel(encrypted)
            await #expect(throws: BLEError.l2cap(.refused(.spsmNotSupported))) {
                _ = try await peripheral.openL2CAPChannel(encrypted)
            }
            #expect(await peripheral.state == .connected)
        }
    }

    @Test("§4.25–§4.26 enhanced credit based channels: several open with one request and carry data")
    func enhanced() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            let incoming = await manager.incomingL2CAPChannels()
            let psm = try await manager.publishL2CAPChannel(withEncryption: false)
            let peripheral = try await devices.publishAndConnect()
            let channels = try await peripheral.openL2CAPChannels(psm, count: 3)
            #expect(channels.count == 3)
            #expect(channels.filter(\.isEnhanced).count == 3)
            var accepted: [L2CAPChannel] = []
            for await channel in incoming {
                accepted.append(channel)
                if accepted.count == 3 { break }
            }
            for (index, channel) in channels.enumerated() { try await channel.write([UInt8(index)]) }
            for (index, server) in accepted.enumerated() {
                var iterator = server.incoming.makeAsyncIterator()
                #expect(await iterator.next() == [UInt8(index)])
            }
        }
    }

    @Test("§4.27 reconfiguring enhanced channels: the peer then takes SDUs up to the new MTU")
    func reconfigure() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            var incoming = await manager.incomingL2CAPChannels().makeAsyncIterator()
            let psm = try await manager.publishL2CAPChannel(withEncryption: false)
            let peripheral = try await devices.publishAndConnect()
            let channels = try await peripheral.openL2CAPChannels(psm, count: 2)
            guard let server = await incoming.next() else { throw TestFailure("no incoming channel") }
            let big = Array(repeating: UInt8(0x5A), count: 3000)
            await #expect(throws: BLEError.l2cap(.sduTooLong(length: 3000, mtu: 2048))) { try await server.write(big) }
            let host = channels[0].host
            try await host.reconfigureL2CAPChannels(channels.map(\.info.key), mtu: 4096, mps: 300)
            // The MTU may not shrink (§4.27): refused before anything is sent.
            await #expect(throws: L2CAPChannelError.notOpen) {
                try await host.reconfigureL2CAPChannels([channels[0].info.key], mtu: 1024, mps: 300)
            }
            let first = channels.first { $0.info.key.localCID == server.info.peerCID }
            var atCentral = try #require(first).incoming.makeAsyncIterator()
            try await server.write(big)
            #expect(await atCentral.next() == big)
        }
    }

    @Test("A channel the app let go of without closing is closed when data arrives, not its SDUs dropped unseen")
    func abandonedChannel() async throws {
        try await TwoDevices.run { devices in
            let manager = devices.peripheralManager
            var incoming = await manager.incomingL2CAPChannels().makeAsyncIterator()
            let psm = try await manager.publishL2CAPChannel(withEncryption: false)
            let peripheral = try await devices.publishAndConnect()
            let central = try await peripheral.openL2CAPChannel(psm)
            // The peripheral's app takes the channel and keeps no reference to it.
            #expect(await incoming.next() != nil)
            try await central.write([1, 2, 3])
            var atCentral = central.incoming.makeAsyncIterator()
            #expect(await atCentral.next() == nil)
            #expect(await central.closeReason == .l2cap(.closedByPeer))
            #expect(await peripheral.state == .connected)
        }
    }

    @Test("The link going down ends every channel with its reason")
    func linkDown() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            var atServer = open.server.incoming.makeAsyncIterator()
            await devices.central.cancelPeripheralConnection(open.peripheral)
            #expect(await atServer.next() == nil)
            guard case .l2cap(.linkDown)? = await open.server.closeReason else {
                Issue.record("expected linkDown, got \(String(describing: await open.server.closeReason))")
                return
            }
            guard case .l2cap(.linkDown)? = await open.central.closeReason else {
                Issue.record("expected linkDown")
                return
            }
        }
    }

    // MARK: Peer violations: the channel closes, the link stays

    /// Sends `payload` as a raw K-frame from the central's host on its channel, bypassing
    /// segmentation and credits.
    static func sendRaw(_ payload: [UInt8], on channel: L2CAPChannel) async {
        let host = channel.host
        let key = channel.info.key
        await host.inPlaceSend(payload, on: key)
    }

    static func expectViolation(
        _ violation: L2CAPChannelViolation, _ devices: TwoDevices, _ open: OpenChannel
    ) async {
        // The peer's Disconnection Request ends the central's end; the server's is over by then
        // (its SDUs are not read: reading would give credits back).
        var atCentral = open.central.incoming.makeAsyncIterator()
        #expect(await atCentral.next() == nil)
        #expect(await open.central.closeReason == .l2cap(.closedByPeer))
        #expect(await open.server.closeReason == .l2cap(.violation(violation)))
        #expect(await open.peripheral.state == .connected)
        #expect(await devices.peripheralManager.hostStatistics.l2capChannelViolations == 1)
    }

    @Test("§3.4.3 a peer's SDU Length over the MTU disconnects the channel, not the link")
    func oversizedSDU() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            let mtu = open.server.incomingMTU
            await Self.sendRaw([UInt8(truncatingIfNeeded: mtu + 1), UInt8((mtu + 1) >> 8), 1, 2], on: open.central)
            await Self.expectViolation(.sduLongerThanMTU(length: mtu + 1, mtu: mtu), devices, open)
        }
    }

    @Test("§3.4.3 a peer's K-frame over the MPS disconnects the channel, not the link")
    func oversizedPDU() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            let mps = open.server.info.localMPS
            await Self.sendRaw([10, 0] + Array(repeating: 1, count: mps - 1), on: open.central)
            await Self.expectViolation(.pduLongerThanMPS(length: mps + 1, mps: mps), devices, open)
        }
    }

    @Test("§3.4.3 K-frames carrying more than their SDU Length disconnect the channel, not the link")
    func sduOverrun() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            await Self.sendRaw([2, 0, 1, 2, 3], on: open.central)
            await Self.expectViolation(.sduOverrun(sduLength: 2, received: 3), devices, open)
        }
    }

    /// A central writing SDUs of one K-frame each, 80 of them, to a server that reads none: the
    /// server gives back no credits while 8 SDUs wait unread, so the writer stalls after the
    /// 64 initial credits.
    static func stall(_ devices: TwoDevices, _ open: OpenChannel) async throws -> Task<Void, any Error> {
        let sdus = (0..<80).map { index in Array(repeating: UInt8(index), count: 100) }
        let writer = devices.spawn { for sdu in sdus { try await open.central.write(sdu) } }
        try await devices.sleep(for: .seconds(2))
        let credits = try #require(await open.central.host.l2capChannelCredits(open.central.info.key))
        #expect(credits.tx == 0)
        // The 65th SDU's K-frame waits for a credit, its write with it.
        #expect(credits.waiting == 1)
        #expect(open.server.info.backlog.unread == 64)
        return writer
    }

    @Test("§10.1 a reader that does not keep up stops the sender: no credits while SDUs wait unread")
    func backPressure() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            let writer = try await Self.stall(devices, open)
            var atServer = open.server.incoming.makeAsyncIterator()
            for index in 0..<80 { #expect(await atServer.next() == Array(repeating: UInt8(index), count: 100)) }
            try await writer.value
            #expect(open.server.info.backlog.unread == 0)
            #expect(await devices.peripheralManager.hostStatistics.l2capChannelViolations == 0)
        }
    }

    @Test("§10.1 a peer's K-frame beyond its credits disconnects the channel, not the link")
    func creditOverrun() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            let writer = try await Self.stall(devices, open)
            await Self.sendRaw([1, 0, 0x77], on: open.central)
            await Self.expectViolation(.kFrameWithoutCredit, devices, open)
            await #expect(throws: BLEError.l2cap(.closedByPeer)) { try await writer.value }
        }
    }

    @Test("§4.24 a peer's credits summing past 65535 disconnect the channel, not the link")
    func creditOverflow() async throws {
        try await TwoDevices.run { devices in
            let open = try await Self.open(devices)
            // The peripheral's host receives credits from the central's: grant the maximum twice.
            let initial = await open.server.host.l2capChannelCredits(open.server.info.key)?.tx ?? 0
            await open.central.host.inPlaceGrant(65535, on: open.central.info.key)
            var atServer = open.server.incoming.makeAsyncIterator()
            while await atServer.next() != nil {}
            #expect(await open.server.closeReason == .l2cap(.violation(.creditOverflow(total: initial + 65535))))
            var atCentral = open.central.incoming.makeAsyncIterator()
            #expect(await atCentral.next() == nil)
            #expect(await open.central.closeReason == .l2cap(.closedByPeer))
            #expect(await open.peripheral.state == .connected)
            #expect(await devices.peripheralManager.hostStatistics.l2capChannelViolations == 1)
        }
    }
}

extension Host {
    /// A raw K-frame on the channel `key`, outside segmentation and credits (a misbehaving peer).
    func inPlaceSend(_ payload: [UInt8], on key: L2CAPChannelKey) {
        guard let peer = l2cap.machine.channels[key]?.peerCID else { return }
        sendL2CAP(payload, channel: L2CAPChannelID(peer), on: key.handle, priority: .signaling)
    }

    /// A raw Flow Control Credit Indication for the channel `key` (a misbehaving peer).
    func inPlaceGrant(_ credits: UInt16, on key: L2CAPChannelKey) {
        let identifier = l2cap.machine.identifier(on: key.handle)
        let indication = L2CAPSignal.FlowControlCreditIndication(cid: key.localCID, credits: credits)
        sendL2CAP(indication.signal(identifier: identifier).encoded, channel: .leSignaling, on: key.handle, priority: .signaling)
    }
}
