import BLEWire
import Testing

@testable import BLEHost

/// A server with: 0xCC01 read, authorization required; 0xCC02 write, authorization required;
/// 0xCC03 notifyEncryptionRequired; 0xCC04 notify and indicate, open; 0xCC05 readable.
private func bondingServer() throws -> GATTServer {
    let service = GATTService(
        uuid: 0xCCCC,
        characteristics: [
            GATTCharacteristic(
                uuid: 0xCC01, properties: .read, permissions: [.readable, .readAuthorizationRequired],
                value: .stored([1])),
            GATTCharacteristic(
                uuid: 0xCC02, properties: .write, permissions: [.writeable, .writeAuthorizationRequired],
                value: .stored([2])),
            GATTCharacteristic(
                uuid: 0xCC03, properties: [.read, .notifyEncryptionRequired], permissions: .readable,
                value: .stored([3])),
            GATTCharacteristic(
                uuid: 0xCC04, properties: [.read, .notify, .indicate], permissions: .readable, value: .stored([4])),
            GATTCharacteristic(uuid: 0xCC05, properties: .read, permissions: .readable, value: .stored([5])),
        ])
    return GATTServer(database: try AttributeDatabase(services: [service]))
}

extension GATTServer {
    /// The value handle of the characteristic of type `uuid`.
    fileprivate func valueHandle(_ uuid: BluetoothUUID) -> UInt16 {
        database.attributes.first {
            guard $0.type == uuid, case .characteristicValue = $0.role else { return false }
            return true
        }?.handle ?? 0
    }

    /// The Client Characteristic Configuration handle of the characteristic of type `uuid`.
    fileprivate func cccdHandle(_ uuid: BluetoothUUID) -> UInt16 {
        guard case .characteristicValue(_, _, let cccd?) = database.attribute(at: valueHandle(uuid))?.role else {
            return 0
        }
        return cccd
    }
}

/// A handle as the hex of its two little-endian octets.
private func le(_ value: UInt16) -> String {
    func octet(_ byte: UInt16) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
    return octet(value & 0xFF) + octet(value >> 8)
}

@Suite("Authorization asked per access (Core 5.4 Vol 3 Part F §3.2.5, §3.4.1.1)")
struct AuthorizationPerAccessTests {
    @Test("Part F §3.2.5: an access requiring authorization is put to the application; refused, it is 0x08")
    func askedAndRefused() throws {
        var server = try bondingServer()
        server.connect(client1, security: .none)
        let readHandle = server.valueHandle(0xCC01)
        let read = try ATTPDU(decoding: hex("0A " + le(readHandle))[...])
        let asks = server.authorizationsNeeded(for: read, connection: client1)
        #expect(asks.count == 1)
        #expect(asks.first?.attribute.characteristicUUID == 0xCC01)
        #expect(asks.first?.access == .read)
        // Refused: Insufficient Authorization.
        #expect(
            server.handle(read, connection: client1, attMTU: 23, granting: []).response?.encoded
                == errorResponse(0x0A, readHandle, .insufficientAuthorization))
        // Granted: the value, for this request only.
        #expect(server.handle(read, connection: client1, attMTU: 23, granting: asks).response?.encoded == hex("0B 01"))
        #expect(server.exchange("0A " + le(readHandle)) == errorResponse(0x0A, readHandle, .insufficientAuthorization))
        // Read By Type (Read Using Characteristic UUID) asks about the first value of the type.
        let byType = try ATTPDU(decoding: hex("08 0100 FFFF 01CC")[...])
        let typeAsks = server.authorizationsNeeded(for: byType, connection: client1)
        #expect(typeAsks.map(\.attribute.handle) == [readHandle])
        #expect(
            server.handle(byType, connection: client1, attMTU: 23, granting: typeAsks).response?.encoded
                == hex("09 03 " + le(readHandle) + " 01"))
    }

    @Test("Part F §3.4.5.1: a write requiring authorization is asked about as a write")
    func writeAsked() throws {
        var server = try bondingServer()
        server.connect(client1, security: .none)
        let handle = server.valueHandle(0xCC02)
        let write = try ATTPDU(decoding: hex("12 " + le(handle) + " 07")[...])
        let asks = server.authorizationsNeeded(for: write, connection: client1)
        #expect(asks.map(\.access) == [.write])
        #expect(server.handle(write, connection: client1, attMTU: 23, granting: asks).writeRequest != nil)
        // Attributes without the requirement, and a connection authorized as a whole, ask nothing.
        let open = try ATTPDU(decoding: hex("0A " + le(server.valueHandle(0xCC05)))[...])
        #expect(server.authorizationsNeeded(for: open, connection: client1).isEmpty)
        server.setAuthorized(true, for: client1)
        #expect(server.authorizationsNeeded(for: write, connection: client1).isEmpty)
    }
}

@Suite("notifyEncryptionRequired / indicateEncryptionRequired (Core Bluetooth; Core 5.4 Vol 3 Part F §3.2.5)")
struct EncryptionRequiredSubscriptionTests {
    @Test("Part G §3.3.1.1: the declaration shows notify; enabling it needs an encrypted link (0x05 / 0x0F)")
    func subscriptionNeedsEncryption() throws {
        var server = try bondingServer()
        server.connect(client1, security: .none)
        let valueHandle = server.valueHandle(0xCC03)
        guard case .value(let declaration)? = server.database.attribute(at: valueHandle - 1)?.storage else {
            Issue.record("no declaration")
            return
        }
        #expect(declaration.first == 0x12)  // read | notify: the server-side bit stays off the air
        let cccd = server.cccdHandle(0xCC03)
        #expect(server.exchange("0A " + le(valueHandle)) == hex("0B 03"))
        #expect(server.exchange("12 " + le(cccd) + " 0100") == errorResponse(0x12, cccd, .insufficientAuthentication))
        server.setSecurity(.unencrypted(keyAvailable: true), for: client1)
        #expect(server.exchange("12 " + le(cccd) + " 0100") == errorResponse(0x12, cccd, .insufficientEncryption))
        server.setSecurity(.encrypted(keySize: 16, authenticated: false), for: client1)
        #expect(server.exchange("12 " + le(cccd) + " 0100") == hex("13"))
        // An open characteristic subscribes on any link.
        server.connect(client2, security: .none)
        #expect(server.exchange("12 " + le(server.cccdHandle(0xCC04)) + " 0100", on: client2) == hex("13"))
    }

    @Test(
        "CharacteristicProperties: the declared octet keeps the low eight bits and shows the encryption bits as notify/indicate"
    )
    func declaredOctet() {
        let properties: CharacteristicProperties = [.read, .indicateEncryptionRequired]
        #expect(properties.declaredOctet == 0x22)
        #expect(CharacteristicProperties(declared: 0x12) == [.read, .notify])
        #expect(properties.description == "[read, indicateEncryptionRequired]")
    }
}

@Suite("A bonded client's state across connections (Core 5.4 Vol 3 Part G §3.3.3.3, §2.5.2.1)")
struct BondedClientRestorationTests {
    @Test(
        "Part G §3.3.3.3: saved configurations come back into a live connection and are reported; this connection's writes win"
    )
    func restoreMerges() throws {
        var server = try bondingServer()
        let notify = server.cccdHandle(0xCC04)
        let encryptedNotify = server.cccdHandle(0xCC03)
        let saved = GATTBondedClientState(
            clientConfigurations: [notify: 0x0003, encryptedNotify: 0x0001, 0x0777: 0x0001],
            databaseHash: server.database.hash, lastSignCounter: 9)
        server.connect(client1, security: .none)
        // Written in this connection before encryption: kept over the saved value.
        #expect(server.exchange("12 " + le(notify) + " 0200") == hex("13"))
        server.setSecurity(.encrypted(keySize: 16, authenticated: false), for: client1)
        let restoration = server.restoreBondedClient(saved, for: client1)
        #expect(restoration.serviceChanged == nil)
        // Only the configuration not written now comes back (the unknown handle is dropped).
        #expect(restoration.subscriptions.map(\.characteristic.characteristicUUID) == [0xCC03])
        #expect(restoration.subscriptions.first?.notifications == true)
        #expect(server.clientConfiguration(for: server.valueHandle(0xCC04), connection: client1) == 0x0002)
        #expect(server.clientConfiguration(for: server.valueHandle(0xCC03), connection: client1) == 0x0001)
        #expect(server.lastSignCounter(for: client1) == 9)
        // Notifications resume without a new subscription.
        #expect(try server.notification(for: server.valueHandle(0xCC03), value: [7], connection: client1) != nil)
        // And the state to save holds both.
        let state = try #require(server.bondedState(for: client1))
        #expect(state.clientConfigurations == [notify: 0x0002, encryptedNotify: 0x0001])
    }

    @Test("Part G §2.5.2.1: a database changed since the state was saved makes the client change-unaware")
    func restoreWithChangedHash() throws {
        var server = try bondingServer()
        let saved = GATTBondedClientState(clientConfigurations: [:], databaseHash: [UInt8](repeating: 0, count: 16))
        server.connect(client1, security: .encrypted(keySize: 16, authenticated: false))
        _ = server.restoreBondedClient(saved, for: client1)
        #expect(server.bondedState(for: client1)?.isChangeAware == false)
    }
}
