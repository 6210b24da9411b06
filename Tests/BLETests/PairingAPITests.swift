import BLEController
import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("Pairing through the public API (Core 5.4 Vol 3 Part H; Core Bluetooth's paired connection)")
struct PairingAPITests {
    @Test(
        "Peripheral.pair() (Just Works, §2.3.5.6.1): encrypted on both sides, events on every listener, bonds on both managers"
    )
    func pairJustWorks() async throws {
        try await TwoDevices.run { devices in
            let managerEvents = devices.peripheralManager.events
            let centralEvents = devices.central.events
            let peripheral = try await devices.publishAndConnect()
            let peripheralEvents = await peripheral.events()
            #expect(await peripheral.security == .none)

            let security = try await peripheral.pair()
            #expect(security == .encrypted(keySize: 16, authenticated: false, secureConnections: true))
            #expect(await peripheral.security == security)

            var sawStart = false
            var sawChange = false
            for await event in peripheralEvents {
                if case .pairingStarted(.justWorks) = event { sawStart = true }
                if case .securityChanged(security) = event { sawChange = true }
                if case .paired(let bond) = event {
                    #expect(bond != nil)
                    break
                }
            }
            #expect(sawStart && sawChange)
            for await event in centralEvents {
                if case .paired(let who, let bond) = event {
                    #expect(who === peripheral && bond != nil)
                    break
                }
            }
            var central: Central?
            for await event in managerEvents {
                if case .paired(let who, let bond) = event {
                    central = who
                    #expect(bond != nil)
                    break
                }
            }
            let paired = try #require(central)
            #expect(await devices.peripheralManager.security(of: paired) == security)

            let centralBonds = await devices.central.bonds
            let peripheralBonds = await devices.peripheralManager.bonds
            #expect(centralBonds.count == 1 && peripheralBonds.count == 1)
            #expect(centralBonds.first?.peerLongTermKey == peripheralBonds.first?.localLongTermKey)
            // removeBond forgets it; a second removal finds nothing.
            let peer = try #require(centralBonds.first?.peer)
            #expect(try await devices.central.removeBond(peer: peer))
            #expect(try await !devices.central.removeBond(peer: peer))
            #expect(await devices.central.bonds.isEmpty)
        }
    }

    @Test("pair() on a peripheral that is not connected throws .notConnected; a refused pairing throws .pairing")
    func pairErrors() async throws {
        try await TwoDevices.run { devices in
            let peripheral = try await devices.publishAndConnect()
            await devices.central.cancelPeripheralConnection(peripheral)
            await #expect(throws: BLEError.notConnected) { try await peripheral.pair() }

            // A user at the peripheral who declines every pairing: Pairing Not Supported.
            await devices.peripheralManager.setPairingAgent(DecliningAgent())
            try await devices.central.connect(peripheral)
            await #expect(throws: BLEError.pairing(.failed(.pairingNotSupported, byPeer: true))) {
                try await peripheral.pair()
            }
            #expect(await peripheral.security == .none)
        }
    }
}

private struct DecliningAgent: PairingAgent {
    func authorizePairing(_ request: PairingRequestInfo) async -> Bool { false }
    func displayPasskey(_ passkey: UInt32, for request: PairingRequestInfo) async {}
    func requestPasskey(for request: PairingRequestInfo) async -> UInt32? { nil }
    func confirmNumericComparison(_ value: UInt32, for request: PairingRequestInfo) async -> Bool { false }
    func outOfBandData(for request: PairingRequestInfo) async -> OutOfBandData? { nil }
}
