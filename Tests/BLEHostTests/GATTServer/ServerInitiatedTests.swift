import BLEWire
import Testing

@testable import BLEHost

@Suite("Notifications, indications, Service Changed (Core 5.4 Vol 3 Part F §3.4.7; Part G §4.10–§4.11, §7.1)")
struct ServerInitiatedTests {
    @Test("Part G §4.10: a notification goes only to a client that enabled it, cut to ATT_MTU − 3")
    func notification() throws {
        var server = try testServer()
        server.connect(client2)
        let value = (0..<30).map { UInt8($0) }
        #expect(try server.notification(for: 0x0010, value: value, connection: client1) == nil)
        _ = server.exchange("12 1100 0100")
        let pdu = try #require(try server.notification(for: 0x0010, value: value, connection: client1))
        #expect(pdu.encoded == hex("1B 1000") + value.prefix(20))
        // The other client did not subscribe.
        #expect(try server.notification(for: 0x0010, value: value, connection: client2) == nil)
        // A larger MTU carries more.
        _ = server.exchange("02 2000")
        #expect(
            try server.notification(for: 0x0010, value: value, connection: client1)?.encoded == hex("1B 1000")
                + value.prefix(29))
    }

    @Test("Part G §4.11: an indication needs the indication bit; confirmations come back in order")
    func indication() throws {
        var server = try testServer()
        // Battery Level notifies only.
        _ = server.exchange("12 1900 0100")
        #expect(try server.indication(for: 0x0018, value: [1], connection: client1) == nil)
        _ = server.exchange("12 0900 0200")
        let sent = try server.indication(for: 0x0008, value: hex("0100 FFFF"), connection: client1)
        let pdu = try #require(sent)
        #expect(pdu.encoded == hex("1D 0800 0100FFFF"))
        #expect(
            server.handle(bytes: hex("1E"), connection: client1)
                == .confirmationReceived(connection: client1, handle: 0x0008))
        // Part F §3.4.7.3: a confirmation with nothing outstanding is dropped.
        #expect(server.handle(bytes: hex("1E"), connection: client1) == .none)
    }

    @Test("Notifying what cannot be notified, or an unknown client, is API misuse")
    func misuse() throws {
        let server = try testServer()
        #expect(throws: GATTServerError.notNotifiable(handle: 0x0013)) {
            try server.notification(for: 0x0013, value: [], connection: client1)
        }
        #expect(throws: GATTServerError.notNotifiable(handle: 0x0099)) {
            try server.notification(for: 0x0099, value: [], connection: client1)
        }
        #expect(throws: GATTServerError.unknownConnection(client2)) {
            try server.notification(for: 0x0010, value: [], connection: client2)
        }
    }

    @Test("Part G §7.1: Service Changed indications go to every client that enabled them")
    func serviceChanged() throws {
        var server = try testServer()
        server.connect(client2)
        server.connect(GATTConnectionID(0x0042))
        _ = server.exchange("12 0900 0200")
        _ = server.exchange("12 0900 0200", on: client2)
        let added = try server.add([GATTService(uuid: 0x180A)])
        let range = added[0].range
        #expect(range == 0x0027...0x0027)
        let indications = server.serviceChanged(range: range)
        #expect(indications.map(\.0) == [client1, client2])
        #expect(indications.map { $0.1.encoded } == [hex("1D 0800 2700 2700"), hex("1D 0800 2700 2700")])
    }

    @Test("Part G §3.3.3.3: a bonded client's configurations come back at reconnection; others start at zero")
    func bondedConfigurations() throws {
        var server = try testServer()
        _ = server.exchange("12 1100 0100")
        _ = server.exchange("12 0B00 01")
        let state = server.disconnect(client1)
        let saved = try #require(state)
        #expect(saved.clientConfigurations == [0x0011: 0x0001] && saved.clientSupportedFeatures == [1])
        #expect(saved.isChangeAware && saved.databaseHash == server.database.hash)
        #expect(server.connect(client1, bonded: saved) == nil)
        #expect(server.exchange("0A 1100") == hex("0B 0100"))
        server.disconnect(client1)
        server.connect(client1)
        #expect(server.exchange("0A 1100") == hex("0B 0000"))
        #expect(server.exchange("0A 0B00") == hex("0B"))
    }

    @Test("Part G §2.5.2.1: a bonded client that missed a change is change-unaware and is sent Service Changed")
    func bondedClientMissedChange() throws {
        var server = try testServer()
        _ = server.exchange("12 0900 0200")
        _ = server.exchange("12 1100 0100")
        let state = server.disconnect(client1)
        let saved = try #require(state)
        try server.removeService(at: 0x000E)
        let sent = server.connect(client1, bonded: saved)
        let indication = try #require(sent)
        #expect(indication.encoded == hex("1D 0800 0100 FFFF"))
        // The Heart Rate CCCD no longer exists: only Service Changed's is kept.
        #expect(server.bondedState(for: client1)?.clientConfigurations == [0x0009: 0x0002])
        #expect(!(server.bondedState(for: client1)?.isChangeAware ?? true))
        _ = server.handle(bytes: hex("1E"), connection: client1)
        #expect(server.bondedState(for: client1)?.isChangeAware == true)
    }

    @Test("Link state: MTU, security and authorization are per connection")
    func connectionState() throws {
        var server = try testServer()
        #expect(server.mtu(for: client1) == 23)
        #expect(server.connectedClients == [client1])
        server.connect(client2, security: .encrypted(keySize: 16, authenticated: true))
        #expect(server.connectedClients == [client1, client2])
        _ = server.exchange("02 6400", on: client2)
        #expect(server.mtu(for: client2) == 100 && server.mtu(for: client1) == 23)
        // Authorization and security belong to one link.
        #expect(server.exchange("0A 0300", on: client2) == [0x0B] + Array("swift-ble test".utf8))
        server.disconnect(client2)
        #expect(server.disconnect(client2) == nil)
    }
}
