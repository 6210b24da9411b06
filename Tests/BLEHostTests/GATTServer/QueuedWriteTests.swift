import BLEWire
import Testing

@testable import BLEHost

@Suite("Queued writes (Core 5.4 Vol 3 Part F §3.4.6; Part G §4.9.4–§4.9.5)")
struct QueuedWriteTests {
    /// A Prepare Write Request's hex.
    static func prepare(_ handle: UInt16, _ offset: Int, _ value: [UInt8]) -> String {
        "16 "
            + Hex.string([UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(offset & 0xFF), UInt8(offset >> 8)] + value)
    }

    @Test("Part G §4.9.4 Write Long Characteristic Values: parts echoed, executed as one write")
    func writeLong() throws {
        var server = try testServer()
        let newValue = (0..<40).map { UInt8(0xC0 &+ $0) }
        for offset in stride(from: 0, to: 40, by: 18) {
            let part = Array(newValue[offset..<min(offset + 18, 40)])
            let request = Self.prepare(0x001F, offset, part)
            // §3.4.6.2: the response echoes handle, offset and value.
            #expect(server.exchange(request) == [0x17] + hex(request).dropFirst())
        }
        let execute = try #require(server.handle(bytes: hex("18 01"), connection: client1).writeRequest)
        #expect(execute.kind == .executeWrite)
        #expect(execute.writes.map(\.offset) == [0] && execute.writes[0].value == newValue)
        // Not written until the application agrees.
        #expect(server.database.attribute(at: 0x001F)?.storage == .value(longValue))
        #expect(server.complete(execute, with: .success).response?.encoded == hex("19"))
        #expect(server.database.attribute(at: 0x001F)?.storage == .value(newValue))
    }

    @Test("Part F §3.4.6.3: an offset past the value built so far is Invalid Offset at execution; the queue is gone")
    func invalidOffsetAtExecute() throws {
        var server = try testServer()
        #expect(server.exchange(Self.prepare(0x001F, 0, [1, 2])) != nil)
        // The first part leaves a two-octet value: offset 3 is past its end.
        #expect(server.exchange(Self.prepare(0x001F, 3, [9])) == [0x17] + hex(Self.prepare(0x001F, 3, [9])).dropFirst())
        #expect(server.exchange("18 01") == errorResponse(0x18, 0x001F, .invalidOffset))
        #expect(server.exchange("18 01") == hex("19"))
        #expect(server.database.attribute(at: 0x001F)?.storage == .value(longValue))
        // Past the current stored value from the start.
        _ = server.exchange(Self.prepare(0x001F, 101, [1]))
        #expect(server.exchange("18 01") == errorResponse(0x18, 0x001F, .invalidOffset))
        // A dynamic value: the first part may start anywhere, later ones not past what came before.
        _ = server.exchange(Self.prepare(0x0015, 4, [1]))
        _ = server.exchange(Self.prepare(0x0015, 7, [2]))
        #expect(server.exchange("18 01") == errorResponse(0x18, 0x0015, .invalidOffset))
    }

    @Test("Part F §3.4.6.3: a prepared value past 512 octets is Invalid Attribute Value Length at execution")
    func invalidLengthAtExecute() throws {
        var server = try testServer()
        var offset = 0
        while offset < 513 {
            _ = server.exchange(Self.prepare(0x001F, offset, Array(repeating: 0x77, count: 18)))
            offset += 18
        }
        #expect(server.exchange("18 01") == errorResponse(0x18, 0x001F, .invalidAttributeValueLength))
        // A dynamic value too: offset + length past 512.
        _ = server.exchange(Self.prepare(0x0015, 510, [1, 2, 3]))
        #expect(server.exchange("18 01") == errorResponse(0x18, 0x0015, .invalidAttributeValueLength))
    }

    @Test("Part F §3.4.6.1: Prepare Queue Full past the limit; queued parts stay and execute")
    func queueFull() throws {
        var server = try testServer(GATTServer.Configuration(prepareQueueLimit: 2))
        _ = server.exchange(Self.prepare(0x001F, 0, [1]))
        _ = server.exchange(Self.prepare(0x001F, 1, [2]))
        #expect(server.exchange(Self.prepare(0x001F, 2, [3])) == errorResponse(0x16, 0x001F, .prepareQueueFull))
        let execute = try #require(server.handle(bytes: hex("18 01"), connection: client1).writeRequest)
        #expect(execute.writes.map(\.value) == [[1, 2]])
    }

    @Test("Part F §3.4.6.3: Execute Write with flags 0x00 cancels; an empty queue executes to a response")
    func cancel() throws {
        var server = try testServer()
        _ = server.exchange(Self.prepare(0x001F, 0, [1]))
        #expect(server.exchange("18 00") == hex("19"))
        #expect(server.handle(bytes: hex("18 01"), connection: client1) == .respond(ATT.ExecuteWriteResponse().pdu))
        #expect(server.database.attribute(at: 0x001F)?.storage == .value(longValue))
    }

    @Test("Part F §3.4.6.1: Prepare Write checks handle and permissions at once")
    func prepareErrors() throws {
        var server = try testServer()
        #expect(server.exchange(Self.prepare(0x0000, 0, [1])) == errorResponse(0x16, 0x0000, .invalidHandle))
        #expect(server.exchange(Self.prepare(0x0099, 0, [1])) == errorResponse(0x16, 0x0099, .invalidHandle))
        #expect(server.exchange(Self.prepare(0x0013, 0, [1])) == errorResponse(0x16, 0x0013, .writeNotPermitted))
        // Configurations the server keeps are written with Write Requests only.
        #expect(server.exchange(Self.prepare(0x0011, 0, [1, 0])) == errorResponse(0x16, 0x0011, .writeNotPermitted))
        #expect(server.exchange(Self.prepare(0x000B, 0, [1])) == errorResponse(0x16, 0x000B, .writeNotPermitted))
        // Refused parts are not queued.
        #expect(server.exchange("18 01") == hex("19"))
    }

    @Test("Part G §4.9.5 Reliable Writes: several attributes, in order; an application error names its handle")
    func reliableWrite() throws {
        var server = try testServer()
        _ = server.exchange(Self.prepare(0x001F, 0, [0xA1]))
        _ = server.exchange(Self.prepare(0x0021, 0, Array("New".utf8)))
        _ = server.exchange(Self.prepare(0x0015, 0, [0x01]))
        _ = server.exchange(Self.prepare(0x0015, 1, [0x02]))
        _ = server.exchange(Self.prepare(0x0015, 0, [0x03]))
        let execute = try #require(server.handle(bytes: hex("18 01"), connection: client1).writeRequest)
        #expect(execute.writes.map(\.attribute.handle) == [0x001F, 0x0021, 0x0015, 0x0015])
        #expect(execute.writes.map(\.offset) == [0, 0, 0, 0])
        #expect(execute.writes.map(\.value) == [[0xA1], Array("New".utf8), [0x01, 0x02], [0x03]])
        #expect(
            server.complete(execute, with: .error(ATTErrorCode(0x81), handle: 0x0015)).response?.encoded
                == errorResponse(0x18, 0x0015, ATTErrorCode(0x81)))
        #expect(server.database.attribute(at: 0x001F)?.storage == .value(longValue))
        // Without a handle, the first queued one is named.
        _ = server.exchange(Self.prepare(0x0021, 0, [0x41]))
        let again = try #require(server.handle(bytes: hex("18 01"), connection: client1).writeRequest)
        #expect(
            server.complete(again, with: .error(.writeRequestRejected)).response?.encoded
                == errorResponse(0x18, 0x0021, .writeRequestRejected))
    }

    @Test("Part F §3.4.6.3: a queued attribute removed before execution is Database Out Of Sync")
    func executeAfterRemoval() throws {
        var server = try testServer()
        _ = server.exchange(Self.prepare(0x0015, 0, [0x01]))
        try server.removeService(at: 0x000E)
        // Not Robust Caching: the client is not refused, its queue meets the change.
        #expect(server.exchange("18 01") == errorResponse(0x18, 0x0015, .databaseOutOfSync))
    }

    @Test("Part F §3.4.6: each client has its own queue")
    func queuesPerClient() throws {
        var server = try testServer()
        server.connect(client2)
        _ = server.exchange(Self.prepare(0x001F, 0, [1]))
        #expect(server.exchange("18 01", on: client2) == hex("19"))
        let execute = try #require(server.handle(bytes: hex("18 01"), connection: client1).writeRequest)
        #expect(execute.writes.map(\.value) == [[1]])
    }
}
