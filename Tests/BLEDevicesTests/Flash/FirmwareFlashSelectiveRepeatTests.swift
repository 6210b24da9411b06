import BLE
import BLECompanion
import BLEDevices
import BLESimulation
import Testing

@Suite("Firmware flash: selective repeat with a bounded reorder buffer")
struct FirmwareFlashSelectiveRepeatTests {
    let oldImage: FirmwareImage
    let newImage: FirmwareImage
    let packets: OTAPacketizer

    init() throws {
        oldImage = try .random(size: 700, version: "1.0.0", seed: 1)
        newImage = try .random(size: 1950, version: "1.1.0", seed: 2)
        packets = try OTAPacketizer(image: newImage, packetSize: 100)
    }

    func makeFlash(capacity: Int = 4) throws -> (FirmwareFlash, MemoryFlashStorage) {
        let storage = MemoryFlashStorage()
        let flash = try FirmwareFlash(
            storage: storage, factoryImage: oldImage,
            configuration: .init(reorderBufferCapacity: capacity))
        return (flash, storage)
    }

    /// The staging slot holds exactly the first `count` packets, in order.
    func expectStaged(_ flash: FirmwareFlash, packets count: Int) throws {
        let bytes = count * packets.packetSize
        #expect(flash.status() == .receiving(nextPacket: count, receivedBytes: bytes))
        #expect(try flash.crc32OfStagedPackets(count) == packets.crc32OfPackets(count))
    }

    @Test("Packets after a gap are held, the missing one is named alone, and the filled gap writes them in order")
    func gapFilled() async throws {
        let (flash, _) = try makeFlash()
        _ = try flash.start(packets.parameters)
        #expect(try await flash.receive(packets.packet(0)) == .stored)
        #expect(try await flash.receive(packets.packet(2)) == .buffered(missing: [1]))
        #expect(try await flash.receive(packets.packet(3)) == .buffered(missing: []))
        #expect(try await flash.receive(packets.packet(3)) == .duplicate)
        try expectStaged(flash, packets: 1)
        #expect(try await flash.receive(packets.packet(1)) == .stored)
        try expectStaged(flash, packets: 4)
        #expect(try await flash.receive(packets.packet(2)) == .duplicate)
        let statistics = flash.statistics
        #expect(statistics.packetsBuffered == 2)
        #expect(statistics.reorderBufferPeak == 2)
        #expect(statistics.packetsStored == 4)
        #expect(statistics.resendReports == 1)
    }

    @Test("A corrupted packet is kept nowhere and named for resend, with any gap before it")
    func corrupted() async throws {
        let (flash, _) = try makeFlash()
        _ = try flash.start(packets.parameters)
        _ = try await flash.receive(packets.packet(0))
        var bad = packets.packet(3)
        bad.payload[5] ^= 0x01
        #expect(try await flash.receive(bad) == .rejected(missing: [1, 2, 3]))
        var badExpected = packets.packet(1)
        badExpected.crc32 ^= 1
        #expect(try await flash.receive(badExpected) == .rejected(missing: [1]))
        let short = OTAPacket(number: 2, payload: Array(newImage.bytes[200..<299]))
        #expect(try await flash.receive(short) == .rejected(missing: [2]))
        try expectStaged(flash, packets: 1)
        #expect(OTAPacketOutcome.rejected(missing: [2]).reports == [.resend(packet: 2)])
        for number in [3, 2, 1] { _ = try await flash.receive(packets.packet(number)) }
        try expectStaged(flash, packets: 4)
    }

    @Test("A packet beyond the reorder buffer overflows it: go-back-N from the first missing packet, once per gap")
    func overflow() async throws {
        let (flash, _) = try makeFlash(capacity: 4)
        _ = try flash.start(packets.parameters)
        _ = try await flash.receive(packets.packet(0))
        for number in 2...5 { _ = try await flash.receive(packets.packet(number)) }
        #expect(try await flash.receive(packets.packet(6)) == .resendFrom(packet: 1, report: true))
        #expect(try await flash.receive(packets.packet(7)) == .resendFrom(packet: 1, report: false))
        #expect(OTAPacketOutcome.resendFrom(packet: 1, report: true).reports == [.resendFrom(packet: 1)])
        try expectStaged(flash, packets: 1)
        // The sender's new pass from packet 1: held packets are duplicates, the rest are stored.
        #expect(try await flash.receive(packets.packet(1)) == .stored)
        try expectStaged(flash, packets: 6)
        for number in 2...5 { #expect(try await flash.receive(packets.packet(number)) == .duplicate) }
        for number in 6..<packets.packetCount { #expect(try await flash.receive(packets.packet(number)) == .stored) }
        #expect(try flash.commit() == .installed)
        #expect(try flash.activeImageBytes() == newImage.bytes)
        #expect(flash.statistics.bufferOverflows == 2)
    }

    @Test("Lost packets resent in any order within the buffer end as the exact image")
    func shuffledWithinWindow() async throws {
        let (flash, _) = try makeFlash(capacity: 64)
        _ = try flash.start(packets.parameters)
        var random = SeededRandomGenerator(seed: 42)
        // Every third packet is lost on the first pass (not the last, whose loss no later packet
        // would show); the reported ones are resent in random order.
        let lost = (0..<packets.packetCount - 1).filter { $0 % 3 == 1 }
        var reported: Set<Int> = []
        for number in 0..<packets.packetCount where !lost.contains(number) {
            for report in try await flash.receive(packets.packet(number)).reports {
                if case .resend(let missing) = report { reported.insert(missing) }
            }
        }
        for number in reported.sorted().shuffled(using: &random) {
            _ = try await flash.receive(packets.packet(number))
        }
        #expect(reported == Set(lost))
        #expect(flash.status() == .receiving(nextPacket: packets.packetCount, receivedBytes: newImage.size))
        #expect(try flash.commit() == .installed)
        #expect(try flash.activeImageBytes() == newImage.bytes)
    }

    @Test("A restart drops the reorder buffer and resumes at the last packet written in order")
    func restartDropsBuffer() async throws {
        let (flash, storage) = try makeFlash()
        _ = try flash.start(packets.parameters)
        _ = try await flash.receive(packets.packet(0))
        _ = try await flash.receive(packets.packet(2))
        let reopened = try FirmwareFlash(
            storage: storage, factoryImage: oldImage, configuration: .init(reorderBufferCapacity: 4))
        #expect(try reopened.start(packets.parameters) == .ready(nextPacket: 1))
        #expect(try await reopened.receive(packets.packet(1)) == .stored)
        try expectStaged(reopened, packets: 2)
    }
}
