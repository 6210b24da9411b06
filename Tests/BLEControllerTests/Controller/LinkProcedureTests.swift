import BLESimulation
import BLEWire
import Testing

@testable import BLEController

@Suite("Link layer procedures over HCI (Core 5.4 Vol 6 Part B §5.1)")
struct LinkProcedureTests {
    static func pair() throws -> (
        air: VirtualAir, central: TestHost, peripheral: TestHost, handles: (central: ConnectionHandle, peripheral: ConnectionHandle)
    ) {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 2))
        let handles = try #require(Scenario.connect(central, peripheral))
        return (air, central, peripheral, handles)
    }

    static func updateComplete(_ host: TestHost, after mark: Int) -> (
        VirtualInstant, LEMetaEvent.ConnectionUpdateComplete
    )? {
        guard
            host.waitForLE(after: mark, { e -> Bool? in if case .connectionUpdateComplete = e { true } else { nil } })
                != nil
        else { return nil }
        return host.events[mark...].lazy.compactMap {
            entry -> (VirtualInstant, LEMetaEvent.ConnectionUpdateComplete)? in
            if case .le(.connectionUpdateComplete(let u)) = entry.event { (entry.time, u) } else { nil }
        }.first
    }

    @Test("LE Connection Update: Command Status, then Update Complete on both sides at the same instant")
    func connectionUpdate() throws {
        let (_, central, peripheral, handles) = try Self.pair()
        let cMark = central.events.count
        let pMark = peripheral.events.count
        let parameters = HCI.ConnectionParameters(
            connectionIntervalMin: 80, connectionIntervalMax: 80, maxLatency: 1, supervisionTimeout: 500)
        #expect(
            central.status(HCI.LEConnectionUpdate(connectionHandle: handles.central, connectionParameters: parameters))
                == .success)
        let c = try #require(Self.updateComplete(central, after: cMark))
        let p = try #require(Self.updateComplete(peripheral, after: pMark))
        #expect(c.0 == p.0)
        #expect(c.1.status == .success && p.1.status == .success)
        #expect(c.1.connectionInterval == 80 && p.1.connectionInterval == 80)
        #expect(c.1.peripheralLatency == 1 && p.1.supervisionTimeout == 500)
        // The link keeps running on the new timing.
        central.run(for: .seconds(6))
        #expect(central.disconnections.isEmpty && peripheral.disconnections.isEmpty)
    }

    @Test("A peripheral's update goes through the central's host (Remote Connection Parameter Request)")
    func peripheralRequestedUpdate() throws {
        let (_, central, peripheral, handles) = try Self.pair()
        let cMark = central.events.count
        let pMark = peripheral.events.count
        let parameters = HCI.ConnectionParameters(
            connectionIntervalMin: 40, connectionIntervalMax: 48, maxLatency: 0, supervisionTimeout: 400)
        #expect(
            peripheral.status(
                HCI.LEConnectionUpdate(connectionHandle: handles.peripheral, connectionParameters: parameters))
                == .success)
        let request = try #require(
            central.waitForLE(after: cMark) { e -> LEMetaEvent.RemoteConnectionParameterRequest? in
                if case .remoteConnectionParameterRequest(let r) = e { r } else { nil }
            })
        #expect(request.intervalMin == 40 && request.intervalMax == 48 && request.timeout == 400)
        central.expectSuccess(
            HCI.LERemoteConnectionParameterRequestReply(
                connectionHandle: handles.central, connectionParameters: parameters))
        let c = try #require(Self.updateComplete(central, after: cMark))
        let p = try #require(Self.updateComplete(peripheral, after: pMark))
        #expect(c.1.connectionInterval == 40 && p.1.connectionInterval == 40)
        // Refused this time: the peripheral's host hears the reason.
        let mark = peripheral.events.count
        #expect(
            peripheral.status(
                HCI.LEConnectionUpdate(connectionHandle: handles.peripheral, connectionParameters: parameters))
                == .success)
        _ = central.waitForLE { e -> Bool? in if case .remoteConnectionParameterRequest = e { true } else { nil } }
        central.expectSuccess(HCI.LERemoteConnectionParameterRequestNegativeReply(connectionHandle: handles.central))
        let refused = try #require(Self.updateComplete(peripheral, after: mark))
        #expect(refused.1.status == .unacceptableConnectionParameters)
    }

    @Test("LE Set Data Length: LE Data Length Change on both sides with the negotiated values")
    func dataLength() throws {
        let (_, central, peripheral, handles) = try Self.pair()
        let pMark = peripheral.events.count
        let cMark = central.events.count
        let result = try central.returnParameters(
            HCI.LESetDataLength(connectionHandle: handles.central, txOctets: 251, txTime: 2120))
        #expect(result.connectionHandle == handles.central)
        let c = try #require(
            central.waitForLE(after: cMark) { e -> LEMetaEvent.DataLengthChange? in
                if case .dataLengthChange(let d) = e { d } else { nil }
            })
        let p = try #require(
            peripheral.waitForLE(after: pMark) { e -> LEMetaEvent.DataLengthChange? in
                if case .dataLengthChange(let d) = e { d } else { nil }
            })
        #expect(c.maxTxOctets == 251 && c.maxTxTime == 2120 && c.maxRxOctets == 27 && c.maxRxTime == 328)
        #expect(p.maxRxOctets == 251 && p.maxRxTime == 2120 && p.maxTxOctets == 27 && p.maxTxTime == 328)
        #expect(
            central.complete(HCI.LESetDataLength(connectionHandle: handles.central, txOctets: 26, txTime: 2120)).status
                == .invalidHCICommandParameters)
    }

    @Test("Write Suggested Default Data Length: new connections negotiate it at once")
    func suggestedDefault() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: AirPosition(x: 1))
        central.expectSuccess(
            HCI.LEWriteSuggestedDefaultDataLength(suggestedMaxTXOctets: 251, suggestedMaxTXTime: 2120))
        peripheral.expectSuccess(
            HCI.LEWriteSuggestedDefaultDataLength(suggestedMaxTXOctets: 200, suggestedMaxTXTime: 1712))
        let read = try central.returnParameters(HCI.LEReadSuggestedDefaultDataLength())
        #expect(read.suggestedMaxTXOctets == 251 && read.suggestedMaxTXTime == 2120)
        _ = try #require(Scenario.connect(central, peripheral))
        let c = try #require(
            central.waitForLE(after: 0) { e -> LEMetaEvent.DataLengthChange? in
                if case .dataLengthChange(let d) = e { d } else { nil }
            })
        #expect(c.maxTxOctets == 251 && c.maxRxOctets == 200 && c.maxRxTime == 1712)
        let p = try #require(
            peripheral.waitForLE(after: 0) { e -> LEMetaEvent.DataLengthChange? in
                if case .dataLengthChange(let d) = e { d } else { nil }
            })
        #expect(p.maxTxOctets == 200 || p.maxRxOctets == 251)
        #expect(
            central.complete(HCI.LEWriteSuggestedDefaultDataLength(suggestedMaxTXOctets: 252, suggestedMaxTXTime: 2120))
                .status == .invalidHCICommandParameters)
    }

    @Test("LE Set PHY: PHY Update Complete on both sides (1M → 2M → Coded), LE Read PHY agrees")
    func phyUpdate() throws {
        let (_, central, peripheral, handles) = try Self.pair()
        for (phys, expected) in [(HCI.LEPHYs.le2M, PHY.le2M.hci), (.leCoded, PHY.codedS8.hci), (.le1M, PHY.le1M.hci)] {
            let cMark = central.events.count
            let pMark = peripheral.events.count
            #expect(
                central.status(HCI.LESetPHY(connectionHandle: handles.central, txPHYs: phys, rxPHYs: phys)) == .success)
            let c = try #require(
                central.waitForLE(after: cMark) { e -> LEMetaEvent.PHYUpdateComplete? in
                    if case .phyUpdateComplete(let u) = e { u } else { nil }
                })
            let p = try #require(
                peripheral.waitForLE(after: pMark) { e -> LEMetaEvent.PHYUpdateComplete? in
                    if case .phyUpdateComplete(let u) = e { u } else { nil }
                })
            #expect(c.status == .success && c.txPHY == expected && c.rxPHY == expected)
            #expect(p.txPHY == expected && p.rxPHY == expected)
            let read = try peripheral.returnParameters(HCI.LEReadPHY(connectionHandle: handles.peripheral))
            #expect(read.txPHY.rawValue == expected.rawValue)
        }
        // Asking for what is already in use: only the asking host hears, at once.
        let mark = peripheral.events.count
        #expect(
            central.status(HCI.LESetPHY(connectionHandle: handles.central, txPHYs: .le1M, rxPHYs: .le1M)) == .success)
        let same = central.waitForLE { e -> LEMetaEvent.PHYUpdateComplete? in
            if case .phyUpdateComplete(let u) = e { u } else { nil }
        }
        #expect(same?.txPHY == PHY.le1M.hci)
        peripheral.run(for: .milliseconds(500))
        #expect(
            !peripheral.events[mark...].contains { if case .le(.phyUpdateComplete) = $0.event { true } else { false } })
        #expect(
            central.status(HCI.LESetPHY(connectionHandle: handles.central, txPHYs: [], rxPHYs: .le1M))
                == .invalidHCICommandParameters)
    }

    @Test("A peripheral-initiated PHY update honours the central's default PHY preferences")
    func defaultPHY() throws {
        let (_, central, peripheral, handles) = try Self.pair()
        central.expectSuccess(HCI.LESetDefaultPHY(txPHYs: .le1M, rxPHYs: .le1M))
        // The default applies to new connections only; this one still accepts everything.
        let mark = peripheral.events.count
        #expect(
            peripheral.status(HCI.LESetPHY(connectionHandle: handles.peripheral, txPHYs: .le2M, rxPHYs: .le2M))
                == .success)
        let p = try #require(
            peripheral.waitForLE(after: mark) { e -> LEMetaEvent.PHYUpdateComplete? in
                if case .phyUpdateComplete(let u) = e { u } else { nil }
            })
        #expect(p.txPHY == PHY.le2M.hci)
    }

    @Test("LE Read Remote Features and Read Remote Version Information")
    func remoteInformation() throws {
        let (_, central, peripheral, handles) = try Self.pair()
        #expect(central.status(HCI.LEReadRemoteFeatures(connectionHandle: handles.central)) == .success)
        let features = try #require(
            central.waitForLE { e -> LEMetaEvent.ReadRemoteFeaturesComplete? in
                if case .readRemoteFeaturesComplete(let f) = e { f } else { nil }
            })
        #expect(LEFeatures(rawValue: features.leFeatures) == VirtualController.Configuration.implementedFeatures)
        #expect(peripheral.status(HCI.ReadRemoteVersionInformation(connectionHandle: handles.peripheral)) == .success)
        let version = peripheral.waitFor { e -> HCIEvent.ReadRemoteVersionInformationComplete? in
            if case .readRemoteVersionInformationComplete(let v) = e { v } else { nil }
        }
        #expect(version?.version == 0x0D && version?.manufacturerName == 0xFFFF)
    }
}
