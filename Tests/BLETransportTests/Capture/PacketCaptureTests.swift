import BLELocking
import BLEWire
import Foundation
import Synchronization
import Testing

@testable import BLETransport

/// A fresh path in the temporary folder, removed by `remove()`.
struct TemporaryPath {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("swift-ble-\(UUID().uuidString).btsnoop").path

    func bytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func records() throws -> [BTSnoopRecord] {
        var reader = try BTSnoopReader(try bytes())
        var records: [BTSnoopRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

@Suite("Packet capture to btsnoop files")
struct PacketCaptureTests {
    static let reset = H4Packet(type: .command, payload: [0x03, 0x0C, 0x00])
    static let resetComplete = H4Packet(type: .event, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    static let acl = H4Packet(type: .acl, payload: [0x40, 0x00, 0x03, 0x00, 0xAA, 0xBB, 0xCC])

    @Test("Each record is in the file as soon as it is recorded (a killed process leaves a readable file)")
    func recordsReachTheFileAtOnce() throws {
        let file = TemporaryPath()
        defer { file.remove() }
        let capture = try PacketCapture(path: file.path)
        #expect(try file.bytes() == BTSnoopWriter.fileHeader(datalink: .h4))
        try capture.record(Self.reset, direction: .sent, at: BTSnoopTimestamp(unixMicroseconds: 10))
        try capture.record(Self.resetComplete, direction: .received, at: BTSnoopTimestamp(unixMicroseconds: 20))
        // Read back while the capture is still open: nothing waits in a buffer.
        let records = try file.records()
        #expect(records.map(\.direction) == [.sent, .received])
        #expect(try records.map { try $0.packet(datalink: .h4) } == [Self.reset, Self.resetComplete])
        #expect(records.map(\.timestamp.unixMicroseconds) == [10, 20])
        #expect(capture.recordCount == 2)
        #expect(capture.close() == nil)
        #expect(throws: PacketCaptureError.closed(path: file.path)) {
            try capture.record(Self.reset, direction: .sent)
        }
    }

    @Test("A file that cannot be created or written gives a typed error naming the path and the reason")
    func creationErrors() {
        let missing = "/nonexistent-folder/capture.btsnoop"
        #expect {
            _ = try PacketCapture(path: missing)
        } throws: { error in
            guard case .cannotCreate(let path, let reason) = error as? PacketCaptureError else { return false }
            return path == missing && reason.contains("no such file")
        }
        // A device is never written as if it were a file (FileAccess refuses it before a write).
        #expect {
            _ = try PacketCapture(path: "/dev/full")
        } throws: { error in
            guard case .cannotCreate("/dev/full", let reason) = error as? PacketCaptureError else { return false }
            return reason == "is a character device, not a regular file"
        }
    }

    @Test("Records from many threads at once each land whole, none lost")
    func threadSafety() throws {
        let file = TemporaryPath()
        defer { file.remove() }
        let capture = try PacketCapture(path: file.path)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<50 {
                let packet = H4Packet(type: .acl, payload: [0x40, 0x00, 0x02, 0x00, UInt8(thread), UInt8(index)])
                try? capture.record(packet, direction: thread % 2 == 0 ? .sent : .received)
            }
        }
        capture.close()
        let records = try file.records()
        #expect(records.count == 400)
        // Every thread's packets, in that thread's order.
        for thread in 0..<8 {
            let indices = records.filter { $0.data[$0.data.startIndex + 5] == UInt8(thread) }.map { $0.data.last }
            #expect(indices == (0..<50).map { UInt8($0) })
        }
    }

    @Test("CapturingTransport records what the host sends and what the controller sends, in order")
    func capturingTransport() async throws {
        let file = TemporaryPath()
        defer { file.remove() }
        let capture = try PacketCapture(path: file.path)
        let sentToController = Locked<[H4Packet]>([])
        let pipe = PipeTransport { packet in sentToController.withLock { $0.append(packet) } }
        let tick = Atomic<Int64>(0)
        let transport = CapturingTransport(
            wrapping: pipe, capture: capture,
            timestamps: CaptureTimestamps {
                BTSnoopTimestamp(unixMicroseconds: tick.add(100, ordering: .relaxed).newValue)
            })
        var incoming = transport.packets.makeAsyncIterator()
        try await transport.send(Self.reset)
        pipe.deliver(Self.resetComplete)
        #expect(try await incoming.next() == Self.resetComplete)
        try await transport.send(Self.acl)
        pipe.deliver(Self.acl)
        #expect(try await incoming.next() == Self.acl)
        #expect(sentToController.withLock { $0 } == [Self.reset, Self.acl])

        let records = try file.records()
        #expect(
            try records.map { try $0.packet(datalink: .h4) } == [Self.reset, Self.resetComplete, Self.acl, Self.acl])
        #expect(records.map(\.direction) == [.sent, .received, .sent, .received])
        #expect(records.map(\.isCommandOrEvent) == [true, true, false, false])
        #expect(records.map(\.timestamp.unixMicroseconds) == [100, 200, 300, 400])

        // The transport's ending passes through.
        pipe.fail(.malformedStream("garbage"))
        await #expect(throws: HCITransportError.malformedStream("garbage")) { _ = try await incoming.next() }
        await transport.close()
    }
}
