import BLEController
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

/// What a GATT server behind a host sends, checked on the wire: every request answered once,
/// nothing longer than the ATT_MTU.
@Suite(
    "ATT server on the wire: every request answered, nothing past the ATT_MTU (Core 5.4 Vol 3 Part F §3.2.8, §3.3, §3.4.1.1)"
)
struct HostATTServerBoundsTests {
    /// The ATT payloads the host sent on 0x0040 (one ACL packet each: the buffer takes them whole).
    static func sentPayloads(_ controller: ScriptedController) -> [[UInt8]] {
        controller.sentACL.filter { $0.handle == 0x0040 }.compactMap { packet in
            guard let frame = try? L2CAPBasicFrame(decoding: packet.data), frame.channelID == .att else { return nil }
            return Array(frame.payload)
        }
    }

    /// A host serving the test database on link 0x0040 at ATT_MTU `mtu` (set by an exchange
    /// of ours as client), with ACL buffers that take any PDU whole.
    static func withServer(
        mtu: Int, _ body: @escaping @Sendable (HostHarness) async throws -> Void
    ) async throws {
        var script = ScriptedController.Script()
        script.aclBufferSize = 600
        script.aclBufferCount = 8
        var configuration = HostConfiguration()
        configuration.preferredATTMTU = 517
        try await HostHarness.run(script: script, configuration: configuration) { harness in
            await harness.host.setATTServer(
                GATTServerHandler(server: try testServer(GATTServer.Configuration(mtu: 517, prepareQueueLimit: 4))))
            harness.controller.connect()
            try await harness.settle()
            if mtu != ATTBearer.defaultMTU {
                let exchange = Task(executorPreference: harness.simulation.executor) {
                    try await harness.host.exchangeMTU(on: 0x0040)
                }
                try await harness.settle()
                harness.controller.injectATT(.exchangeMTUResponse(.init(serverRxMTU: UInt16(mtu))))
                _ = try await exchange.value
            }
            #expect(await harness.host.attMTU(on: 0x0040) == mtu)
            harness.controller.clearACL()
            try await body(harness)
        }
    }

    /// Sends `request` and returns the one PDU the host answered with (nil: none, or several).
    static func exchange(_ request: [UInt8], _ harness: HostHarness) async throws -> [UInt8]? {
        harness.controller.clearACL()
        harness.controller.injectATT(bytes: request)
        try await harness.settle()
        let sent = sentPayloads(harness.controller)
        harness.controller.completePackets(UInt16(sent.count))
        try await harness.settle()
        return sent.count == 1 ? sent[0] : nil
    }

    @Test(
        "§3.3, §3.4.1.1: every undefined opcode without the Command Flag (0x00 included) is a request answered Request Not Supported; with the flag, ignored"
    )
    func everyUndefinedOpcode() async throws {
        try await Self.withServer(mtu: 23) { harness in
            for raw in UInt8.min...UInt8.max where !ATTOpcode(raw).isKnown {
                let opcode = ATTOpcode(raw)
                for parameters in [[], [0x01, 0x00], [UInt8](repeating: 0xAA, count: 21)] {
                    let answer = try await Self.exchange([raw] + parameters, harness)
                    if opcode.isCommand {
                        #expect(answer == nil, "\(opcode) is a command: no answer")
                    } else {
                        #expect(
                            answer
                                == ATTPDU.errorResponse(
                                    .init(requestOpcode: opcode, handle: 0, errorCode: .requestNotSupported)
                                ).encoded, "\(opcode) with \(parameters.count) octets")
                    }
                }
            }
            // An undefined request longer than the ATT_MTU is still Request Not Supported.
            #expect(
                try await Self.exchange([0x00] + [UInt8](repeating: 0, count: 40), harness)
                    == ATTPDU.errorResponse(
                        .init(requestOpcode: ATTOpcode(0x00), handle: 0, errorCode: .requestNotSupported)
                    )
                    .encoded)
        }
    }

    @Test(
        "§3.4.6.1–§3.4.6.2: a Prepare Write part of ATT_MTU − 5 is echoed whole; one octet more is a request past the ATT_MTU: Invalid PDU",
        arguments: [23, 24, 247, 517])
    func preparedWritePartAtTheEdge(mtu: Int) async throws {
        try await Self.withServer(mtu: mtu) { harness in
            func prepare(_ length: Int) -> [UInt8] {
                [0x16, 0x1F, 0x00, 0x00, 0x00] + [UInt8](repeating: 0x5A, count: length)
            }
            let fits = prepare(mtu - 5)
            let echoed = try #require(try await Self.exchange(fits, harness))
            #expect(echoed == [0x17] + fits.dropFirst())
            #expect(echoed.count == mtu)
            for extra in [1, 2, 100] {
                #expect(
                    try await Self.exchange(prepare(mtu - 5 + extra), harness)
                        == ATTPDU.errorResponse(
                            .init(requestOpcode: .prepareWriteRequest, handle: 0, errorCode: .invalidPDU)
                        )
                        .encoded)
            }
            #expect(await harness.host.statistics.oversizedResponses == 0)
        }
    }

    @Test(
        "§3.2.8: for every request type and ATT_MTU edge, seeded random requests each get one answer, never longer than the ATT_MTU",
        arguments: [23, 24, 247, 517])
    func randomRequestsNeverExceedMTU(mtu: Int) async throws {
        try await Self.withServer(mtu: mtu) { harness in
            var generator = SeededRandomGenerator(seed: 0xA77_0000 + UInt64(mtu))
            let requests = ATTOpcode.table.map(\.opcode).filter { $0.kind == .request && $0 != .exchangeMTURequest }
            for opcode in requests {
                for _ in 0..<40 {
                    // Lengths around the edges: short, near the ATT_MTU, past it.
                    let length = [
                        Int.random(in: 0...8, using: &generator),
                        Int.random(in: max(0, mtu - 8)...(mtu + 8), using: &generator),
                    ].randomElement(using: &generator)!
                    var bytes = [opcode.rawValue]
                    for index in 0..<max(0, length - 1) {
                        // Handles mostly within the database (0x0001–0x0026), often the long value.
                        let small = index < 6 && Bool.random(using: &generator)
                        bytes.append(
                            small
                                ? UInt8.random(in: 0...0x26, using: &generator)
                                : UInt8.random(in: 0...255, using: &generator))
                        if index % 2 == 1, small { bytes[bytes.count - 1] = 0 }
                    }
                    let answer = try #require(
                        try await Self.exchange(bytes, harness), "\(opcode): one answer to \(Hex.string(bytes))")
                    #expect(answer.count <= mtu, "\(opcode): \(answer.count) octets at ATT_MTU \(mtu)")
                    let decoded = try ATTPDU(decoding: answer[...])
                    if case .errorResponse(let error) = decoded {
                        #expect(error.requestOpcode == opcode)
                    } else {
                        #expect(decoded.opcode == opcode.pairedResponse)
                    }
                }
            }
            #expect(await harness.host.statistics.oversizedResponses == 0)
        }
    }
}
