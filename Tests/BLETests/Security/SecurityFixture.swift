import BLEHost
import BLELocking
import BLEWire
import Testing

@testable import BLE

/// A service whose characteristics need link security, and bonds seeded into both hosts' stores
/// (as after a pairing), for the tests of GATT security through the public API.
enum SecurityFixture {
    static let serviceUUID: BluetoothUUID = 0xFAA0
    /// read; encryption required; stored [0xE1].
    static let encryptedUUID: BluetoothUUID = 0xFAA1
    /// read; authentication required; stored [0xA1].
    static let authenticatedUUID: BluetoothUUID = 0xFAA2
    /// read; authorization required; stored [0x0A].
    static let authorizedUUID: BluetoothUUID = 0xFAA3
    /// notify (notifyEncryptionRequired), readable; stored.
    static let protectedStreamUUID: BluetoothUUID = 0xFAA4
    /// authenticated signed writes only; writing needs encryption (a verified signature stands for it).
    static let signedUUID: BluetoothUUID = 0xFAA5
    /// notify, open.
    static let streamUUID: BluetoothUUID = 0xFAA6

    static let service = MutableService(
        uuid: serviceUUID,
        characteristics: [
            MutableCharacteristic(
                uuid: encryptedUUID, properties: .read, permissions: .readEncryptionRequired, value: .stored([0xE1])),
            MutableCharacteristic(
                uuid: authenticatedUUID, properties: .read, permissions: .readAuthenticationRequired,
                value: .stored([0xA1])),
            MutableCharacteristic(
                uuid: authorizedUUID, properties: .read, permissions: [.readable, .readAuthorizationRequired],
                value: .stored([0x0A])),
            MutableCharacteristic(
                uuid: protectedStreamUUID, properties: [.read, .notifyEncryptionRequired], permissions: .readable,
                value: .stored([])),
            MutableCharacteristic(
                uuid: signedUUID, properties: .authenticatedSignedWrites, permissions: .writeEncryptionRequired,
                value: .dynamic),
            MutableCharacteristic(
                uuid: streamUUID, properties: [.read, .notify], permissions: .readable, value: .stored([])),
        ])

    static let key = LongTermKey(key: SMPKey128(high: 0x0123_4567_89AB_CDEF, low: 0x0011_2233_4455_6677))
    static let csrk = SMPKey128(high: 0x1111_2222_3333_4444, low: 0x5555_6666_7777_8888)
}

extension TwoDevices {
    var centralHost: Host { central.stack.host }
    var peripheralHost: Host { peripheralManager.stack.host }

    /// Seeds matching bonds: `onCentral` / `onPeripheral` choose the stores. `withLTK` false
    /// gives bonds holding only the central's CSRK (no encryption from them).
    func seedBonds(
        onCentral: Bool = true, onPeripheral: Bool = true, authenticated: Bool = false, keySize: Int = 16,
        withLTK: Bool = true, signing: Bool = false
    ) async throws {
        guard let centralAddress = await centralHost.ownAddress, let peripheralAddress = await peripheralHost.ownAddress
        else { throw TestFailure("no own address") }
        let key = withLTK ? SecurityFixture.key : nil
        if onCentral {
            try await centralHost.configuration.bondStore.save(
                Bond(
                    local: centralAddress, peer: peripheralAddress, peerLongTermKey: key, localLongTermKey: key,
                    localCSRK: signing ? SecurityFixture.csrk : nil, authenticated: authenticated,
                    secureConnections: true, keySize: keySize))
        }
        if onPeripheral {
            try await peripheralHost.configuration.bondStore.save(
                Bond(
                    local: peripheralAddress, peer: centralAddress, peerLongTermKey: key, localLongTermKey: key,
                    peerCSRK: signing ? SecurityFixture.csrk : nil, authenticated: authenticated,
                    secureConnections: true, keySize: keySize))
        }
    }

    /// The central's bond with the peripheral.
    func centralBond() async -> Bond? { await centralHost.bonds.first }
    /// The peripheral's bond with the central.
    func peripheralBond() async -> Bond? { await peripheralHost.bonds.first }

    /// Publishes the security fixture, advertises, connects and discovers its characteristics.
    func connectToSecured(publish: Bool = true) async throws -> (Peripheral, [BluetoothUUID: Characteristic]) {
        if publish {
            try await peripheralManager.add(SecurityFixture.service)
            try await peripheralManager.startAdvertising(AdvertisementData(serviceUUIDs: [SecurityFixture.serviceUUID]))
        }
        let peripheral = try await discover(withServices: [SecurityFixture.serviceUUID]).peripheral
        try await central.connect(peripheral)
        return (peripheral, try await characteristics(of: peripheral))
    }

    /// Discovers the fixture's characteristics on a connected peripheral.
    func characteristics(of peripheral: Peripheral) async throws -> [BluetoothUUID: Characteristic] {
        let services = try await peripheral.discoverServices([SecurityFixture.serviceUUID])
        guard let service = services.first else { throw TestFailure("security service not found") }
        let characteristics = try await peripheral.discoverCharacteristics(for: service)
        return Dictionary(uniqueKeysWithValues: characteristics.map { ($0.uuid, $0) })
    }

    /// The central's connection handle to `peripheral`.
    func handle(of peripheral: Peripheral) async throws -> ConnectionHandle {
        guard case .connected(let handle) = await peripheral.link else { throw TestFailure("not connected") }
        return handle
    }
}

/// A pairing agent that declines pairing and answers attribute accesses as told, recording them.
final class RecordingAgent: PairingAgent {
    let grants: Bool
    private let recorded = Locked<[AttributeAccessRequest]>([])

    init(grants: Bool) { self.grants = grants }

    var requests: [AttributeAccessRequest] { recorded.withLock { $0 } }

    func authorizePairing(_ request: PairingRequestInfo) async -> Bool { false }
    func displayPasskey(_ passkey: UInt32, for request: PairingRequestInfo) async {}
    func requestPasskey(for request: PairingRequestInfo) async -> UInt32? { nil }
    func confirmNumericComparison(_ value: UInt32, for request: PairingRequestInfo) async -> Bool { false }
    func outOfBandData(for request: PairingRequestInfo) async -> OutOfBandData? { nil }
    func authorizeAccess(_ request: AttributeAccessRequest) async -> Bool {
        recorded.withLock { $0.append(request) }
        return grants
    }
}

/// Forwards to the peripheral manager's GATT server and counts the requests it sees by opcode
/// (to count what attribute caching saves).
final class CountingATTServer: BondedClientServer {
    let inner: GATTServerHandler
    private let counts = Locked<[String: Int]>([:])

    init(_ inner: GATTServerHandler) { self.inner = inner }

    /// Requests counted under `key`: "hash" (Read By Type of the Database Hash), "discovery"
    /// (Read By Group Type, Find By Type Value, Find Information, Read By Type of «Include» or
    /// «Characteristic»), "other".
    func count(_ key: String) -> Int { counts.withLock { $0[key, default: 0] } }

    nonisolated(nonsending) func handle(_ pdu: ATTPDU, connection: ConnectionHandle, mtu: Int) async -> ATTPDU? {
        let key: String
        switch pdu {
        case .readByTypeRequest(let request) where request.attributeType == GATTAttributeType.databaseHash:
            key = "hash"
        case .readByTypeRequest(let request)
        where request.attributeType == GATTAttributeType.characteristic
            || request.attributeType == GATTAttributeType.include:
            key = "discovery"
        case .readByGroupTypeRequest, .findByTypeValueRequest, .findInformationRequest:
            key = "discovery"
        default:
            key = "other"
        }
        counts.withLock { $0[key, default: 0] += 1 }
        return await inner.handle(pdu, connection: connection, mtu: mtu)
    }

    func takeCommand(_ pdu: ATTPDU, connection: ConnectionHandle) -> Bool {
        inner.takeCommand(pdu, connection: connection)
    }
    func connectionEnded(_ connection: ConnectionHandle) async { await inner.connectionEnded(connection) }
    func securityChanged(_ security: LinkSecurity, for connection: ConnectionHandle) {
        inner.securityChanged(security, for: connection)
    }
    func bondedClientState(for connection: ConnectionHandle) -> GATTBondedClientState? {
        inner.bondedClientState(for: connection)
    }
    func restoreBondedClient(_ bonded: GATTBondedClientState, for connection: ConnectionHandle) -> ATTPDU? {
        inner.restoreBondedClient(bonded, for: connection)
    }
    func setSigningKey(_ csrk: SMPKey128, authenticated: Bool, lastCounter: UInt32?, for connection: ConnectionHandle) {
        inner.setSigningKey(csrk, authenticated: authenticated, lastCounter: lastCounter, for: connection)
    }
    func lastSignCounter(for connection: ConnectionHandle) -> UInt32? { inner.lastSignCounter(for: connection) }
}
