import BLEWire
import Testing

@testable import BLEHost

/// Values at 0x0010 (read: encryption), 0x0012 (read: authentication), 0x0014 (read:
/// authorization), 0x0016 (write: encryption), 0x0018 (write: authentication), 0x001A (write:
/// authorization), 0x001C (notify; value read needs encryption, CCCD at 0x001D), 0x001F (readable).
func securityServer(_ configuration: GATTServer.Configuration = .init()) throws -> GATTServer {
    func characteristic(_ uuid: UInt16, _ properties: CharacteristicProperties, _ permissions: AttributePermissions)
        -> GATTCharacteristic
    {
        GATTCharacteristic(
            uuid: BluetoothUUID(uuid), properties: properties, permissions: permissions, value: .stored([0x5A]))
    }
    let service = GATTService(
        uuid: 0xAAAA,
        characteristics: [
            characteristic(0xBB01, .read, .readEncryptionRequired),
            characteristic(0xBB02, .read, .readAuthenticationRequired),
            characteristic(0xBB03, .read, [.readable, .readAuthorizationRequired]),
            characteristic(0xBB04, .write, .writeEncryptionRequired),
            characteristic(0xBB05, .write, .writeAuthenticationRequired),
            characteristic(0xBB06, .write, [.writeable, .writeAuthorizationRequired]),
            characteristic(0xBB07, [.read, .notify], .readEncryptionRequired),
            characteristic(0xBB08, .read, .readable),
        ])
    return GATTServer(database: try AttributeDatabase(services: [service]), configuration: configuration)
}

@Suite("Link security and authorization (Core 5.4 Vol 3 Part C §10.3; Part F §3.4.4.3, §3.4.5.1)")
struct SecurityTests {
    @Test("Unencrypted without a key: Insufficient Authentication (the client must pair)")
    func unencryptedNoKey() throws {
        var server = try securityServer()
        server.connect(client1, security: .none)
        #expect(server.exchange("0A 1000") == errorResponse(0x0A, 0x0010, .insufficientAuthentication))
        #expect(server.exchange("0A 1200") == errorResponse(0x0A, 0x0012, .insufficientAuthentication))
        #expect(server.exchange("12 1600 01") == errorResponse(0x12, 0x0016, .insufficientAuthentication))
        #expect(server.exchange("0C 1000 0000") == errorResponse(0x0C, 0x0010, .insufficientAuthentication))
        #expect(server.exchange("16 1800 0000 01") == errorResponse(0x16, 0x0018, .insufficientAuthentication))
        #expect(server.exchange("0A 1F00") == hex("0B 5A"))
    }

    @Test("Unencrypted with a known key: Insufficient Encryption (the client must encrypt)")
    func unencryptedWithKey() throws {
        var server = try securityServer()
        server.connect(client1, security: .unencrypted(keyAvailable: true))
        #expect(server.exchange("0A 1000") == errorResponse(0x0A, 0x0010, .insufficientEncryption))
        #expect(server.exchange("0A 1200") == errorResponse(0x0A, 0x0012, .insufficientEncryption))
        #expect(server.exchange("12 1600 01") == errorResponse(0x12, 0x0016, .insufficientEncryption))
        #expect(server.exchange("16 1600 0000 01") == errorResponse(0x16, 0x0016, .insufficientEncryption))
    }

    @Test("Encrypted with an unauthenticated key: encryption is enough, authentication is not")
    func encryptedUnauthenticated() throws {
        var server = try securityServer()
        server.connect(client1, security: .encrypted(keySize: 16, authenticated: false))
        #expect(server.exchange("0A 1000") == hex("0B 5A"))
        #expect(server.exchange("0A 1200") == errorResponse(0x0A, 0x0012, .insufficientAuthentication))
        #expect(server.exchange("12 1800 01") == errorResponse(0x12, 0x0018, .insufficientAuthentication))
        #expect(server.handle(bytes: hex("12 1600 01"), connection: client1).writeRequest != nil)
    }

    @Test("Encrypted and authenticated: everything but authorization")
    func authenticated() throws {
        var server = try securityServer()
        server.connect(client1, security: .none)
        server.setSecurity(.encrypted(keySize: 16, authenticated: true), for: client1)
        #expect(server.exchange("0A 1200") == hex("0B 5A"))
        #expect(server.handle(bytes: hex("12 1800 01"), connection: client1).writeRequest != nil)
    }

    @Test("Part F §3.4.4.3: a key shorter than required is Encryption Key Size Too Short")
    func keySize() throws {
        var server = try securityServer(GATTServer.Configuration(minimumEncryptionKeySize: 16))
        server.connect(client1, security: .encrypted(keySize: 7, authenticated: true))
        #expect(server.exchange("0A 1000") == errorResponse(0x0A, 0x0010, .encryptionKeySizeTooShort))
        #expect(server.exchange("12 1800 01") == errorResponse(0x12, 0x0018, .encryptionKeySizeTooShort))
        // Attributes without security do not care.
        #expect(server.exchange("0A 1F00") == hex("0B 5A"))
    }

    @Test("Insufficient Authorization until the application authorizes the client")
    func authorization() throws {
        var server = try securityServer()
        server.connect(client1, security: .encrypted(keySize: 16, authenticated: true))
        #expect(server.exchange("0A 1400") == errorResponse(0x0A, 0x0014, .insufficientAuthorization))
        #expect(server.exchange("12 1A00 01") == errorResponse(0x12, 0x001A, .insufficientAuthorization))
        server.setAuthorized(true, for: client1)
        #expect(server.exchange("0A 1400") == hex("0B 5A"))
        #expect(server.handle(bytes: hex("12 1A00 01"), connection: client1).writeRequest != nil)
    }

    @Test("Part F §3.4.4.1: Read By Type names the first attribute at fault; a later one ends the list")
    func readByTypeSecurity() throws {
        var server = try securityServer()
        server.connect(client1, security: .none)
        // Every characteristic declaration is readable; the values are not.
        #expect(server.exchange("08 1000 1000 01BB") == errorResponse(0x08, 0x0010, .insufficientAuthentication))
        #expect(server.exchange("0E 1F00 1000") == errorResponse(0x0E, 0x0010, .insufficientAuthentication))
        #expect(server.exchange("20 1F00 1400") == errorResponse(0x20, 0x0014, .insufficientAuthorization))
    }

    @Test("Part G §3.3.3.3: subscribing needs the security reading the value needs; reading the CCCD does not")
    func subscriptionSecurity() throws {
        var server = try securityServer()
        server.connect(client1, security: .none)
        #expect(server.exchange("0A 1D00") == hex("0B 0000"))
        #expect(server.exchange("12 1D00 0100") == errorResponse(0x12, 0x001D, .insufficientAuthentication))
        server.setSecurity(.encrypted(keySize: 16, authenticated: false), for: client1)
        #expect(server.exchange("12 1D00 0100") == hex("13"))
    }

    @Test("Write Commands failing a check are dropped silently")
    func silentCommands() throws {
        var server = try securityServer()
        server.connect(client1, security: .none)
        #expect(server.handle(bytes: hex("52 1600 01"), connection: client1) == .none)
    }
}
