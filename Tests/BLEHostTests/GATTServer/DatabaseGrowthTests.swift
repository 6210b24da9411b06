import BLEWire
import Testing

@testable import BLEHost

@Suite("Publishing many services costs the same per service (Core 5.4 Vol 3 Part G §7.3 hash on demand)")
struct DatabaseGrowthTests {
    static func service(_ index: Int) -> GATTService {
        GATTService(
            uuid: BluetoothUUID(UInt16(truncatingIfNeeded: 0x4000 + index)),
            characteristics: [
                GATTCharacteristic(
                    uuid: 0x2A19, properties: [.read, .notify], permissions: .readable,
                    value: .stored([UInt8(index & 0xFF)]))
            ])
    }

    @Test("Adding services one by one never hashes the database; the Database Hash is computed once, when read")
    func hashOnDemand() throws {
        var database = try AttributeDatabase()
        for index in 0..<2_000 {
            try database.add(Self.service(index))
            #expect(!database.hashMemo.isComputed, "add #\(index) hashed the whole database")
        }
        let hash = database.hash
        #expect(database.hashMemo.isComputed)
        #expect(database.hash == hash)
        // The same services built at once hash the same (the hash is a function of the layout).
        let atOnce = try AttributeDatabase(services: (0..<2_000).map(Self.service))
        #expect(atOnce.hash == hash)
        // A change forgets it; a copy made before keeps its own.
        let before = database
        try database.add(Self.service(2_000))
        #expect(!database.hashMemo.isComputed)
        #expect(before.hash == hash)
        #expect(database.hash != hash)
        #expect(try database.removeService(at: database.services.last!.range.lowerBound).lowerBound > 0)
        #expect(database.hash == hash)
    }

    @Test("Part G §7.3: the Database Hash characteristic reads the hash of the database as it is now")
    func hashCharacteristicReadsCurrentHash() throws {
        var server = GATTServer(database: try AttributeDatabase())
        let handle = server.database.databaseHashHandle
        let request = ATTPDU.readRequest(.init(handle: handle))
        #expect(
            server.handle(request, connection: client1)
                == .respond(.readResponse(.init(value: server.database.hash[...]))))
        let first = server.database.hash
        _ = try server.add([Self.service(1)])
        #expect(server.database.hash != first)
        #expect(
            server.handle(request, connection: client1)
                == .respond(.readResponse(.init(value: server.database.hash[...]))))
        // Not writable, by Write Request or Command.
        #expect(
            server.handle(.writeRequest(.init(handle: handle, value: [1])), connection: client1)
                == .respond(
                    .errorResponse(.init(requestOpcode: .writeRequest, handle: handle, errorCode: .writeNotPermitted))))
    }

    @Test("An include still names the lowest-handle match, among existing and new services alike (Part G §3.2)")
    func includeResolution() throws {
        var database = try AttributeDatabase()
        let battery = Self.service(7)
        let first = try database.add(battery)
        let including = GATTService(uuid: 0x1809, includedServices: [battery], characteristics: [])
        let added = try database.add([battery, including])
        let include = try #require(database.attribute(at: added[1].range.lowerBound + 1))
        guard case .value(let value) = include.storage else { Issue.record("no include value"); return }
        #expect(Array(value.prefix(2)) == [UInt8(first.range.lowerBound & 0xFF), UInt8(first.range.lowerBound >> 8)])
    }
}

@Suite("Device Name value (Core 5.4 Vol 3 Part C §12.1: at most 248 octets)")
struct DeviceNameValueTests {
    @Test("Any name is cut to 248 octets on a character boundary: valid UTF-8, a prefix by characters, as long as fits")
    func cutOnCharacterBoundary() {
        let alphabets = ["a", "é", "ж", "語", "😀", "e\u{301}", "🇫🇷", "👩‍👩‍👧‍👦", "a語😀"]
        for alphabet in alphabets {
            for count in 1...300 {
                let name = String(repeating: alphabet, count: count)
                let value = GAPServiceConfiguration(deviceName: name).deviceNameValue
                #expect(value.count <= 248)
                let text = String(validating: value, as: UTF8.self)
                #expect(text != nil, "\(alphabet) × \(count): cut inside a character")
                guard let text else { continue }
                #expect(name.hasPrefix(text))
                let kept = text.count
                if kept < name.count {
                    // The next character would not fit.
                    let next = name[name.index(name.startIndex, offsetBy: kept)]
                    #expect(value.count + next.utf8.count > 248, "\(alphabet) × \(count): cut short")
                } else {
                    #expect(Array(name.utf8) == value)
                }
            }
        }
    }
}
