import BLEWire
import Testing

@testable import BLEHost

/// A service with dynamic and stored values of chosen lengths, at 0x000E.
/// 0x0010 dynamic, 0x0012 stored 17 octets, 0x0014 stored empty, 0x0016 dynamic, 0x0018 stored [5].
func readTestServer() throws -> GATTServer {
    let service = GATTService(
        uuid: 0xAAAA,
        characteristics: [
            GATTCharacteristic(uuid: 0xBB01, properties: .read, permissions: .readable, value: .dynamic),
            GATTCharacteristic(
                uuid: 0xBB02, properties: .read, permissions: .readable,
                value: .stored(Array(repeating: 0x11, count: 17))),
            GATTCharacteristic(uuid: 0xBB03, properties: .read, permissions: .readable, value: .stored([])),
            GATTCharacteristic(uuid: 0xBB04, properties: .read, permissions: .readable, value: .dynamic),
            GATTCharacteristic(uuid: 0xBB05, properties: .read, permissions: .readable, value: .stored([5])),
        ])
    var server = GATTServer(database: try AttributeDatabase(services: [service]))
    server.connect(client1)
    return server
}

@Suite("Reads (Core 5.4 Vol 3 Part F §3.4.4.3–§3.4.4.12; Part G §4.8)")
struct ReadProcedureTests {
    @Test("Part G §4.8.1 Read Characteristic Value: Read Request returns the value")
    func read() throws {
        var server = try testServer()
        #expect(server.exchange("0A 1300") == hex("0B 01"))
        #expect(server.exchange("0A 0100") == hex("0B 0018"))
        #expect(server.exchange("0A 1800") == hex("0B 64"))
    }

    @Test("Part F §3.4.4.3: Invalid Handle for 0x0000 and handles with no attribute; Read Not Permitted")
    func readErrors() throws {
        var server = try testServer()
        #expect(server.exchange("0A 0000") == errorResponse(0x0A, 0x0000, .invalidHandle))
        #expect(server.exchange("0A 2700") == errorResponse(0x0A, 0x0027, .invalidHandle))
        #expect(server.exchange("0A FFFF") == errorResponse(0x0A, 0xFFFF, .invalidHandle))
        // Heart Rate Measurement (notify only) and Service Changed (Part G §7.1) are not readable.
        #expect(server.exchange("0A 1000") == errorResponse(0x0A, 0x0010, .readNotPermitted))
        #expect(server.exchange("0A 0800") == errorResponse(0x0A, 0x0008, .readNotPermitted))
        #expect(server.exchange("0A 1500") == errorResponse(0x0A, 0x0015, .readNotPermitted))
    }

    @Test("Part G §4.8.3 Read Long Characteristic Values: Read, then Read Blob until a short part")
    func readLong() throws {
        var server = try testServer()
        #expect(server.exchange("0A 1F00") == [0x0B] + longValue[0..<22])
        #expect(server.exchange("0C 1F00 1600") == [0x0D] + longValue[22..<44])
        #expect(server.exchange("0C 1F00 4200") == [0x0D] + longValue[66..<88])
        #expect(server.exchange("0C 1F00 5800") == [0x0D] + longValue[88..<100])
        // §3.4.4.5: an offset equal to the length reads nothing; past it is an Invalid Offset.
        #expect(server.exchange("0C 1F00 6400") == hex("0D"))
        #expect(server.exchange("0C 1F00 6500") == errorResponse(0x0C, 0x001F, .invalidOffset))
    }

    @Test("Part F §3.4.4.5: Attribute Not Long for blob reads of fixed-length values; variable ones read to the end")
    func attributeNotLong() throws {
        var server = try testServer()
        // Characteristic declaration, CCCD, Presentation Format, Extended Properties, Database Hash.
        for handle in ["0200", "1100", "1A00", "2000", "0D00", "0100", "1C00"] {
            #expect(server.exchange("0C \(handle) 0000")?.last == ATTErrorCode.attributeNotLong.rawValue)
        }
        // Past the end, Invalid Offset prevails.
        #expect(server.exchange("0C 0200 0600") == errorResponse(0x0C, 0x0002, .invalidOffset))
        // An application value shorter than ATT_MTU − 1 is read by blob like any other.
        #expect(server.exchange("0C 1300 0000") == hex("0D 01"))
        #expect(server.exchange("0C 1300 0100") == hex("0D"))
        #expect(server.exchange("0C 1300 0200") == errorResponse(0x0C, 0x0013, .invalidOffset))
        #expect(server.exchange("0C 2700 0000") == errorResponse(0x0C, 0x0027, .invalidHandle))
        #expect(server.exchange("0C 1000 0000") == errorResponse(0x0C, 0x0010, .readNotPermitted))
    }

    @Test("A dynamic value is asked of the application, with the blob offset, and cut to ATT_MTU − 1")
    func dynamicRead() throws {
        var server = try readTestServer()
        let request = try #require(server.handle(bytes: hex("0A 1000"), connection: client1).readRequest)
        #expect(request.offset == 0 && request.attribute.characteristicUUID == 0xBB01)
        #expect(request.attribute.descriptorUUID == nil && request.attribute.serviceHandle == 0x000E)
        let answer = [UInt8](repeating: 0xAB, count: 40)
        #expect(server.complete(request, with: .value(answer)).response?.encoded == [0x0B] + answer.prefix(22))
        let blob = try #require(server.handle(bytes: hex("0C 1000 1600"), connection: client1).readRequest)
        #expect(blob.offset == 22)
        #expect(server.complete(blob, with: .value(Array(answer[22...]))).response?.encoded == [0x0D] + answer[22...])
        let failing = try #require(server.handle(bytes: hex("0C 1000 3000"), connection: client1).readRequest)
        #expect(
            server.complete(failing, with: .error(.invalidOffset)).response?.encoded
                == errorResponse(0x0C, 0x0010, .invalidOffset))
    }

    @Test("A new request replaces one the application has not answered; its late answer is ignored")
    func supersededRead() throws {
        var server = try readTestServer()
        let first = try #require(server.handle(bytes: hex("0A 1000"), connection: client1).readRequest)
        #expect(server.exchange("0A 1800") == hex("0B 05"))
        #expect(server.complete(first, with: .value([1])) == .none)
        // And an answer after disconnection.
        let second = try #require(server.handle(bytes: hex("0A 1000"), connection: client1).readRequest)
        server.disconnect(client1)
        #expect(server.complete(second, with: .value([1])) == .none)
    }

    @Test("Part G §4.8.4 Read Multiple: values concatenated in request order, cut to ATT_MTU − 1")
    func readMultiple() throws {
        var server = try testServer()
        #expect(server.exchange("0E 1300 1800") == hex("0F 01 64"))
        #expect(server.exchange("0E 1800 1300 1800") == hex("0F 64 01 64"))
        #expect(server.exchange("0E 1300 1F00") == [0x0F, 0x01] + longValue[0..<21])
    }

    @Test("Part F §3.4.4.7: the first handle at fault is the error (Invalid Handle, Read Not Permitted)")
    func readMultipleErrors() throws {
        var server = try testServer()
        #expect(server.exchange("0E 1300 9999 1000") == errorResponse(0x0E, 0x9999, .invalidHandle))
        #expect(server.exchange("0E 1300 1000 9999") == errorResponse(0x0E, 0x0010, .readNotPermitted))
        #expect(server.exchange("20 1300 0000") == errorResponse(0x20, 0x0000, .invalidHandle))
        #expect(server.exchange("20 0800 1300") == errorResponse(0x20, 0x0008, .readNotPermitted))
    }

    @Test("Part G §4.8.5 Read Multiple Variable Length: length-value tuples")
    func readMultipleVariable() throws {
        var server = try testServer()
        #expect(server.exchange("20 1300 1800 0300") == hex("21 0100 01 0100 64 0E00") + Array("swift-ble test".utf8))
        // Cut after ATT_MTU − 1 octets inside a value: 3 + 2 + 17.
        #expect(server.exchange("20 1300 1F00") == hex("21 0100 01 6400") + longValue[0..<17])
    }

    @Test("Part F §3.4.4.12: a tuple whose Value Length would be split is left out entirely")
    func readMultipleVariableCutsAtTuple() throws {
        var server = try readTestServer()
        // 2 + 17 octets, then 2 + 0, leaves one octet: the third tuple does not start.
        #expect(
            server.exchange("20 1200 1400 1800")
                == hex("21 1100") + Array(repeating: 0x11, count: 17) + hex("0000"))
    }

    @Test("Read Multiple asks the application for each dynamic value in turn")
    func readMultipleDynamic() throws {
        var server = try readTestServer()
        let first = try #require(server.handle(bytes: hex("20 1000 1800 1600"), connection: client1).readRequest)
        #expect(first.attribute.handle == 0x0010)
        let second = try #require(server.complete(first, with: .value([0xA1, 0xA2])).readRequest)
        #expect(second.attribute.handle == 0x0016)
        #expect(
            server.complete(second, with: .value([0xB1])).response?.encoded
                == hex("21 0200 A1A2 0100 05 0100 B1"))
        let plain = try #require(server.handle(bytes: hex("0E 1800 1000"), connection: client1).readRequest)
        #expect(server.complete(plain, with: .value([0xC1])).response?.encoded == hex("0F 05 C1"))
        let failing = try #require(server.handle(bytes: hex("0E 1800 1000"), connection: client1).readRequest)
        #expect(
            server.complete(failing, with: .error(ATTErrorCode(0x80))).response?.encoded
                == errorResponse(0x0E, 0x0010, ATTErrorCode(0x80)))
    }
}
