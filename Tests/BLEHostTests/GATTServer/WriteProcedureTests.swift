import BLEWire
import Testing

@testable import BLEHost

@Suite("Writes (Core 5.4 Vol 3 Part F §3.4.5; Part G §4.9, §3.3.3.3, §7.2)")
struct WriteProcedureTests {
    @Test("Part G §4.9.3 Write Characteristic Value: the application approves, then Write Response")
    func writeRequest() throws {
        var server = try testServer()
        let request = try #require(server.handle(bytes: hex("12 1500 01"), connection: client1).writeRequest)
        #expect(request.kind == .write && request.connection == client1)
        #expect(request.writes.count == 1)
        let write = request.writes[0]
        #expect(write.attribute.handle == 0x0015 && write.attribute.characteristicUUID == 0x2A39)
        #expect(write.attribute.serviceUUID == 0x180D && write.offset == 0 && write.value == [0x01])
        #expect(server.complete(request, with: .success).response?.encoded == hex("13"))
        #expect(server.complete(request, with: .success) == .none)
    }

    @Test("Part F §3.4.5.1: an application error reaches the client with the written handle")
    func writeRequestApplicationError() throws {
        var server = try testServer()
        let request = try #require(server.handle(bytes: hex("12 1500 05"), connection: client1).writeRequest)
        #expect(
            server.complete(request, with: .error(ATTErrorCode(0x80))).response?.encoded
                == errorResponse(0x12, 0x0015, ATTErrorCode(0x80)))
    }

    @Test("A stored value takes the written value once the application agrees, not before")
    func writeStoredValue() throws {
        var server = try testServer()
        let request = try #require(server.handle(bytes: hex("12 1F00 AABB"), connection: client1).writeRequest)
        #expect(server.database.attribute(at: 0x001F)?.storage == .value(longValue))
        _ = server.complete(request, with: .success)
        #expect(server.exchange("0A 1F00") == hex("0B AABB"))
        // Rejected: unchanged.
        let rejected = try #require(server.handle(bytes: hex("12 1F00 CC"), connection: client1).writeRequest)
        _ = server.complete(rejected, with: .error(.writeRequestRejected))
        #expect(server.exchange("0A 1F00") == hex("0B AABB"))
    }

    @Test("Part F §3.4.5.1: Invalid Handle, Write Not Permitted")
    func writeErrors() throws {
        var server = try testServer()
        #expect(server.exchange("12 0000 01") == errorResponse(0x12, 0x0000, .invalidHandle))
        #expect(server.exchange("12 2700 01") == errorResponse(0x12, 0x0027, .invalidHandle))
        #expect(server.exchange("12 1300 02") == errorResponse(0x12, 0x0013, .writeNotPermitted))
        #expect(server.exchange("12 0200 02") == errorResponse(0x12, 0x0002, .writeNotPermitted))
        #expect(server.exchange("12 0D00 00") == errorResponse(0x12, 0x000D, .writeNotPermitted))
        #expect(server.exchange("12 0800 0000 0000") == errorResponse(0x12, 0x0008, .writeNotPermitted))
        #expect(server.exchange("12 2000 0000") == errorResponse(0x12, 0x0020, .writeNotPermitted))
    }

    @Test("Part F §3.2.9: a value longer than 512 octets is an Invalid Attribute Value Length")
    func writeTooLong() throws {
        var server = try testServer(GATTServer.Configuration(mtu: 517))
        _ = server.exchange("02 0502")
        let request = "12 1F00 " + Hex.string([UInt8](repeating: 0x55, count: 513))
        #expect(server.exchange(request) == errorResponse(0x12, 0x001F, .invalidAttributeValueLength))
        let fits = "12 1F00 " + Hex.string([UInt8](repeating: 0x55, count: 512))
        #expect(server.handle(bytes: hex(fits), connection: client1).writeRequest != nil)
    }

    @Test("Writable Auxiliaries makes the user description writable (Part G §3.3.3.2)")
    func writableAuxiliaries() throws {
        var server = try testServer()
        let request = try #require(server.handle(bytes: hex("12 2100 41"), connection: client1).writeRequest)
        #expect(request.writes[0].attribute.descriptorUUID == 0x2901)
        #expect(request.writes[0].attribute.characteristicValueHandle == 0x001F)
        _ = server.complete(request, with: .success)
        #expect(server.exchange("0A 2100") == hex("0B 41"))
    }

    @Test("Part F §3.4.5.3 Write Command: the application is told; nothing is ever sent back")
    func writeCommand() throws {
        var server = try testServer()
        let outcome = server.handle(bytes: hex("52 2300 0102"), connection: client1)
        guard case .writeWithoutResponse(let command) = outcome else {
            Issue.record("expected a write without response, got \(outcome)")
            return
        }
        #expect(command.write.attribute.handle == 0x0023 && command.write.value == [1, 2] && !command.isSigned)
        // Errors are silent: unknown handle, not writable, no writeWithoutResponse property.
        #expect(server.handle(bytes: hex("52 9999 01"), connection: client1) == .none)
        #expect(server.handle(bytes: hex("52 1300 01"), connection: client1) == .none)
        #expect(server.handle(bytes: hex("52 1500 01"), connection: client1) == .none)
        #expect(server.handle(bytes: hex("52 0200 01"), connection: client1) == .none)
    }

    @Test("Part G §3.3.3.3: a CCCD write changes that client's configuration only, and is reported")
    func clientConfiguration() throws {
        var server = try testServer()
        server.connect(client2)
        let outcome = server.handle(bytes: hex("12 1100 0100"), connection: client1)
        guard case .subscriptionChanged(let subscription, let response) = outcome else {
            Issue.record("expected a subscription change, got \(outcome)")
            return
        }
        #expect(response?.encoded == hex("13"))
        #expect(subscription.notifications && !subscription.indications && subscription.connection == client1)
        #expect(
            subscription.characteristic.handle == 0x0010 && subscription.characteristic.characteristicUUID == 0x2A37)
        #expect(server.exchange("0A 1100") == hex("0B 0100"))
        #expect(server.exchange("0A 1100", on: client2) == hex("0B 0000"))
        #expect(server.clientConfiguration(for: 0x0010, connection: client1) == 0x0001)
        #expect(server.clientConfiguration(for: 0x0010, connection: client2) == 0x0000)
        // The same value again is no change: just the response.
        #expect(server.handle(bytes: hex("12 1100 0100"), connection: client1) == .respond(ATT.WriteResponse().pdu))
        guard case .subscriptionChanged(let off, _) = server.handle(bytes: hex("12 1100 0000"), connection: client1)
        else {
            Issue.record("expected unsubscription")
            return
        }
        #expect(!off.isSubscribed)
    }

    @Test("CSS Part B §1.2: bits the properties do not allow are CCCD Improperly Configured; length ≠ 2 is 0x0D")
    func clientConfigurationErrors() throws {
        var server = try testServer()
        // Heart Rate Measurement notifies, it does not indicate.
        #expect(server.exchange("12 1100 0200") == errorResponse(0x12, 0x0011, .cccdImproperlyConfigured))
        #expect(server.exchange("12 1100 0300") == errorResponse(0x12, 0x0011, .cccdImproperlyConfigured))
        #expect(server.exchange("12 1100 0400") == errorResponse(0x12, 0x0011, .cccdImproperlyConfigured))
        #expect(server.exchange("12 0900 0100") == errorResponse(0x12, 0x0009, .cccdImproperlyConfigured))
        #expect(server.exchange("12 1100 01") == errorResponse(0x12, 0x0011, .invalidAttributeValueLength))
        #expect(server.exchange("12 1100 010000") == errorResponse(0x12, 0x0011, .invalidAttributeValueLength))
        #expect(server.exchange("0A 1100") == hex("0B 0000"))
        // Service Changed indicates.
        #expect(server.handle(bytes: hex("12 0900 0200"), connection: client1).response?.encoded == hex("13"))
    }

    @Test("A Write Command to a CCCD subscribes without a response")
    func clientConfigurationByCommand() throws {
        var server = try testServer()
        guard
            case .subscriptionChanged(let subscription, nil) = server.handle(
                bytes: hex("52 1900 0100"), connection: client1)
        else {
            Issue.record("expected a subscription change without response")
            return
        }
        #expect(subscription.notifications)
        #expect(server.handle(bytes: hex("52 1900 0200"), connection: client1) == .none)
        #expect(server.handle(bytes: hex("52 1900 01"), connection: client1) == .none)
    }

    @Test("Part G §7.2 Client Supported Features: per client; bits may be set, never cleared (Value Not Allowed)")
    func clientSupportedFeatures() throws {
        var server = try testServer()
        server.connect(client2)
        #expect(server.exchange("0A 0B00") == hex("0B"))
        #expect(server.exchange("12 0B00 01") == hex("13"))
        #expect(server.exchange("0A 0B00") == hex("0B 01"))
        #expect(server.exchange("0A 0B00", on: client2) == hex("0B"))
        #expect(server.exchange("12 0B00 00") == errorResponse(0x12, 0x000B, .valueNotAllowed))
        #expect(server.exchange("12 0B00") == errorResponse(0x12, 0x000B, .valueNotAllowed))
        #expect(server.exchange("12 0B00 05") == hex("13"))
        #expect(server.exchange("12 0B00 0500") == hex("13"))
    }

    @Test("A Write Command to a stored value replaces it at once")
    func writeCommandStored() throws {
        let service = GATTService(
            uuid: 0xAAAA,
            characteristics: [
                GATTCharacteristic(
                    uuid: 0xBB01, properties: [.read, .writeWithoutResponse], permissions: [.readable, .writeable],
                    value: .stored([0]))
            ])
        var server = GATTServer(database: try AttributeDatabase(services: [service]))
        guard case .writeWithoutResponse = server.handle(bytes: hex("52 1000 0909"), connection: client1) else {
            Issue.record("expected a write without response")
            return
        }
        #expect(server.exchange("0A 1000") == hex("0B 0909"))
        try server.setValue([7], forAttributeAt: 0x0010)
        #expect(server.exchange("0A 1000") == hex("0B 07"))
        #expect(throws: GATTServerError.notAStoredValue(handle: 0x000F)) {
            try server.setValue([7], forAttributeAt: 0x000F)
        }
        #expect(throws: GATTServerError.valueTooLong(length: 513)) {
            try server.setValue(Array(repeating: 0, count: 513), forAttributeAt: 0x0010)
        }
    }
}
