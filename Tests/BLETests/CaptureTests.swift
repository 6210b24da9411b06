import BLEController
import BLEHost
import BLEWire
import Foundation
import Testing

@testable import BLE

@Suite("Capturing a radio's HCI traffic to btsnoop (Radio.captured)")
struct CaptureTests {
    @Test("A captured virtual radio records every packet both ways, stamped with virtual time")
    func capturedVirtualSession() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("swift-ble-\(UUID()).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (createdAt, simulation) = try await TwoDevices.run(capturingCentralTo: path) { devices in
            let (peripheral, _, characteristics) = try await devices.connectAndDiscover()
            let stored = try #require(characteristics[Fixture.storedUUID])
            #expect(try await peripheral.readValue(for: stored) == [1, 2, 3])
            let capture = try #require(devices.centralRadio.capture)
            return (capture.createdAt, devices.simulation)
        }

        let endOfSession = simulation.now.nanoseconds / 1000
        var reader = try BTSnoopReader([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        var packets: [(BTSnoopRecord, HCIPacket)] = []
        while let record = try reader.next() {
            packets.append((record, try HCIPacket(record.packet(datalink: reader.datalink))))
        }
        // The host's initialisation opens the capture: HCI_Reset, sent, then its completion.
        let first = try #require(packets.first)
        #expect(first.0.direction == .sent)
        guard case .command(let reset) = first.1 else { throw TestFailure("first packet is not a command") }
        #expect(reset.opcode == HCI.Reset.opcode)
        #expect(first.0.timestamp.unixMicroseconds == createdAt)
        // Commands only go out, events only come in, ACL both ways.
        for (record, packet) in packets {
            switch packet {
            case .command: #expect(record.direction == .sent && record.isCommandOrEvent)
            case .event: #expect(record.direction == .received && record.isCommandOrEvent)
            case .acl, .sco, .iso: #expect(!record.isCommandOrEvent)
            }
        }
        let aclDirections = Set(packets.compactMap { $0.1.type == .acl ? $0.0.direction : nil })
        #expect(aclDirections == [.sent, .received])
        // The ATT read and its response are there.
        let rendered = packets.map { Rendering.text(of: $0.1.rendered) }
        #expect(rendered.contains { $0.contains("att.readRequest") })
        #expect(rendered.contains { $0.contains("att.readResponse") && $0.contains("010203") })
        // Virtual time: non-decreasing, within the session's span of virtual time.
        let stamps = packets.map(\.0.timestamp.unixMicroseconds)
        #expect(stamps == stamps.sorted())
        #expect(stamps.last.map { $0 - createdAt } ?? -1 <= endOfSession)
        #expect(stamps.last.map { $0 - createdAt } ?? 0 > 0)
    }
}
