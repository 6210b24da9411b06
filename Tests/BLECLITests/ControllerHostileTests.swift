import BLESimulation
import BLEWire
import Foundation
import Testing

/// The hostile neighbour of `ble controller`: a raw HCI client on loopback that sends what no
/// host should (garbage, impossible lengths, every opcode with random parameters, floods that
/// ignore Num_HCI_Command_Packets, data for handles that do not exist, hundreds of connections
/// in a row). After each abuse the process must still run and serve a fresh pair of clients
/// correctly: HCI_Reset completes with success, and one controller hears the other advertise.
/// Every abuse is bounded by counts and seeded, so a run is the same each time.
@Suite("ble controller under a hostile HCI client (Core 5.4 Vol 4 Part A §2, Part E §4.4, §5.4)")
struct ControllerHostileTests {
    /// `ble controller` with two controllers on loopback, their ports and addresses.
    final class Served {
        let process: BackgroundProcess
        let ports: [UInt16]
        let addresses: [String]

        init() throws {
            process = try BackgroundProcess([
                "controller", "--listen", "tcp-server:127.0.0.1:0", "--listen", "tcp-server:127.0.0.1:0",
            ])
            let lines = try process.lines(2)
            // "controller N listening on tcp-server:127.0.0.1:PORT, address XX:XX:XX:XX:XX:XX"
            var ports: [UInt16] = []
            var addresses: [String] = []
            for line in lines.prefix(2) {
                let parts = line.components(separatedBy: ", address ")
                let port = parts.first?.split(separator: ":").last.flatMap { UInt16($0) }
                guard let port, parts.count == 2 else { throw BackgroundProcessError.noOutput(line, "") }
                ports.append(port)
                addresses.append(parts[1].trimmingCharacters(in: .whitespaces))
            }
            self.ports = ports
            self.addresses = addresses
        }

        func client(_ index: Int) throws -> RawHCISocket { try RawHCISocket(port: ports[index]) }

        /// The process runs, and serves a fresh client on each controller: Reset succeeds, and
        /// controller 2 scanning hears controller 1 advertising (Vol 4 Part E §7.3.2, §7.8.9,
        /// §7.8.11, §7.7.65.2).
        func expectServesFreshClients(after abuse: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(process.isRunning, "ble controller died after \(abuse)", sourceLocation: sourceLocation)
            let advertiser = try client(0)
            let scanner = try client(1)
            defer {
                advertiser.close()
                scanner.close()
            }
            #expect(try advertiser.run(HCI.Reset()) == .success, "after \(abuse)", sourceLocation: sourceLocation)
            #expect(try scanner.run(HCI.Reset()) == .success, "after \(abuse)", sourceLocation: sourceLocation)
            #expect(
                try advertiser.run(
                    HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0x20, advertisingIntervalMax: 0x20))
                    == .success, sourceLocation: sourceLocation)
            #expect(
                try advertiser.run(HCI.LESetAdvertisingData(advertisingData: [0x02, 0x01, 0x06])) == .success,
                sourceLocation: sourceLocation)
            #expect(
                try advertiser.run(HCI.LESetAdvertisingEnable(advertisingEnable: true)) == .success,
                sourceLocation: sourceLocation)
            let mask = HCI.EventMask.defaultMask.union([.leMeta])
            #expect(try scanner.run(HCI.SetEventMask(eventMask: mask)) == .success, sourceLocation: sourceLocation)
            #expect(
                try scanner.run(HCI.LESetScanParameters(leScanType: .passive, leScanInterval: 0x10, leScanWindow: 0x10))
                    == .success, sourceLocation: sourceLocation)
            #expect(
                try scanner.run(HCI.LESetScanEnable(leScanEnable: true, filterDuplicates: false)) == .success,
                sourceLocation: sourceLocation)
            // The first report from controller 1 (any other advertiser would be a stale state).
            while true {
                guard case .le(.advertisingReport(let report)) = try scanner.nextEvent() else { continue }
                let heard = report.reports.map { $0.address.address.description }
                #expect(heard.allSatisfy { $0 == addresses[0] }, sourceLocation: sourceLocation)
                if heard.contains(addresses[0]) { break }
            }
        }

        func stop(sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(process.stop() == 0, "stderr: \(process.standardError)", sourceLocation: sourceLocation)
        }
    }

    /// Random octets from a seeded generator, so each run sends the same octets.
    static func bytes(_ count: Int, using random: inout SeededRandomGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    static func command(_ opcode: HCIOpcode, _ parameters: [UInt8]) -> [UInt8] {
        H4Packet(command: HCICommandPacket(opcode: opcode, parameters: parameters[...])).encoded
    }

    /// A command every controller answers at once, sent after an abuse: its completion shows
    /// the stream is still framed and served, and that everything before it was handled.
    static let marker = HCI.ReadBDADDR.opcode

    @Test("200 clients sending seeded garbage: each is served or closed, the process serves fresh clients")
    func garbage() throws {
        let served = try Served()
        defer { served.stop() }
        var random = SeededRandomGenerator(seed: 0x6A7B)
        for _ in 0..<200 {
            let client = try served.client(Int.random(in: 0...1, using: &random))
            try? client.write(Self.bytes(Int.random(in: 1...512, using: &random), using: &random))
            client.close()
        }
        try served.expectServesFreshClients(after: "garbage")
    }

    @Test("H4 packets with lengths too long or too short for what follows, then the client leaves")
    func wrongLengths() throws {
        let served = try Served()
        defer { served.stop() }
        var random = SeededRandomGenerator(seed: 0x1E45)
        let cases: [[UInt8]] = [
            // A command declaring 255 parameter octets and carrying 3.
            [0x01, 0x03, 0x0C, 0xFF, 1, 2, 3],
            // An ACL packet declaring 65535 octets (far past the 251-octet buffers) and carrying 4.
            [0x02, 0x01, 0x00, 0xFF, 0xFF, 1, 2, 3, 4],
            // An ACL packet declaring 1000 octets, all sent, for handle 1.
            [0x02, 0x01, 0x00, 0xE8, 0x03] + Self.bytes(1000, using: &random),
            // A header cut short.
            [0x01, 0x03], [0x02, 0x01, 0x00, 0x05], [0x04, 0x0E],
            // Synchronous and isochronous packets, which have nowhere to go.
            [0x03, 0x01, 0x00, 0x03, 1, 2, 3], [0x05, 0x01, 0x00, 0x04, 0x00, 1, 2, 3, 4],
        ]
        for bytes in cases {
            let client = try served.client(0)
            try? client.write(bytes)
            client.close()
        }
        // Framed commands whose parameters are too short or too long for the opcode: each is
        // answered (an error status, never silence), and the stream goes on.
        let client = try served.client(0)
        for opcode in [HCI.LESetAdvertisingParameters.opcode, HCI.LECreateConnection.opcode, HCI.SetEventMask.opcode] {
            for length in [0, 1, 5, 40, 255] {
                try client.write(Self.command(opcode, Self.bytes(length, using: &random)))
                // Answered, with an error: no length here is the command's own.
                #expect(try client.completion(of: opcode).status != .success, "\(opcode), \(length) octets")
            }
        }
        client.close()
        try served.expectServesFreshClients(after: "wrong lengths")
    }

    @Test(
        "Every opcode of OGF 0x01–0x08 (OCF 0–255), vendor OGF 0x3F and 512 random ones, random parameters: each answered"
    )
    func everyOpcode() throws {
        let served = try Served()
        defer { served.stop() }
        var random = SeededRandomGenerator(seed: 0x0C0D)
        var opcodes: [HCIOpcode] = []
        for ogf: UInt8 in 0x01...0x08 {
            for ocf: UInt16 in 0...0xFF { opcodes.append(HCIOpcode(ogf: ogf, ocf: ocf)) }
        }
        for ocf: UInt16 in 0...0x3F { opcodes.append(HCIOpcode(ogf: 0x3F, ocf: ocf)) }
        for _ in 0..<512 { opcodes.append(HCIOpcode(rawValue: UInt16.random(in: 0...0xFFFF, using: &random))) }
        // Host Number Of Completed Packets is answered only when it fails (Vol 4 Part E §7.3.40).
        let silentOnSuccess: Set<HCIOpcode> = [HCIOpcode(ogf: 0x03, ocf: 0x035)]
        let client = try served.client(0)
        var unanswered: [HCIOpcode] = []
        for opcode in opcodes {
            let parameters = Self.bytes(Int.random(in: 0...32, using: &random), using: &random)
            // The command, then the marker: both answered, in order.
            try client.write(Self.command(opcode, parameters) + Self.command(Self.marker, []))
            let (_, others) = try client.completion(of: Self.marker)
            if opcode == Self.marker {
                // The first completion was the abusive one's: the marker's own comes next.
                _ = try client.completion(of: Self.marker)
                continue
            }
            if !others.contains(opcode) && !silentOnSuccess.contains(opcode) { unanswered.append(opcode) }
        }
        #expect(unanswered.count == 0, "no completion for \(unanswered.prefix(20))")
        client.close()
        try served.expectServesFreshClients(after: "every opcode")
    }

    @Test("Command floods: 20,000 commands in one write all answered; 64 MB offered without reading, then gone")
    func floods() throws {
        let served = try Served()
        defer { served.stop() }
        // A flood ignoring the one command credit, read as it comes.
        let count = 20_000
        let reader = try served.client(0)
        let one = H4Packet(command: HCI.ReadBDADDR().packet).encoded
        var flood: [UInt8] = []
        for _ in 0..<count { flood += one }
        let writer = reader.writer
        let block = flood
        Thread { try? writer.write(block) }.start()
        var answered = 0
        while answered < count {
            guard case .commandComplete(let complete) = try reader.nextEvent() else { continue }
            #expect(complete.opcode == Self.marker)
            answered += 1
        }
        reader.close()
        try served.expectServesFreshClients(after: "a read flood")

        // A flood that never reads: the controller stops taking it once its answers pile up, so
        // the client's writes stall and it gives up (after 1 s without progress) and leaves.
        let silent = try served.client(1)
        silent.setSendTimeout(seconds: 1)
        let megabyte = [UInt8](repeating: 0, count: 1 << 20).enumerated().map { one[$0.offset % one.count] }
        var taken = 0
        for _ in 0..<64 {
            let written = try silent.writer.writeUntilStalled(megabyte)
            taken += written
            if written < megabyte.count { break }
        }
        // Only what the sockets' buffers and the bounded queue hold was taken, not the 64 MB.
        #expect(taken < 32 << 20)
        silent.close()
        try served.expectServesFreshClients(after: "an unread flood")
        if let peak = served.process.peakResidentBytes {
            // Without back-pressure a 50 MB flood grew the process past a gigabyte.
            #expect(peak < 512 << 20, "peak resident set \(peak >> 20) MiB")
        }
    }

    @Test("ACL data for handles that do not exist, of every length class: dropped, the stream goes on")
    func aclForUnknownHandles() throws {
        let served = try Served()
        defer { served.stop() }
        var random = SeededRandomGenerator(seed: 0xAC1)
        let client = try served.client(0)
        #expect(try client.run(HCI.Reset()) == .success)
        for _ in 0..<500 {
            let handle = UInt16.random(in: 0...0x0FFF, using: &random)
            let flags = UInt16.random(in: 0...3, using: &random) << 12
            let length = [0, 1, 27, 251, 252, 1021].randomElement(using: &random)!
            let header = handle | flags
            var packet: [UInt8] = [
                0x02, UInt8(header & 0xFF), UInt8(header >> 8), UInt8(length & 0xFF), UInt8(length >> 8),
            ]
            packet += Self.bytes(length, using: &random)
            try client.write(packet)
        }
        // The marker's completion comes, and no Data Buffer Overflow before it: nothing was
        // buffered for a connection that does not exist.
        try client.send(HCI.ReadBDADDR())
        var overflows = 0
        while true {
            let event = try client.nextEvent()
            if case .dataBufferOverflow = event { overflows += 1 }
            if case .commandComplete(let complete) = event, complete.opcode == Self.marker { break }
        }
        #expect(overflows == 0)
        client.close()
        try served.expectServesFreshClients(after: "ACL for unknown handles")
    }

    @Test("Client churn: 300 connections in a row, some leaving mid-packet or with answers unread")
    func churn() throws {
        let served = try Served()
        defer { served.stop() }
        var random = SeededRandomGenerator(seed: 0xC4)
        let reset = H4Packet(command: HCI.Reset().packet).encoded
        for round in 0..<300 {
            let client = try served.client(round % 2)
            switch round % 4 {
            case 0: break
            case 1: try? client.write(Array(reset.prefix(Int.random(in: 1..<reset.count, using: &random))))
            case 2: try? client.write(reset + reset + reset)
            default:
                // A full exchange: this client is served whatever came before it.
                #expect(try client.run(HCI.Reset()) == .success, "round \(round)")
            }
            client.close()
        }
        try served.expectServesFreshClients(after: "churn")
    }
}
