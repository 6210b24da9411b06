import BLESimulation
import BLEWire
import Foundation
import Testing

/// The repository's docs/examples folder.
private var examples: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/examples")
}

/// A hostile neighbour: `ble serve` (over `ble controller`) against a raw ATT client on a second
/// controller connection that sends every opcode with random parameters, pipelines, abuses
/// prepared writes and the MTU exchange. After each abuse the process must still serve a fresh
/// client correctly (`ble read` of a characteristic nobody writes).
@Suite("Hostile neighbour: ble serve under a raw ATT client's abuse (Core 5.4 Vol 3 Part F)")
struct ServeUnderATTAbuseTests {
    /// The Device Name's value handle (GAP first: 0x0001 service, 0x0002 declaration).
    static let deviceName: UInt16 = 0x0003

    /// "controller 1 listening on tcp-server:127.0.0.1:PORT, address ADDRESS".
    private static func listener(_ line: String) throws -> (port: String, address: String) {
        let parts = line.components(separatedBy: ", address ")
        let port = try #require(parts.first?.components(separatedBy: ":").last)
        let address = try #require(parts.last)
        return (port, address)
    }

    /// Everything the server sent fits the ATT_MTU; each request got its answer (the paired
    /// response, or an Error Response naming it) unless the link was closed.
    static func check(_ received: RawATTClient.Received, after sent: [[UInt8]], mtu: Int, _ what: String) {
        for pdu in received.pdus {
            #expect(pdu.count <= mtu, "\(what): \(pdu.count) octets past ATT_MTU \(mtu)")
        }
        guard !received.disconnected else { return }
        let requests = sent.compactMap { ATTPDU.peek($0) }.filter { $0.kind == .request }.map(\.opcode)
        let answers = received.pdus.compactMap { pdu -> ATTOpcode? in
            guard let (opcode, kind) = ATTPDU.peek(pdu), kind == .response else { return nil }
            if opcode == .errorResponse, pdu.count >= 2 { return ATTOpcode(pdu[1]) }
            return opcode.pairedRequest
        }
        #expect(answers == requests + [.readRequest], "\(what): answers \(answers) to \(requests)")
    }

    /// `ble controller` (three listeners), `ble serve` of the example on the first, a raw client
    /// on the second; runs `abuse`, then checks that a fresh client on the third is served
    /// (`ble read` of the Temperature Type, 0x02, which no abuse writes), and that both processes
    /// stop cleanly. Each abuse gets processes of its own.
    static func underAbuse(
        _ what: String, _ abuse: (inout RawATTClient, BluetoothAddress) async throws -> Void
    ) async throws {
        let controller = try BackgroundProcess([
            "controller", "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
            "--listen", "tcp-server:127.0.0.1:0",
        ])
        defer { controller.stop() }
        let listeners = try controller.lines(3).map(Self.listener)
        let server = try BackgroundProcess([
            "serve", "--gatt", examples.appendingPathComponent("thermometer.json").path,
            "--transport", "tcp-client:127.0.0.1:\(listeners[0].port)",
        ])
        defer { server.stop() }
        _ = try server.lines(1)
        let text = String(listeners[0].address.prefix(17))
        let address = try #require(BluetoothAddress(text))
        var client = try await RawATTClient.open(port: listeners[1].port)
        try await abuse(&client, address)
        await client.close()
        let read = try CLI.run("read", text, "2A1D", "--transport", "tcp-client:127.0.0.1:\(listeners[2].port)")
        #expect(read.status == 0, "after \(what): \(read.standardError)")
        #expect(read.standardOutput == "02\n", "after \(what)")
        #expect(server.stop() == 0, "\(server.standardError)")
        #expect(controller.stop() == 0)
    }

    static func prepare(_ handle: UInt16, _ offset: UInt16, _ length: Int) -> [UInt8] {
        [0x16, UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(offset & 0xFF), UInt8(offset >> 8)]
            + [UInt8](repeating: 0x41, count: length)
    }

    @Test(
        "Every opcode 0x00–0xFF with seeded random parameters: requests answered once, nothing past the ATT_MTU, only unsolicited responses close the link",
        .timeLimit(.minutes(3)))
    func everyOpcode() async throws {
        try await Self.underAbuse("every opcode") { client, address in
            var generator = SeededRandomGenerator(seed: 0x4057_11E0)
            // Each opcode with two seeded random parameter sets, one at a time.
            try await client.connect(to: address)
            var mtu = 23
            var exchanged = false
            var closings = 0
            for raw in UInt8.min...UInt8.max {
                for _ in 0..<2 {
                    if !client.isConnected {
                        closings += 1
                        try await client.connect(to: address)
                        (mtu, exchanged) = (23, false)
                    }
                    let length = Int.random(in: 0...(mtu + 8), using: &generator)
                    let pdu = [raw] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    let received = try await client.exchange([pdu], probe: Self.deviceName)
                    Self.check(received, after: [pdu], mtu: mtu, "opcode \(Hex.prefixed(raw, width: 2))")
                    let opcode = ATTOpcode(raw)
                    if received.disconnected {
                        // Only a response or confirmation nobody asked for breaks the protocol.
                        #expect(
                            opcode.kind == .response || opcode.kind == .confirmation,
                            "the link closed after \(opcode) (\(Hex.string(pdu)))")
                    }
                    if opcode == .exchangeMTURequest, !exchanged, pdu.count == 3,
                        received.pdus.first?.first == ATTOpcode.exchangeMTUResponse.rawValue
                    {
                        // §3.4.2.2: the first exchange sets it, for good (the server offers 247).
                        mtu = max(23, min(Int(pdu[1]) | Int(pdu[2]) << 8, 247))
                        exchanged = true
                    }
                }
            }
            #expect(closings > 0, "unsolicited responses close the link (DESIGN: protocol violations)")
            try await client.disconnect()
        }
    }

    @Test(
        "Pipelined requests (Vol 3 Part F §3.3.2): answered in order or the link closed, never a wrong answer",
        .timeLimit(.minutes(3)))
    func pipelining() async throws {
        try await Self.underAbuse("pipelining") { client, address in
            // In batches on one link: either all answered in order, or the link closed (the
            // policy) and a new one is made.
            try await client.connect(to: address)
            for round in 0..<10 {
                if !client.isConnected { try await client.connect(to: address) }
                let count = 2 + round % 4
                let pdus = (0..<count).map { _ in [ATTOpcode.readRequest.rawValue, 0x03, 0x00] }
                let received = try await client.exchange(pdus, probe: Self.deviceName, pipelined: true)
                Self.check(received, after: pdus, mtu: 23, "pipelined \(count)")
            }
            try await client.disconnect()
        }
    }

    @Test(
        "Prepared-write abuse (Vol 3 Part F §3.4.6): queue overflow, offsets past the end, execute with nothing queued, cancel, reserved flags",
        .timeLimit(.minutes(3)))
    func preparedWrites() async throws {
        try await Self.underAbuse("prepared-write abuse") { client, address in
            // Each request answered once, the link kept.
            try await client.connect(to: address)
            let writable = try #require(try await Self.firstWritableValue(&client))
            func prepare(_ offset: UInt16, _ length: Int) -> [UInt8] { Self.prepare(writable, offset, length) }
            var queueFull = 0
            for index in 0..<80 {
                let pdu = prepare(UInt16(index * 10), 10)
                let received = try await client.exchange([pdu], probe: Self.deviceName)
                Self.check(received, after: [pdu], mtu: 23, "prepare #\(index)")
                if received.pdus.first == [0x01, 0x16, UInt8(writable & 0xFF), UInt8(writable >> 8), 0x09] {
                    queueFull += 1
                }
            }
            #expect(queueFull > 0, "Prepare Queue Full (0x09) once the queue is full")
            let abuses: [[UInt8]] = [
                [0x18, 0x01],  // execute the overlong queue
                [0x18, 0x01],  // execute with nothing queued
                prepare(600, 4), [0x18, 0x01],  // an offset past the end
                prepare(0, 4), [0x18, 0x00],  // cancel
                prepare(0, 4), [0x18, 0x02],  // a reserved flag value
                [0x18, 0x00],  // cancel with nothing queued
                prepare(0, 18), prepare(0, 19),  // a part of ATT_MTU − 5, then one octet more
            ]
            for pdu in abuses {
                let received = try await client.exchange([pdu], probe: Self.deviceName)
                Self.check(received, after: [pdu], mtu: 23, "\(Hex.string(pdu))")
                #expect(!received.disconnected)
            }
            try await client.disconnect()
        }
    }

    @Test(
        "MTU edges (Vol 3 Part F §3.4.2): below 23, exchanged twice, above 517; answers fit the ATT_MTU in force",
        .timeLimit(.minutes(3)))
    func mtuEdges() async throws {
        try await Self.underAbuse("MTU abuse") { client, address in
            // Below 23, then again (ignored: the first exchange stands), then a new link above 517.
            try await client.connect(to: address)
            let writable = try #require(try await Self.firstWritableValue(&client))
            func prepare(_ offset: UInt16, _ length: Int) -> [UInt8] { Self.prepare(writable, offset, length) }
            for asked: UInt16 in [22, 0xFFFF, 0] {
                let pdu = [0x02, UInt8(asked & 0xFF), UInt8(asked >> 8)]
                let received = try await client.exchange([pdu], probe: Self.deviceName)
                Self.check(received, after: [pdu], mtu: 23, "Exchange MTU \(asked)")
            }
            // Still 23: a part of 19 octets (a 24-octet request) is past it.
            let over = try await client.exchange([prepare(0, 19)], probe: Self.deviceName)
            #expect(over.pdus.first == [0x01, 0x16, 0x00, 0x00, 0x04], "Invalid PDU past the first ATT_MTU")
            try await client.disconnect()
            try await client.connect(to: address)
            let large = try await client.exchange([[0x02, 0xFF, 0xFF]], probe: Self.deviceName)
            let offered = try #require(large.pdus.first.flatMap { $0.count == 3 && $0[0] == 0x03 ? $0 : nil })
            let largeMTU = max(23, Int(offered[1]) | Int(offered[2]) << 8)
            #expect(largeMTU > 23, "the server offers more than the default")
            for pdu in [prepare(0, largeMTU - 5), prepare(0, largeMTU - 4), prepare(0, 600)] {
                let received = try await client.exchange([pdu], probe: Self.deviceName)
                Self.check(received, after: [pdu], mtu: largeMTU, "prepare of \(pdu.count - 5) at ATT_MTU \(largeMTU)")
                let echoed = pdu.count <= largeMTU
                #expect(received.pdus.first == (echoed ? [0x17] + pdu.dropFirst() : [0x01, 0x16, 0x00, 0x00, 0x04]))
            }
            try await client.disconnect()
        }
    }

    /// The value handle of the first characteristic that takes Write Requests (Read By Type of
    /// «Characteristic», Core 5.4 Vol 3 Part G §4.6.1).
    static func firstWritableValue(_ client: inout RawATTClient) async throws -> UInt16? {
        var start: UInt16 = 1
        while true {
            let request: [UInt8] = [0x08, UInt8(start & 0xFF), UInt8(start >> 8), 0xFF, 0xFF, 0x03, 0x28]
            let received = try await client.exchange([request], probe: deviceName)
            guard let response = received.pdus.first, response.first == 0x09, response.count > 2 else { return nil }
            let length = Int(response[1])
            var index = 2
            while length >= 7, index + length <= response.count {
                let declaration = UInt16(response[index]) | UInt16(response[index + 1]) << 8
                let properties = response[index + 2]
                let value = UInt16(response[index + 3]) | UInt16(response[index + 4]) << 8
                // An application's value (not GATT's own Client Supported Features, 0x2B29).
                let uuid16 = length == 7 ? UInt16(response[index + 5]) | UInt16(response[index + 6]) << 8 : 0
                if properties & 0x08 != 0, uuid16 != 0x2B29 { return value }
                start = declaration &+ 1
                index += length
            }
            guard length >= 7 else { return nil }
        }
    }
}
