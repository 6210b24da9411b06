import BLE
import Testing

@Suite("The strict JSON parser of GATT descriptions (RFC 8259)")
struct JSONParserTests {
    private func parse(_ text: String) throws(JSONParseError) -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    @Test("100,000 nested arrays or objects are a typed error at the depth limit, not a stack overflow")
    func deepNesting() {
        let arrays = String(repeating: "[", count: 100_000)
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        for text in [arrays, arrays + String(repeating: "]", count: 100_000), objects] {
            let error = #expect(throws: JSONParseError.self) { try parse(text) }
            let arrayPath = String(repeating: "[0]", count: 64)
            let objectPath = String(repeating: "a.", count: 63) + "a"
            #expect(error == .tooDeep(path: arrayPath, limit: 64) || error == .tooDeep(path: objectPath, limit: 64))
        }
        #expect(throws: GATTDocumentParseError.self) { try GATTDocument.parse(Array(arrays.utf8)) }
    }

    @Test("Nesting up to the limit is read; one level more is refused with the path where it went too deep")
    func depthLimitBoundary() throws {
        let limit = JSONParser.depthLimit
        let fits = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        _ = try parse(fits)
        let over = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(throws: JSONParseError.tooDeep(path: String(repeating: "[0]", count: limit), limit: limit)) {
            try parse(over)
        }
    }

    @Test("RFC 8259 §4: a key given twice in one object is an error naming the key and the object's path")
    func duplicateKeys() {
        #expect(throws: JSONParseError.duplicateKey("b", path: "a[1]")) {
            try parse(#"{"a": [0, {"b": 1, "c": 2, "b": 3}]}"#)
        }
        // Escapes are decoded before keys are compared.
        #expect(throws: JSONParseError.duplicateKey("name", path: "")) { try parse(#"{"n\u0061me": 1, "name": 2}"#) }
    }

    @Test("A syntax error says its line and column, in characters")
    func syntaxPosition() {
        // "é" is two octets, one character.
        #expect(throws: JSONParseError.syntax("unexpected character", line: 2, column: 7)) {
            try parse("{\"a\": 1,\n \"é\": x}")
        }
        #expect(throws: JSONParseError.syntax("unexpected content after the document", line: 1, column: 4)) {
            try parse("[] 1")
        }
    }

    @Test("RFC 8259 §7, §8.1: escapes and surrogate pairs decode to UTF-8; invalid UTF-8, lone surrogates are refused")
    func strings() throws {
        guard case .string(let text) = try parse(#""caf\u00e9 \ud83d\ude00 \"q\" ☕""#) else {
            Issue.record("not a string")
            return
        }
        #expect(text == "café 😀 \"q\" ☕")
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONParseError.self) { try parse(#""\ud83d""#) }
        #expect(throws: JSONParseError.self) { try parse(#""\ude00""#) }
    }
}

@Suite("GATT descriptions of ble serve (docs/gatt-json.md)")
struct GATTDocumentTests {
    @Test("Core 5.4 Vol 3 Part G §3.2: an included service is published before the service including it")
    func includesAndBehaviours() throws {
        let json = #"""
            {"name": "Thermo-1", "appearance": "0x0300",
             "services": [
               {"id": "battery", "uuid": "180F", "primary": false,
                "characteristics": [{"uuid": "2A19", "properties": ["read", "notify"], "value": {"hex": "64"}}]},
               {"uuid": "1809", "includes": ["battery"],
                "characteristics": [
                  {"uuid": "2A1C", "properties": ["indicate"],
                   "updates": {"interval": 1, "values": [{"hex": "00e40800fe"}]}}]}]}
            """#
        let document = try GATTDocument.parse(Array(json.utf8))
        #expect(document.deviceName == "Thermo-1")
        #expect(document.appearance == 0x0300)
        #expect(document.services.count == 2)
        #expect(document.services[1].definition.includedServices == [document.services[0].definition])
        #expect(document.services[0].behaviours.map(\.initialValue) == [[0x64]])
        #expect(document.services[1].behaviours[0].updates?.values == [[0x00, 0xE4, 0x08, 0x00, 0xFE]])
    }

    @Test("Core 5.4 Vol 3 Part G §3.2: a lattice of includes is refused, not published at a cost doubling per level")
    func includeLattice() {
        // Twins x and y at each level, each including both twins of the level below: equal
        // definitions that are distinct values, compared by value when they are published.
        var services = [#"{"id": "x0", "uuid": "1800"}"#, #"{"id": "y0", "uuid": "1800"}"#]
        for level in 1...20 {
            for (name, first, second) in [("x", "x", "y"), ("y", "y", "x")] {
                services.append(
                    #"{"id": "\#(name)\#(level)", "uuid": "1800", "#
                        + #""includes": ["\#(first)\#(level - 1)", "\#(second)\#(level - 1)"]}"#)
            }
        }
        let json = #"{"services": ["# + services.joined(separator: ", ") + "]}"
        let refusal = #expect(throws: GATTDocumentParseError.self) { try GATTDocument.parse(Array(json.utf8)) }
        // x6 brings in x5 and y5, 63 services each.
        #expect(
            refusal
                == .invalid(
                    GATTDocumentError(
                        path: "services[12].includes[1]",
                        problem: "the includes bring in 126 services, counted at every level; at most 64")))
    }

    @Test("A mistake names its path; a file that is not JSON says so")
    func errors() {
        let include = #"{"services": [{"uuid": "1809", "includes": ["battery"]}]}"#
        let mistake = #expect(throws: GATTDocumentParseError.self) { try GATTDocument.parse(Array(include.utf8)) }
        guard case .invalid(let error)? = mistake else {
            Issue.record("not a document error: \(String(describing: mistake))")
            return
        }
        #expect(error.path == "services[0].includes[0]")
        let syntax = #expect(throws: GATTDocumentParseError.self) { try GATTDocument.parse(Array("{".utf8)) }
        #expect(syntax == .notJSON(.syntax("expected a key in quotes", line: 1, column: 2)))
    }
}
