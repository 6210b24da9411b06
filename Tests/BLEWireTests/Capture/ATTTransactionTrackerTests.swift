import BLEWire
import Testing

private let discoverServices = ATTPDU.readByGroupTypeRequest(
    .init(startingHandle: 0x0001, endingHandle: 0xFFFF, attributeGroupType: 0x2800))
private let read = ATTPDU.readRequest(.init(handle: 0x0003))

private func pdu(_ text: String) throws -> ATTPDU { try ATTPDU(decoding: hex(text)) }

@Suite("Pairing ATT responses with their requests in a capture (Core 5.4 Vol 3 Part F §3.3.2, §3.4.1.1)")
struct ATTTransactionTrackerTests {
    @Test("§3.3.2: a response going the other way answers the outstanding request, once")
    func responseAnswersRequest() throws {
        var tracker = ATTTransactionTracker()
        #expect(tracker.take(discoverServices, on: 0x40, direction: .sent) == nil)
        #expect(tracker.outstandingCount == 1)
        let response = try pdu("11 06 0100 0500 0d18 0600 0900 0f18")
        #expect(tracker.take(response, on: 0x40, direction: .received) == discoverServices)
        #expect(tracker.outstandingCount == 0)
        // A second copy answers nothing.
        #expect(tracker.take(response, on: 0x40, direction: .received) == nil)
    }

    @Test("§3.4.1.1: an Error Response answers the request whose opcode it names, and no other")
    func errorResponseNamesItsRequest() throws {
        var tracker = ATTTransactionTracker()
        _ = tracker.take(read, on: 0x40, direction: .sent)
        // Names Write Request (0x12): not an answer to the Read Request.
        #expect(tracker.take(try pdu("01 12 0300 03"), on: 0x40, direction: .received) == nil)
        #expect(tracker.outstandingCount == 1)
        #expect(tracker.take(try pdu("01 0a 0300 02"), on: 0x40, direction: .received) == read)
    }

    @Test("A response of another kind, the same direction, another connection answers nothing")
    func mismatchesAnswerNothing() throws {
        var tracker = ATTTransactionTracker()
        _ = tracker.take(read, on: 0x40, direction: .sent)
        let readResponse = try pdu("0b 64")
        #expect(tracker.take(try pdu("13"), on: 0x40, direction: .received) == nil)  // Write Response
        #expect(tracker.take(readResponse, on: 0x40, direction: .sent) == nil)
        #expect(tracker.take(readResponse, on: 0x41, direction: .received) == nil)
        #expect(tracker.take(readResponse, on: 0x40, direction: .received) == read)
    }

    @Test("§3.3.2: each side of a connection may be a client: one slot per direction")
    func bothDirections() throws {
        var tracker = ATTTransactionTracker()
        _ = tracker.take(read, on: 0x40, direction: .sent)
        _ = tracker.take(discoverServices, on: 0x40, direction: .received)
        #expect(tracker.outstandingCount == 2)
        #expect(tracker.take(try pdu("11 06 0100 0500 0d18"), on: 0x40, direction: .sent) == discoverServices)
        #expect(tracker.take(try pdu("0b 64"), on: 0x40, direction: .received) == read)
    }

    @Test("Commands, notifications and indications leave the slots alone; a disconnection empties them")
    func otherKindsAndDisconnection() throws {
        var tracker = ATTTransactionTracker()
        _ = tracker.take(read, on: 0x40, direction: .sent)
        #expect(tracker.take(try pdu("52 0300 01"), on: 0x40, direction: .sent) == nil)  // Write Command
        #expect(tracker.take(try pdu("1b 0300 01"), on: 0x40, direction: .received) == nil)  // Notification
        #expect(tracker.outstandingCount == 1)
        // A new request replaces one whose answer the capture lost.
        _ = tracker.take(discoverServices, on: 0x40, direction: .sent)
        #expect(tracker.outstandingCount == 1)
        tracker.connectionClosed(0x40)
        #expect(tracker.outstandingCount == 0)
        #expect(tracker.take(try pdu("0b 64"), on: 0x40, direction: .received) == nil)
    }
}

@Suite("ATT responses in the light of their requests (Core 5.4 Vol 3 Part G §3.1–§3.3)")
struct ATTResponseInterpretationTests {
    private func field(_ name: String, _ fields: [(String, RenderedValue)]) -> String? {
        fields.first { $0.0 == name }.map { Rendering.text(of: $0.1) }
    }

    @Test("§3.1: a Read By Group Type Response for «Primary Service» lists the services' UUIDs")
    func services() throws {
        let short = try pdu("11 06 0100 0500 0d18 0600 0900 0f18")
        let fields = short.interpreted(answering: discoverServices)
        #expect(field("request", fields)?.hasPrefix("readByGroupTypeRequest") == true)
        #expect(field("services", fields) == "[{ start: 1, end: 5, uuid: 180D }, { start: 6, end: 9, uuid: 180F }]")
        // A 128-bit service UUID (entries of 20 octets) in its canonical form.
        let long = try pdu("11 14 0a00 0f00 00112233445566778899aabbccddeeff")
        let longServices = try #require(field("services", long.interpreted(answering: discoverServices)))
        #expect(longServices == "[{ start: 10, end: 15, uuid: FFEEDDCC-BBAA-9988-7766-554433221100 }]")
        // Another group type gives no service list.
        let other = ATTPDU.readByGroupTypeRequest(.init(startingHandle: 1, endingHandle: 9, attributeGroupType: 0x2A00))
        #expect(field("services", short.interpreted(answering: other)) == nil)
    }

    @Test("§3.3.1, §3.2: Read By Type Responses for «Characteristic» and «Include» are declarations")
    func characteristicsAndIncludes() throws {
        let characteristics = try pdu("09 07 0200 12 0300 372a")
        let asked = ATTPDU.readByTypeRequest(.init(startingHandle: 1, endingHandle: 0xFFFF, attributeType: 0x2803))
        #expect(
            field("characteristics", characteristics.interpreted(answering: asked))
                == "[{ declaration: 2, properties: 0x12, valueHandle: 3, uuid: 2A37 }]")
        let includes = try pdu("09 08 0200 0600 0900 0f18")
        let askedIncludes = ATTPDU.readByTypeRequest(.init(startingHandle: 1, endingHandle: 5, attributeType: 0x2802))
        #expect(
            field("includes", includes.interpreted(answering: askedIncludes))
                == "[{ declaration: 2, start: 6, end: 9, uuid: 180F }]")
    }

    @Test("§3.4.4: a read's value belongs to the handle (and offset) its request named")
    func reads() throws {
        #expect(field("handle", try pdu("0b 64").interpreted(answering: read)) == "3")
        let blob = ATTPDU.readBlobRequest(.init(handle: 7, valueOffset: 22))
        let fields = try pdu("0d 6465").interpreted(answering: blob)
        #expect(field("handle", fields) == "7")
        #expect(field("offset", fields) == "22")
    }

    @Test("A lone response says when its fields need the request; requests and self-describing PDUs do not")
    func requestDependence() throws {
        #expect(try pdu("11 06 0100 0500 0d18").requestDependence != nil)
        #expect(try pdu("09 07 0200 12 0300 372a").requestDependence != nil)
        #expect(try pdu("0b 64").requestDependence != nil)
        #expect(try pdu("0d 64").requestDependence != nil)
        #expect(try pdu("0f 6465").requestDependence != nil)
        #expect(discoverServices.requestDependence == nil)
        #expect(try pdu("01 0a 0300 02").requestDependence == nil)
        #expect(try pdu("05 01 0300 0229").requestDependence == nil)
    }
}
