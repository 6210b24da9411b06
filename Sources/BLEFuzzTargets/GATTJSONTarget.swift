import BLE
import BLEHost

/// The GATT description `ble serve --gatt FILE.json` reads (`GATTDocument`): strict JSON
/// (`JSONParser`), then the schema of docs/gatt-json.md, then publishing.
///
/// Promises checked: any octets give a document or a typed error; a syntax error's line and
/// column lie within the input, and "nested too deep" needs that many brackets. A document that
/// parses keeps the bounds it checks (a Device Name of at most 248 octets, Core 5.4 Vol 3 Part C
/// §12.1; values of at most 512 octets, Vol 3 Part F §3.2.9; one behaviour per characteristic;
/// at most 64 services brought in through includes, which the database compares by value)
/// and publishes service by service after GAP and GATT, as `PeripheralManager.add(_:)` does:
/// since the document already refused generated descriptors, long values and includes not listed
/// before, the only failure left is a full database. Its advertising data builds or fails with
/// a typed error.
enum GATTJSONTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        let document: GATTDocument
        do {
            document = try GATTDocument.parse(bytes)
        } catch {
            try check(error, of: bytes)
            return
        }
        try require(
            document.deviceName.utf8.count <= GAPServiceConfiguration.maximumDeviceNameLength,
            "a Device Name of \(document.deviceName.utf8.count) octets was accepted")
        var database: AttributeDatabase
        do {
            database = try AttributeDatabase(gap: document.gap)
        } catch {
            throw FuzzFailure("the GAP service does not build: \(error)")
        }
        for (index, entry) in document.services.enumerated() {
            let characteristics = entry.definition.characteristics.count
            try require(
                entry.reach <= 1 + GATTDocument.maximumIncludedServices,
                "services[\(index)] brings in \(entry.reach - 1) services through its includes")
            try require(
                entry.behaviours.count == characteristics,
                "services[\(index)]: \(entry.behaviours.count) behaviours for \(characteristics) characteristics")
            for behaviour in entry.behaviours {
                let values = [behaviour.initialValue] + (behaviour.updates?.values ?? [])
                try require(
                    values.allSatisfy { $0.count <= GATTDocument.maximumValueLength },
                    "services[\(index)]: a value over \(GATTDocument.maximumValueLength) octets was accepted")
            }
            let handles: GATTServiceHandles
            do {
                handles = try database.add(entry.definition)
            } catch .databaseFull {
                return
            } catch {
                throw FuzzFailure("services[\(index)] was accepted but does not publish: \(error)")
            }
            try require(
                handles.characteristics.count == characteristics,
                "services[\(index)]: \(handles.characteristics.count) characteristics published of \(characteristics)")
        }
        try require(
            database.services.count == 2 + document.services.count,
            "\(database.services.count) services published for 2 + \(document.services.count)")
        _ = try? document.advertisement.legacyAdvertisingPayloads()
    }

    /// A refusal says where: a syntax error inside the input, nesting only past the limit.
    private static func check(_ error: GATTDocumentParseError, of bytes: [UInt8]) throws(FuzzFailure) {
        switch error {
        case .notJSON(.syntax(let problem, let line, let column)):
            let lines = bytes.count(where: { $0 == 0x0A }) + 1
            try require(
                (1...lines).contains(line) && (1...bytes.count + 1).contains(column),
                "\"\(problem)\" at line \(line), column \(column): outside \(lines) lines of \(bytes.count) octets")
        case .notJSON(.tooDeep(_, let limit)):
            let brackets = bytes.count(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") })
            try require(brackets >= limit, "nested deeper than \(limit) with \(brackets) brackets")
        case .notJSON(.duplicateKey), .invalid:
            break
        }
    }
}
