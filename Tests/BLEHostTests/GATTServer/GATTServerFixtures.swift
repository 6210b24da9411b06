import BLEWire
import Testing

@testable import BLEHost

/// Hex text to octets ("0A 03 00" → [0x0A, 0x03, 0x00]).
func hex(_ text: String) -> [UInt8] {
    Hex.bytes(text) ?? []
}

let client1 = GATTConnectionID(0x0040)
let client2 = GATTConnectionID(0x0041)

// The shared database (`SampleGATTDatabase`, which the gatt-server fuzz target uses too) and
// the names the tests know it by; its handle layout is drawn there.
let customServiceUUID = SampleGATTDatabase.customServiceUUID
let longValueUUID = SampleGATTDatabase.longValueUUID
let signedWriteUUID = SampleGATTDatabase.signedWriteUUID
let secondaryServiceUUID = SampleGATTDatabase.secondaryServiceUUID
let longValue = SampleGATTDatabase.longValue
let batteryService = SampleGATTDatabase.battery
let secondaryService = SampleGATTDatabase.secondary

func testDatabase() throws -> AttributeDatabase { try SampleGATTDatabase.database() }

func testServer(_ configuration: GATTServer.Configuration = .init()) throws -> GATTServer {
    var server = GATTServer(database: try testDatabase(), configuration: configuration)
    server.connect(client1)
    return server
}

extension GATTServer {
    /// Sends raw request octets from `connection` and returns the response octets, nil when the
    /// outcome carries no response.
    mutating func exchange(_ request: String, on connection: GATTConnectionID = client1) -> [UInt8]? {
        handle(bytes: hex(request), connection: connection).response?.encoded
    }
}

extension GATTServerOutcome {
    var readRequest: GATTReadRequest? {
        if case .read(let request) = self { return request }
        return nil
    }

    var writeRequest: GATTWriteRequest? {
        if case .write(let request) = self { return request }
        return nil
    }
}

/// An Error Response's octets.
func errorResponse(_ opcode: UInt8, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
    [0x01, opcode, UInt8(handle & 0xFF), UInt8(handle >> 8), code.rawValue]
}
