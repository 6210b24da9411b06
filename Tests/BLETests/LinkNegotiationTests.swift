import BLEController
import BLEWire
import Testing

import BLE

/// A central and a peripheral manager on one virtual radio, each with its own policy and
/// controller features; the peripheral publishes one service and advertises it.
private struct LinkPair: Sendable {
    let radio: VirtualRadio
    let central: CentralManager
    let manager: PeripheralManager

    static let serviceUUID = BluetoothUUID(0xFFF0)

    static func run<T: Sendable>(
        central centralPolicy: LinkPolicy = .iphoneModern, peripheral peripheralPolicy: LinkPolicy = .iphoneModern,
        centralFeatures: LEFeatures = VirtualController.Configuration.implementedFeatures,
        peripheralFeatures: LEFeatures = VirtualController.Configuration.implementedFeatures,
        _ body: @escaping @Sendable (LinkPair) async throws -> T
    ) async throws -> T {
        let radio = VirtualRadio()
        return try await radio.simulation.run {
            var peripheralHost = HostConfiguration()
            peripheralHost.linkPolicy = peripheralPolicy
            var centralHost = HostConfiguration()
            centralHost.linkPolicy = centralPolicy
            let manager = try await PeripheralManager(
                radio: .virtual(radio, controller: VirtualController.Configuration(leFeatures: peripheralFeatures)),
                configuration: peripheralHost)
            let central = await CentralManager(
                radio: .virtual(
                    radio, position: AirPosition(x: 2, y: 0, z: 0),
                    controller: VirtualController.Configuration(leFeatures: centralFeatures)),
                configuration: centralHost)
            let pair = LinkPair(radio: radio, central: central, manager: manager)
            do {
                try await manager.powerOn()
                try await central.powerOn()
                let result = try await body(pair)
                await central.close()
                await manager.close()
                return result
            } catch {
                await central.close()
                await manager.close()
                throw error
            }
        }
    }

    /// Advertises, finds and connects; returns the peripheral and the central as the peripheral
    /// manager sees it.
    func connect() async throws -> (Peripheral, Central) {
        try await manager.add(MutableService(uuid: Self.serviceUUID, characteristics: []))
        var managerEvents = manager.events.makeAsyncIterator()
        try await manager.startAdvertising(AdvertisementData(localName: "link", serviceUUIDs: [Self.serviceUUID]))
        var discoveries = try await central.scanForPeripherals(withServices: [Self.serviceUUID]).makeAsyncIterator()
        guard let found = await discoveries.next() else { throw LinkTestFailure("nothing found") }
        await central.stopScan()
        try await central.connect(found.peripheral)
        await manager.stopAdvertising()
        while let event = await managerEvents.next() {
            if case .connected(let central) = event { return (found.peripheral, central) }
        }
        throw LinkTestFailure("the peripheral manager saw no connection")
    }

    /// Sleeps `duration` of virtual time (lets the peer's side of a procedure finish).
    func settle(_ duration: Duration = .milliseconds(500)) async throws {
        try await radio.simulation.clock.sleep(for: duration)
    }
}

private struct LinkTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private let allFeatures = VirtualController.Configuration.implementedFeatures

@Suite("Link negotiation after connecting (Core 5.4 Vol 4 Part E §7.8.33, §7.8.49; Vol 3 Part F §3.4.2)")
struct LinkNegotiationTests {
    @Test("iphone-modern: LE 2M both ways, LL 251 / 2120 µs both ways, ATT_MTU 247, seen alike on both sides")
    func iphoneModern() async throws {
        try await LinkPair.run { pair in
            let (peripheral, central) = try await pair.connect()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.txPHY == .le2M && link.rxPHY == .le2M)
            #expect(link.maxTxOctets == 251 && link.maxRxOctets == 251)
            #expect(link.maxTxTime == 2120 && link.maxRxTime == 2120)
            #expect(link.attMTU == 247)
            #expect(link.connectionInterval == .milliseconds(30))
            try await pair.settle()
            let seen = try #require(await pair.manager.linkParameters(for: central))
            #expect(seen.txPHY == .le2M && seen.rxPHY == .le2M)
            #expect(seen.maxTxOctets == 251 && seen.maxRxOctets == 251)
            #expect(seen.attMTU == 247)
            #expect(seen.connectionInterval == link.connectionInterval)
        }
    }

    @Test("iphone-ios10: LL 251 but LE 1M, ATT_MTU 185")
    func iphoneIOS10() async throws {
        try await LinkPair.run(central: .iphoneIOS10) { pair in
            let (peripheral, central) = try await pair.connect()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.txPHY == .le1M && link.rxPHY == .le1M)
            #expect(link.maxTxOctets == 251 && link.maxRxOctets == 251)
            #expect(link.attMTU == 185)
            try await pair.settle()
            let seen = try #require(await pair.manager.linkParameters(for: central))
            #expect(seen.txPHY == .le1M && seen.maxTxOctets == 251 && seen.maxRxOctets == 251)
            #expect(seen.attMTU == 185)
        }
    }

    @Test("android-high: 11.25 ms interval, 5 s timeout, LL 251 on LE 1M, ATT_MTU capped by the host's 247")
    func androidHigh() async throws {
        try await LinkPair.run(central: .androidHigh) { pair in
            let (peripheral, central) = try await pair.connect()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.connectionInterval == .microseconds(11_250))
            #expect(link.supervisionTimeout == .seconds(5))
            #expect(link.peripheralLatency == 0)
            #expect(link.txPHY == .le1M)
            #expect(link.maxTxOctets == 251)
            #expect(link.attMTU == 247)
            try await pair.settle()
            #expect(await pair.manager.linkParameters(for: central)?.connectionInterval == .microseconds(11_250))
        }
    }

    @Test("none: nothing asked — LE 1M, 27-octet payloads, ATT_MTU 23, the connection request's 30 ms")
    func nothingAsked() async throws {
        try await LinkPair.run(central: .none, peripheral: .none) { pair in
            let (peripheral, central) = try await pair.connect()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.txPHY == .le1M && link.rxPHY == .le1M)
            #expect(link.maxTxOctets == 27 && link.maxRxOctets == 27)
            #expect(link.attMTU == 23)
            #expect(link.connectionInterval == .milliseconds(30))
            try await pair.settle()
            let seen = try #require(await pair.manager.linkParameters(for: central))
            #expect(seen.txPHY == .le1M && seen.maxTxOctets == 27 && seen.attMTU == 23)
        }
    }

    @Test("a central controller without LE 2M: nothing asked, the link stays on LE 1M with LL 251")
    func centralWithout2M() async throws {
        try await LinkPair.run(centralFeatures: allFeatures.subtracting([.le2MPHY, .leCodedPHY])) { pair in
            let (peripheral, _) = try await pair.connect()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.txPHY == .le1M && link.rxPHY == .le1M)
            #expect(link.maxTxOctets == 251)
            #expect(link.attMTU == 247)
        }
    }

    @Test("a peripheral controller without LE 2M: the PHY update settles on LE 1M, no error")
    func peripheralWithout2M() async throws {
        try await LinkPair.run(peripheralFeatures: allFeatures.subtracting([.le2MPHY, .leCodedPHY])) { pair in
            let (peripheral, _) = try await pair.connect()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.txPHY == .le1M && link.rxPHY == .le1M)
            #expect(link.maxTxOctets == 251 && link.maxRxOctets == 251)
            #expect(link.attMTU == 247)
        }
    }

    @Test("a central controller without Data Length Extension: nothing asked, 27-octet payloads on LE 2M")
    func centralWithoutDataLengthExtension() async throws {
        try await LinkPair.run(centralFeatures: allFeatures.subtracting([.leDataPacketLengthExtension])) { pair in
            let (peripheral, _) = try await pair.connect()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.maxTxOctets == 27 && link.maxRxOctets == 27)
            #expect(link.txPHY == .le2M)
            #expect(link.attMTU == 247)
        }
    }

    @Test("a peripheral controller without Data Length Extension answers LL_UNKNOWN_RSP: 27 octets, no error")
    func peripheralWithoutDataLengthExtension() async throws {
        try await LinkPair.run(peripheralFeatures: allFeatures.subtracting([.leDataPacketLengthExtension])) { pair in
            let (peripheral, _) = try await pair.connect()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.maxTxOctets == 27 && link.maxRxOctets == 27)
            #expect(link.txPHY == .le2M)
            #expect(link.attMTU == 247)
        }
    }

    @Test("negotiation changes reach both sides as events: PHY, data length and ATT_MTU")
    func eventsOnBothSides() async throws {
        try await LinkPair.run { pair in
            var managerEvents = pair.manager.events.makeAsyncIterator()
            let (peripheral, central) = try await pair.connect()
            try await pair.settle()
            // The disconnection ends both event loops below.
            await pair.central.cancelPeripheralConnection(peripheral)
            var last: LinkParameters?
            var changes = 0
            loop: while let event = await managerEvents.next() {
                switch event {
                case .linkChanged(let who, let link):
                    #expect(who.identifier == central.identifier)
                    last = link
                    changes += 1
                case .disconnected: break loop
                default: continue
                }
            }
            // PHY Update Complete, Data Length Change and the new ATT_MTU, at least.
            #expect(changes >= 3)
            #expect(last?.txPHY == .le2M && last?.rxPHY == .le2M)
            #expect(last?.maxTxOctets == 251 && last?.maxRxOctets == 251)
            #expect(last?.attMTU == 247)
        }
    }
}

@Suite("Link requests from either side (Core 5.4 Vol 3 Part A §4.20; Vol 4 Part E §7.8.18, §7.8.31, §7.8.32)")
struct LinkRequestTests {
    @Test("the central asks for connection parameters, PHY and data length; both sides see the change")
    func centralRequests() async throws {
        try await LinkPair.run { pair in
            let (peripheral, central) = try await pair.connect()
            var events = await peripheral.events().makeAsyncIterator()
            let updated = try await peripheral.requestConnectionParameters(
                ConnectionParameters(connectionIntervalMin: 12, connectionIntervalMax: 12, supervisionTimeout: 300))
            #expect(updated.connectionInterval == .milliseconds(15))
            #expect(updated.supervisionTimeout == .seconds(3))
            // (The ATT_MTU's change may still be on its way: the update's follows.)
            var reported: LinkParameters?
            while reported?.connectionInterval != .milliseconds(15), case .linkChanged(let link)? = await events.next()
            {
                reported = link
            }
            #expect(reported?.connectionInterval == .milliseconds(15))
            let onePHY = try await peripheral.requestPHY(.le1M)
            #expect(onePHY.txPHY == .le1M && onePHY.rxPHY == .le1M)
            try await peripheral.requestDataLength(octets: 100)
            try await pair.settle()
            #expect(await peripheral.linkParameters?.maxTxOctets == 100)
            let seen = try #require(await pair.manager.linkParameters(for: central))
            #expect(seen.connectionInterval == .milliseconds(15))
            #expect(seen.txPHY == .le1M)
            #expect(seen.maxRxOctets == 100)
        }
    }

    @Test("setDesiredConnectionLatency(.low) within Apple's rules is accepted by iphone-modern (LL procedure)")
    func peripheralLowLatencyAccepted() async throws {
        try await LinkPair.run { pair in
            var managerEvents = pair.manager.events.makeAsyncIterator()
            let (peripheral, central) = try await pair.connect()
            var events = await peripheral.events().makeAsyncIterator()
            let accepted = try await pair.manager.setDesiredConnectionLatency(.low, for: central)
            #expect(accepted)
            #expect(await pair.manager.linkParameters(for: central)?.connectionInterval == .milliseconds(15))
            try await pair.settle()
            #expect(await peripheral.linkParameters?.connectionInterval == .milliseconds(15))
            var reported: LinkParameters?
            while reported?.connectionInterval != .milliseconds(15), case .linkChanged(let link)? = await events.next()
            {
                reported = link
            }
            #expect(reported?.connectionInterval == .milliseconds(15))
            // The peripheral manager reported it too (after the negotiation's changes).
            var seen: LinkParameters?
            while seen?.connectionInterval != .milliseconds(15), let event = await managerEvents.next() {
                if case .linkChanged(_, let link) = event { seen = link }
            }
            #expect(seen?.connectionInterval == .milliseconds(15))
        }
    }

    @Test("each ConnectionLatency is within Apple's rules")
    func latenciesFollowAppleRules() {
        for latency in ConnectionLatency.allCases {
            let p = latency.parameters
            #expect(
                ConnectionParameterLimits.apple.violation(
                    intervalMin: p.connectionIntervalMin, intervalMax: p.connectionIntervalMax,
                    latency: p.maxLatency, timeout: p.supervisionTimeout) == nil, "\(latency)")
        }
    }

    @Test("a 7.5 ms request breaks Apple's rules: iphone-modern refuses it (Negative Reply), the link stays")
    func peripheralRequestRejectedByPolicy() async throws {
        try await LinkPair.run { pair in
            let (peripheral, central) = try await pair.connect()
            let fast = ConnectionParameters(
                connectionIntervalMin: 6, connectionIntervalMax: 6, supervisionTimeout: 200)
            let accepted = try await pair.manager.requestConnectionParameters(fast, for: central)
            #expect(!accepted)
            try await pair.settle()
            #expect(await peripheral.linkParameters?.connectionInterval == .milliseconds(30))
            #expect(await pair.manager.linkParameters(for: central)?.connectionInterval == .milliseconds(30))
        }
    }

    @Test("the same 7.5 ms request is accepted by a central whose policy takes the specification's ranges")
    func peripheralRequestAcceptedBySpecificationLimits() async throws {
        try await LinkPair.run(central: .androidHigh) { pair in
            let (peripheral, central) = try await pair.connect()
            let fast = ConnectionParameters(
                connectionIntervalMin: 6, connectionIntervalMax: 6, supervisionTimeout: 200)
            #expect(try await pair.manager.requestConnectionParameters(fast, for: central))
            try await pair.settle()
            #expect(await peripheral.linkParameters?.connectionInterval == .microseconds(7_500))
        }
    }

    @Test("a central controller without the LL procedure: the request falls back to L2CAP and is accepted")
    func l2capFallbackAccepted() async throws {
        try await LinkPair.run(centralFeatures: allFeatures.subtracting([.connectionParametersRequestProcedure])) {
            pair in
            let (peripheral, central) = try await pair.connect()
            #expect(try await pair.manager.setDesiredConnectionLatency(.high, for: central))
            try await pair.settle()
            let link = try #require(await peripheral.linkParameters)
            #expect(link.connectionInterval == .milliseconds(90))
            #expect(link.peripheralLatency == 4)
            #expect(link.supervisionTimeout == .seconds(6))
        }
    }

    @Test("a peripheral controller without the LL procedure asks through L2CAP; the central's policy refuses 7.5 ms")
    func l2capRequestRejected() async throws {
        try await LinkPair.run(peripheralFeatures: allFeatures.subtracting([.connectionParametersRequestProcedure])) {
            pair in
            let (peripheral, central) = try await pair.connect()
            let fast = ConnectionParameters(
                connectionIntervalMin: 6, connectionIntervalMax: 6, supervisionTimeout: 200)
            #expect(try await !pair.manager.requestConnectionParameters(fast, for: central))
            try await pair.settle()
            #expect(await peripheral.linkParameters?.connectionInterval == .milliseconds(30))
            // What Apple's rules allow goes through.
            #expect(try await pair.manager.setDesiredConnectionLatency(.low, for: central))
            try await pair.settle()
            #expect(await peripheral.linkParameters?.connectionInterval == .milliseconds(15))
            #expect(await pair.manager.linkParameters(for: central)?.connectionInterval == .milliseconds(15))
        }
    }
}

@Suite("Apple's connection parameter rules (Accessory Design Guidelines, \"Connection Parameters\")")
struct ConnectionParameterLimitsTests {
    @Test("each rule refuses what breaks it and the specification's limits accept it where in range")
    func rules() {
        let apple = ConnectionParameterLimits.apple
        // 15 ms both ends: allowed.
        #expect(apple.violation(intervalMin: 12, intervalMax: 12, latency: 0, timeout: 200) == nil)
        // Interval Min below 15 ms, or not a multiple of 15 ms.
        #expect(apple.violation(intervalMin: 6, intervalMax: 24, latency: 0, timeout: 200) != nil)
        #expect(apple.violation(intervalMin: 16, intervalMax: 36, latency: 0, timeout: 200) != nil)
        // Interval Max less than 15 ms above Interval Min.
        #expect(apple.violation(intervalMin: 24, intervalMax: 30, latency: 0, timeout: 200) != nil)
        // Latency above 30.
        #expect(apple.violation(intervalMin: 12, intervalMax: 24, latency: 31, timeout: 600) != nil)
        // Timeout outside 2–6 s.
        #expect(apple.violation(intervalMin: 12, intervalMax: 24, latency: 0, timeout: 100) != nil)
        #expect(apple.violation(intervalMin: 12, intervalMax: 24, latency: 0, timeout: 700) != nil)
        // Interval Max × (latency + 1) above 2 s.
        #expect(apple.violation(intervalMin: 24, intervalMax: 400, latency: 4, timeout: 600) != nil)
        // Interval Max × (latency + 1) × 3 not below the timeout.
        #expect(apple.violation(intervalMin: 24, intervalMax: 560, latency: 0, timeout: 200) != nil)
        #expect(apple.violation(intervalMin: 24, intervalMax: 400, latency: 0, timeout: 200) == nil)
        #expect(
            ConnectionParameterLimits.specification.violation(
                intervalMin: 6, intervalMax: 6, latency: 0, timeout: 200) == nil)
        #expect(
            ConnectionParameterLimits.specification.violation(
                intervalMin: 6, intervalMax: 6, latency: 0, timeout: 1) != nil)
    }

    @Test("profiles are found by name; an unknown name is nil")
    func profilesByName() {
        #expect(LinkPolicy(named: "iphone-modern") == .iphoneModern)
        #expect(LinkPolicy(named: "iphone-ios10") == .iphoneIOS10)
        #expect(LinkPolicy(named: "android-high") == .androidHigh)
        #expect(LinkPolicy(named: "none") == LinkPolicy.none)
        #expect(LinkPolicy(named: "nokia") == nil)
        #expect(HostConfiguration().linkPolicy == .iphoneModern)
    }
}
