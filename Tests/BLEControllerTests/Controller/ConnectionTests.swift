import BLEWire
import Testing

@testable import BLEController

@Suite("Connections (Core 5.4 Vol 6 Part B §4.4.4, §4.5; Vol 4 Part E §7.8.12, §7.1.6)")
struct ConnectionTests {
    @Test("LE Create Connection: both sides get LE Connection Complete with the same interval, latency and timeout")
    func sameParameters() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 3))
        let parameters = HCI.ConnectionParameters(
            connectionIntervalMin: 40, connectionIntervalMax: 56, maxLatency: 2, supervisionTimeout: 300)
        _ = try #require(Scenario.connect(central, peripheral, parameters: parameters))
        let c = try #require(central.connectionCompletes.first)
        let p = try #require(peripheral.connectionCompletes.first)
        #expect(c.status == .success && p.status == .success)
        #expect(c.role == .central && p.role == .peripheral)
        #expect(c.connectionInterval == 40 && p.connectionInterval == 40)
        #expect(c.peripheralLatency == 2 && p.peripheralLatency == 2)
        #expect(c.supervisionTimeout == 300 && p.supervisionTimeout == 300)
        #expect(c.peerAddress == LEAddress(peripheral.controller.publicAddress, type: .public))
        #expect(p.peerAddress == LEAddress(central.controller.publicAddress, type: .public))
        #expect(p.centralClockAccuracy != 0 || c.centralClockAccuracy == 0)
        #expect(!peripheral.controller.isAdvertising)
        #expect(!central.controller.isInitiating)
        // Both hosts also learn the channel selection algorithm (§7.7.65.20).
        #expect(central.leEvents.contains { if case .channelSelectionAlgorithm = $0 { true } else { false } })
        // The link carries packets: RSSI becomes available on both sides.
        central.run(for: .milliseconds(200))
        let rssi = try central.returnParameters(HCI.ReadRSSI(handle: c.connectionHandle)).rssi
        #expect(rssi == -50)
    }

    @Test("Read RSSI on a link follows a move and a change of the propagation model (§7.5.4)")
    func rssiFollowsGeometry() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 3))
        _ = try #require(Scenario.connect(central, peripheral))
        let handle = try #require(central.connectionCompletes.first).connectionHandle
        central.run(for: .milliseconds(200))
        #expect(try central.returnParameters(HCI.ReadRSSI(handle: handle)).rssi == -50)
        // 0 dBm over 10 m with the default model: 40 + 20 · log10(10) = 60 dB of loss.
        peripheral.controller.position = AirPosition(x: 10)
        central.run(for: .milliseconds(200))
        #expect(try central.returnParameters(HCI.ReadRSSI(handle: handle)).rssi == -60)
        air.propagation.pathLossExponent = 3
        central.run(for: .milliseconds(200))
        #expect(try central.returnParameters(HCI.ReadRSSI(handle: handle)).rssi == -70)
    }

    @Test("Enhanced Connection Complete [v1] or [v2], as the LE event mask asks (§7.7.65.10)")
    func enhancedConnectionComplete() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 1))
        central.expectSuccess(
            HCI.LESetEventMask(leEventMask: TestHost.defaultLEMask.union(.enhancedConnectionComplete)))
        peripheral.expectSuccess(
            HCI.LESetEventMask(
                leEventMask: TestHost.defaultLEMask.union([.enhancedConnectionComplete, .enhancedConnectionCompleteV2]))
        )
        Scenario.advertise(peripheral)
        #expect(Scenario.createConnection(central, to: peripheral) == .success)
        let v1 = central.waitForLE(after: 0) { event -> LEMetaEvent.EnhancedConnectionComplete? in
            if case .enhancedConnectionComplete(let e) = event { e } else { nil }
        }
        let v2 = peripheral.waitForLE(after: 0) { event -> LEMetaEvent.EnhancedConnectionCompleteV2? in
            if case .enhancedConnectionCompleteV2(let e) = event { e } else { nil }
        }
        #expect(v1?.role == .central && v2?.role == .peripheral)
        #expect(v2?.advertisingHandle == 0xFF)
        #expect(central.connectionCompletes.isEmpty && peripheral.connectionCompletes.isEmpty)
    }

    @Test("LE Create Connection Cancel: Command Complete, then Connection Complete 0x02 (§7.8.13)")
    func cancel() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        #expect(central.complete(HCI.LECreateConnectionCancel()).status == .commandDisallowed)
        let status = central.status(
            HCI.LECreateConnection(
                leScanInterval: 16, leScanWindow: 16, peerAddressType: .public, peerAddress: BluetoothAddress(0x42),
                connectionParameters: Scenario.parameters))
        #expect(status == .success)
        #expect(
            central.status(
                HCI.LECreateConnection(
                    leScanInterval: 16, leScanWindow: 16, peerAddressType: .public, peerAddress: BluetoothAddress(0x42),
                    connectionParameters: Scenario.parameters)) == .commandDisallowed)
        central.run(for: .milliseconds(100))
        let mark = central.events.count
        central.complete(HCI.LECreateConnectionCancel())
        let following = central.events[mark...].map(\.event)
        guard case .commandComplete(let complete) = following.first else {
            Issue.record("Command Complete first")
            return
        }
        #expect(complete.status == .success)
        let failed = try #require(
            central.waitForLE(after: mark) { event -> LEMetaEvent.ConnectionComplete? in
                if case .connectionComplete(let c) = event { c } else { nil }
            })
        #expect(failed.status == .unknownConnectionIdentifier)
        #expect(!central.controller.isInitiating)
    }

    @Test("Invalid connection parameters: 0x12")
    func invalidParameters() {
        let central = TestHost(air: VirtualAir())
        let bad = [
            HCI.ConnectionParameters(connectionIntervalMin: 5, connectionIntervalMax: 10, supervisionTimeout: 100),
            HCI.ConnectionParameters(connectionIntervalMin: 20, connectionIntervalMax: 10, supervisionTimeout: 100),
            HCI.ConnectionParameters(connectionIntervalMin: 100, connectionIntervalMax: 100, supervisionTimeout: 20),
            HCI.ConnectionParameters(
                connectionIntervalMin: 8, connectionIntervalMax: 8, maxLatency: 500, supervisionTimeout: 3200),
        ]
        for parameters in bad {
            let status = central.status(
                HCI.LECreateConnection(
                    leScanInterval: 16, leScanWindow: 16, peerAddressType: .public, peerAddress: .zero,
                    connectionParameters: parameters))
            #expect(status == .invalidHCICommandParameters)
        }
    }

    @Test("Disconnect: 0x16 at the initiating side, the reason sent (0x13) at the peer")
    func disconnect() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 1))
        let handles = try #require(Scenario.connect(central, peripheral))
        central.run(for: .milliseconds(100))
        #expect(
            central.status(HCI.Disconnect(connectionHandle: handles.central, reason: .init(0x08)))
                == .invalidHCICommandParameters)
        #expect(central.status(HCI.Disconnect(connectionHandle: 0x0EEE)) == .unknownConnectionIdentifier)
        #expect(
            central.status(HCI.Disconnect(connectionHandle: handles.central, reason: .remoteUserTerminatedConnection))
                == .success)
        let local = try #require(central.waitForDisconnection(handles.central))
        let remote = try #require(peripheral.waitForDisconnection(handles.peripheral))
        #expect(local.event.reason == .connectionTerminatedByLocalHost)
        #expect(remote.event.reason == .remoteUserTerminatedConnection)
        // The peer has it before the initiator hears the acknowledgement.
        #expect(remote.time <= local.time)
        #expect(central.controller.connectionHandles.isEmpty && peripheral.controller.connectionHandles.isEmpty)
    }

    @Test("The peripheral can disconnect too; the central acknowledges and both end")
    func peripheralDisconnects() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 1))
        let handles = try #require(Scenario.connect(central, peripheral))
        let start = air.now
        #expect(
            peripheral.status(
                HCI.Disconnect(connectionHandle: handles.peripheral, reason: .remoteDeviceTerminatedPowerOff))
                == .success)
        let remote = try #require(central.waitForDisconnection(handles.central))
        let local = try #require(peripheral.waitForDisconnection(handles.peripheral))
        #expect(remote.event.reason == .remoteDeviceTerminatedPowerOff)
        #expect(local.event.reason == .connectionTerminatedByLocalHost)
        // Within a few 30 ms intervals, not after the 2 s supervision timeout.
        #expect(start.duration(to: local.time) < .milliseconds(200))
    }

    @Test("Supervision timeout (0x08) when the peer moves out of range")
    func outOfRange() throws {
        let air = VirtualAir(propagation: PropagationModel(maximumRange: 30))
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 5))
        let handles = try #require(Scenario.connect(central, peripheral))
        central.run(for: .milliseconds(500))
        peripheral.controller.position = AirPosition(x: 100)
        let moved = air.now
        let c = try #require(central.waitForDisconnection(handles.central))
        let p = try #require(peripheral.waitForDisconnection(handles.peripheral))
        #expect(c.event.reason == .connectionTimeout && p.event.reason == .connectionTimeout)
        // 2 s after the last packet heard, so between 2 s − one interval and 2 s after the move.
        let elapsed = moved.duration(to: c.time)
        #expect(elapsed > .milliseconds(1960) && elapsed <= .seconds(2))
    }

    @Test("Supervision timeout (0x08) at the peer when a controller is reset")
    func peerReset() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 5))
        let handles = try #require(Scenario.connect(central, peripheral))
        central.run(for: .milliseconds(300))
        let mark = central.events.count
        central.expectSuccess(HCI.Reset())
        // The reset side says nothing more about the connection.
        #expect(!central.events[mark...].contains { if case .disconnectionComplete = $0.event { true } else { false } })
        let reset = air.now
        let p = try #require(peripheral.waitForDisconnection(handles.peripheral))
        #expect(p.event.reason == .connectionTimeout)
        #expect(reset.duration(to: p.time) <= .seconds(2))
        #expect(reset.duration(to: p.time) > .milliseconds(1900))
        #expect(central.controller.connectionHandles.isEmpty)
    }

    @Test("Before the first packet the timeout is 6 × connInterval, and the reason 0x3E (§4.5.2)")
    func sixIntervals() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 5))
        // The initiator hears the advertiser, but nothing it sends arrives: CONNECT_IND is lost,
        // so the connection is created at the central and never established.
        air.setPacketErrorRate(1, from: central.controller.radio, to: peripheral.controller.radio)
        Scenario.advertise(peripheral)
        #expect(Scenario.createConnection(central, to: peripheral) == .success)
        let created = try #require(
            central.waitForLE { event -> LEMetaEvent.ConnectionComplete? in
                if case .connectionComplete(let c) = event { c } else { nil }
            })
        let createdAt = air.now
        let lost = try #require(central.waitForDisconnection(created.connectionHandle))
        #expect(lost.event.reason == .connectionFailedToBeEstablished)
        // 6 × 30 ms after creation, far less than the 2 s supervision timeout.
        #expect(createdAt.duration(to: lost.time) == .milliseconds(180))
        #expect(peripheral.connectionCompletes.isEmpty)
        #expect(peripheral.controller.isAdvertising)
    }

    @Test("A peripheral whose central vanishes right after CONNECT_IND gives up after 6 intervals (0x3E)")
    func sixIntervalsAtPeripheral() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 5))
        Scenario.advertise(peripheral)
        #expect(Scenario.createConnection(central, to: peripheral) == .success)
        let complete = try #require(
            peripheral.waitForLE { event -> LEMetaEvent.ConnectionComplete? in
                if case .connectionComplete(let c) = event { c } else { nil }
            })
        let createdAt = air.now
        central.expectSuccess(HCI.Reset())
        let lost = try #require(peripheral.waitForDisconnection(complete.connectionHandle))
        #expect(lost.event.reason == .connectionFailedToBeEstablished)
        #expect(createdAt.duration(to: lost.time) <= .milliseconds(180))
    }

    @Test("Maximum connections: 0x09 for another LE Create Connection, 0x0D for connectable advertising")
    func maximumConnections() throws {
        let air = VirtualAir()
        let hub = TestHost(air: air, configuration: .init(maximumConnections: 2))
        let a = TestHost(air: air, at: AirPosition(x: 1))
        let b = TestHost(air: air, at: AirPosition(x: 2))
        let c = TestHost(air: air, at: AirPosition(x: 3))
        _ = try #require(Scenario.connect(hub, a))
        _ = try #require(Scenario.connect(hub, b))
        #expect(hub.controller.connectionHandles.count == 2)
        Scenario.advertise(c)
        #expect(Scenario.createConnection(hub, to: c) == .connectionLimitExceeded)
        hub.expectSuccess(HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0x20, advertisingIntervalMax: 0x20))
        #expect(
            hub.complete(HCI.LESetAdvertisingEnable(advertisingEnable: true)).status
                == .connectionRejectedLimitedResources)
        // Non-connectable advertising is still fine.
        hub.expectSuccess(
            HCI.LESetAdvertisingParameters(
                advertisingIntervalMin: 0x20, advertisingIntervalMax: 0x20, advertisingType: .nonConnectableUndirected))
        hub.expectSuccess(HCI.LESetAdvertisingEnable(advertisingEnable: true))
        // A connection to a peer already connected: 0x0B.
        hub.expectSuccess(HCI.LESetAdvertisingEnable(advertisingEnable: false))
        let d = TestHost(air: air, configuration: .init(maximumConnections: 3))
        _ = try #require(Scenario.connect(d, a))
        Scenario.advertise(a)
        #expect(Scenario.createConnection(d, to: a) == .connectionAlreadyExists)
    }

    @Test("Several connections at once, each with its own handle")
    func severalConnections() throws {
        let air = VirtualAir()
        let hub = TestHost(air: air)
        let peers = (1...3).map { TestHost(air: air, at: AirPosition(x: Double($0))) }
        var handles: Set<ConnectionHandle> = []
        for peer in peers {
            let pair = try #require(Scenario.connect(hub, peer))
            handles.insert(pair.central)
        }
        #expect(handles.count == 3)
        hub.run(for: .seconds(3))
        #expect(hub.disconnections.isEmpty)
        #expect(hub.controller.connectionHandles.count == 3)
    }

    @Test("LE Extended Create Connection to extended connectable advertising (AUX_CONNECT_REQ/RSP) on LE 2M")
    func extendedConnection() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 2))
        ExtendedAdvertisingTests.setUp(peripheral, handle: 4, properties: [.connectable], secondaryPHY: PHY.le2M.hci)
        peripheral.expectSuccess(
            HCI.LESetExtendedAdvertisingData(advertisingHandle: 4, advertisingData: Scenario.advertisingData[...]))
        #expect(ExtendedAdvertisingTests.enable(peripheral, handle: 4) == .success)
        let initiating = HCI.InitiatingPHYParameters(
            scanInterval: 0x20, scanWindow: 0x20, connectionParameters: Scenario.parameters)
        #expect(
            central.status(
                HCI.LEExtendedCreateConnection(
                    peerAddressType: .public, peerAddress: peripheral.controller.publicAddress, le1M: initiating))
                == .success)
        let c = try #require(
            central.waitForLE { event -> LEMetaEvent.ConnectionComplete? in
                if case .connectionComplete(let c) = event { c } else { nil }
            })
        let terminated = try #require(
            peripheral.waitForLE(after: 0) { event -> LEMetaEvent.AdvertisingSetTerminated? in
                if case .advertisingSetTerminated(let t) = event { t } else { nil }
            })
        let p = try #require(peripheral.connectionCompletes.first)
        #expect(terminated.status == .success && terminated.advertisingHandle == 4)
        #expect(terminated.connectionHandle == p.connectionHandle)
        #expect(c.connectionInterval == p.connectionInterval)
        // The connection starts on the secondary advertising PHY.
        let phy = try central.returnParameters(HCI.LEReadPHY(connectionHandle: c.connectionHandle))
        #expect(phy.txPHY == PHY.le2M.hci && phy.rxPHY == PHY.le2M.hci)
    }
}
