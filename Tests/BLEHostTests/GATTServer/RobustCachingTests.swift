import BLEWire
import Testing

@testable import BLEHost

@Suite("Robust Caching (Core 5.4 Vol 3 Part G §2.5.2.1, §7.2–§7.3)")
struct RobustCachingTests {
    /// A server whose client1 enabled Robust Caching and Service Changed indications, after a
    /// service was added (so client1 is change-unaware).
    static func unawareClient() throws -> GATTServer {
        var server = try testServer()
        #expect(server.exchange("12 0B00 01") == hex("13"))
        _ = server.exchange("12 0900 0200")
        _ = server.exchange("12 1100 0100")
        try server.add([GATTService(uuid: 0x180A)])
        return server
    }

    @Test("A change-unaware client's request gets Database Out Of Sync once; the next request is served")
    func outOfSyncOnce() throws {
        var server = try Self.unawareClient()
        #expect(server.exchange("0A 1300") == errorResponse(0x0A, 0x0013, .databaseOutOfSync))
        #expect(server.exchange("0A 1300") == hex("0B 01"))
        #expect(server.exchange("0A 1300") == hex("0B 01"))
    }

    @Test("Every request naming handles is refused, with its handle")
    func requestsRefused() throws {
        for (request, handle) in [
            ("0C 1F00 0000", UInt16(0x001F)), ("0E 1300 1800", 0x0013), ("20 1800 1300", 0x0018),
            ("12 1500 01", 0x0015), ("16 1F00 0000 01", 0x001F), ("08 0100 0500 002A", 0x0001),
        ] {
            var server = try Self.unawareClient()
            let opcode = hex(request)[0]
            #expect(server.exchange(request) == errorResponse(opcode, handle, .databaseOutOfSync))
        }
    }

    @Test("Part F §3.4.3.1, §3.4.3.3, §3.4.4.9: discovery requests are never refused, nor is Exchange MTU")
    func discoveryNotRefused() throws {
        var server = try Self.unawareClient()
        #expect(server.exchange("04 0100 0100") == hex("05 01 0100 0028"))
        #expect(server.exchange("06 0100 FFFF 0028 0F18") == hex("07 1600 1A00"))
        #expect(server.exchange("10 1600 FFFF 0028")?.first == 0x11)
        #expect(server.exchange("02 1700")?.first == 0x03)
        // Read By Type of «Include» or «Characteristic», or over the whole range, is served.
        #expect(server.exchange("08 0100 0500 0328")?.first == 0x09)
        #expect(server.exchange("08 1B00 2300 0228")?.first == 0x09)
        #expect(server.exchange("08 0100 FFFF 382A") == hex("09 03 1300 01"))
        // Still change-unaware: the first request naming a handle is refused.
        #expect(server.exchange("0A 1300") == errorResponse(0x0A, 0x0013, .databaseOutOfSync))
    }

    @Test("Reading the Database Hash makes the client change-aware at its next request")
    func hashRead() throws {
        var server = try Self.unawareClient()
        let hash = server.database.hash
        #expect(server.exchange("08 0100 FFFF 2A2B") == hex("09 12 0D00") + hash)
        #expect(server.exchange("0A 1300") == hex("0B 01"))
    }

    @Test("Confirming the Service Changed indication makes the client change-aware")
    func serviceChangedConfirmation() throws {
        var server = try Self.unawareClient()
        let indications = server.serviceChanged(range: 0x0027...0x0027)
        #expect(indications.count == 1)
        _ = server.handle(bytes: hex("1E"), connection: client1)
        #expect(server.exchange("0A 1300") == hex("0B 01"))
    }

    @Test("Commands are ignored and notifications withheld while change-unaware; Service Changed still goes")
    func commandsAndNotifications() throws {
        var server = try Self.unawareClient()
        #expect(server.handle(bytes: hex("52 2300 01"), connection: client1) == .none)
        #expect(try server.notification(for: 0x0010, value: [1], connection: client1) == nil)
        #expect(server.serviceChanged(range: 0x0027...0x0027).count == 1)
        _ = server.handle(bytes: hex("1E"), connection: client1)
        #expect(try server.notification(for: 0x0010, value: [1], connection: client1) != nil)
        guard case .writeWithoutResponse = server.handle(bytes: hex("52 2300 01"), connection: client1) else {
            Issue.record("expected the command to be handled once change-aware")
            return
        }
    }

    @Test("Part F §3.4.6.3: Execute Write from a change-unaware client is refused and the queue cleared")
    func executeRefused() throws {
        var server = try testServer()
        _ = server.exchange("12 0B00 01")
        _ = server.exchange("16 1F00 0000 01")
        try server.add([GATTService(uuid: 0x180A)])
        #expect(server.exchange("18 01") == errorResponse(0x18, 0x001F, .databaseOutOfSync))
        #expect(server.exchange("18 01") == hex("19"))
    }

    @Test("A client without Robust Caching is never refused")
    func withoutRobustCaching() throws {
        var server = try testServer()
        try server.add([GATTService(uuid: 0x180A)])
        #expect(server.exchange("0A 1300") == hex("0B 01"))
        #expect(server.handle(bytes: hex("52 2300 01"), connection: client1) != .none)
    }

    @Test("A new change before the client caught up makes it send Database Out Of Sync again")
    func secondChange() throws {
        var server = try Self.unawareClient()
        #expect(server.exchange("0A 1300") == errorResponse(0x0A, 0x0013, .databaseOutOfSync))
        try server.add([GATTService(uuid: 0x180B)])
        #expect(server.exchange("0A 1300") == errorResponse(0x0A, 0x0013, .databaseOutOfSync))
        #expect(server.exchange("0A 1300") == hex("0B 01"))
    }

    @Test("A bonded Robust Caching client reconnecting after a change is change-unaware")
    func bondedReconnect() throws {
        var server = try testServer()
        _ = server.exchange("12 0B00 01")
        let state = server.disconnect(client1)
        let saved = try #require(state)
        try server.add([GATTService(uuid: 0x180A)])
        // No Service Changed subscription: nothing to indicate, but the client is refused once.
        #expect(server.connect(client1, bonded: saved) == nil)
        #expect(server.exchange("0A 1300") == errorResponse(0x0A, 0x0013, .databaseOutOfSync))
        #expect(server.exchange("0A 1300") == hex("0B 01"))
        // Unchanged database: aware from the start.
        let stateAgain = server.disconnect(client1)
        let again = try #require(stateAgain)
        server.connect(client1, bonded: again)
        #expect(server.exchange("0A 1300") == hex("0B 01"))
    }
}
