import BLECompanion
import BLEDevices
import Testing

@Suite("Firmware flash: update procedures and refusals")
struct FirmwareFlashTests {
    let oldImage: FirmwareImage
    let newImage: FirmwareImage
    let packets: OTAPacketizer

    init() throws {
        oldImage = try .random(size: 700, version: "1.0.0", seed: 1)
        newImage = try .random(size: 1000, version: "1.1.0", seed: 2)
        packets = try OTAPacketizer(image: newImage, packetSize: 100)
    }

    func makeFlash(
        _ configuration: FirmwareFlash.Configuration = .init(), battery: Int = 100
    ) throws -> (FirmwareFlash, MemoryFlashStorage) {
        let storage = MemoryFlashStorage()
        let flash = try FirmwareFlash(
            storage: storage, factoryImage: oldImage, configuration: configuration, batteryLevel: battery)
        return (flash, storage)
    }

    @Test("A new store runs its factory image from slot A and is idle")
    func factoryState() throws {
        let (flash, _) = try makeFlash()
        #expect(flash.activeSlot == .a)
        #expect(flash.activeVersion == "1.0.0")
        #expect(try flash.activeImageBytes() == oldImage.bytes)
        #expect(flash.status() == .idle)
    }

    @Test("Start, every packet in order, commit: the slots swap to the verified new image")
    func completeUpdate() async throws {
        let (flash, _) = try makeFlash()
        #expect(try flash.start(packets.parameters) == .ready(nextPacket: 0))
        for number in 0..<packets.packetCount {
            #expect(try await flash.receive(packets.packet(number)) == .stored)
            #expect(
                flash.status()
                    == .receiving(nextPacket: number + 1, receivedBytes: packets.bytes(beforePacket: number + 1)))
        }
        // Nothing past the end is written.
        #expect(try await flash.receive(packets.packet(9)) == .duplicate)
        #expect(try await flash.receive(OTAPacket(number: 10, payload: [1])) == .duplicate)
        #expect(try flash.commit() == .installed)
        #expect(flash.activeSlot == .b)
        #expect(flash.activeVersion == "1.1.0")
        #expect(flash.activeSHA256 == newImage.sha256)
        #expect(try flash.activeImageBytes() == newImage.bytes)
        #expect(flash.status() == .idle)
        #expect(try flash.start(packets.parameters) == .alreadyInstalled)
    }

    @Test("Start refuses bad parameters, a bad version format, an oversized image and a low battery")
    func startRefusals() throws {
        let (flash, _) = try makeFlash(.init(slotCapacity: 999), battery: 50)
        var parameters = packets.parameters
        #expect(try flash.start(parameters) == .refused(.imageTooLarge(size: 1000, capacity: 999)))
        parameters.imageSize = 900
        parameters.version = "1.1"
        #expect(try flash.start(parameters) == .refused(.versionFormat("1.1")))
        parameters.version = "1.256.0"
        #expect(try flash.start(parameters) == .refused(.versionFormat("1.256.0")))
        parameters.version = "1.1.0"
        parameters.sha256 = [1, 2, 3]
        #expect(try flash.start(parameters) == .refused(.invalidParameters("SHA-256 of 3 bytes")))
        parameters.sha256 = newImage.sha256
        parameters.packetSize = 0
        #expect(try flash.start(parameters) == .refused(.invalidParameters("packet size 0")))
        parameters.packetSize = 100
        parameters.imageSize = 0
        #expect(try flash.start(parameters) == .refused(.invalidParameters("image size 0")))
        parameters.imageSize = 900
        flash.batteryLevel = 19
        #expect(try flash.start(parameters) == .refused(.batteryTooLow(level: 19, minimum: 20)))
        flash.batteryLevel = 20
        #expect(try flash.start(parameters) == .ready(nextPacket: 0))
        #expect(flash.activeVersion == "1.0.0")
    }

    @Test("Go-back-N (v1): a packet with a bad CRC writes nothing and names itself for resend")
    func badCRC() async throws {
        let (flash, _) = try makeFlash(.init(reorderBufferCapacity: 0))
        _ = try flash.start(packets.parameters)
        _ = try await flash.receive(packets.packet(0))
        var bad = packets.packet(1)
        bad.payload[7] ^= 0x40
        #expect(try await flash.receive(bad) == .resendFrom(packet: 1, report: true))
        var badChecksum = packets.packet(1)
        badChecksum.crc32 ^= 1
        // The same gap in the same pass of the sender is reported once.
        #expect(try await flash.receive(badChecksum) == .resendFrom(packet: 1, report: true))
        #expect(flash.status() == .receiving(nextPacket: 1, receivedBytes: 100))
        #expect(try await flash.receive(packets.packet(1)) == .stored)
    }

    @Test("Go-back-N (v1): a packet of the wrong length is refused even with a matching CRC")
    func wrongLength() async throws {
        let (flash, _) = try makeFlash(.init(reorderBufferCapacity: 0))
        _ = try flash.start(packets.parameters)
        let short = OTAPacket(number: 0, payload: Array(newImage.bytes[0..<99]))
        #expect(try await flash.receive(short) == .resendFrom(packet: 0, report: true))
        #expect(flash.status() == .receiving(nextPacket: 0, receivedBytes: 0))
    }

    @Test("Go-back-N (v1): out-of-order packets name the first missing one, once per gap, again on the next pass")
    func outOfOrder() async throws {
        let (flash, _) = try makeFlash(.init(reorderBufferCapacity: 0))
        _ = try flash.start(packets.parameters)
        _ = try await flash.receive(packets.packet(0))
        #expect(try await flash.receive(packets.packet(2)) == .resendFrom(packet: 1, report: true))
        #expect(try await flash.receive(packets.packet(3)) == .resendFrom(packet: 1, report: false))
        #expect(try await flash.receive(packets.packet(4)) == .resendFrom(packet: 1, report: false))
        // The sender went back (a number not above the last seen) and lost packet 1 again.
        #expect(try await flash.receive(packets.packet(2)) == .resendFrom(packet: 1, report: true))
        #expect(try await flash.receive(packets.packet(0)) == .duplicate)
        #expect(try await flash.receive(packets.packet(1)) == .stored)
        #expect(flash.status() == .receiving(nextPacket: 2, receivedBytes: 200))
        let statistics = flash.statistics
        #expect(statistics.packetsRejected == 4)
        #expect(statistics.resendReports == 2)
        #expect(statistics.duplicates == 1)
    }

    @Test("Packets without a session are refused")
    func noSession() async throws {
        let (flash, _) = try makeFlash()
        #expect(try await flash.receive(packets.packet(0)) == .noSession)
        #expect(try flash.commit() == .failed(.noSession))
    }

    @Test("Commit of an incomplete image fails and the old image stays")
    func incompleteCommit() async throws {
        let (flash, _) = try makeFlash()
        _ = try flash.start(packets.parameters)
        for number in 0..<9 { _ = try await flash.receive(packets.packet(number)) }
        #expect(try flash.commit() == .failed(.incomplete(receivedBytes: 900, expectedBytes: 1000)))
        #expect(flash.activeSlot == .a)
        #expect(try flash.activeImageBytes() == oldImage.bytes)
        // The staging stays, so the last packet can still come.
        #expect(try await flash.receive(packets.packet(9)) == .stored)
        #expect(try flash.commit() == .installed)
    }

    @Test("Commit of an image whose SHA-256 differs fails, drops the staging, keeps the old image")
    func digestMismatch() async throws {
        let (flash, _) = try makeFlash()
        // Announce the new image but send other bytes of the same size (each packet's CRC fine).
        let impostor = try OTAPacketizer(image: try .random(size: 1000, version: "1.1.0", seed: 3), packetSize: 100)
        _ = try flash.start(packets.parameters)
        for number in 0..<10 { #expect(try await flash.receive(impostor.packet(number)) == .stored) }
        #expect(try flash.commit() == .failed(.digestMismatch))
        #expect(flash.activeSlot == .a)
        #expect(try flash.activeImageBytes() == oldImage.bytes)
        #expect(flash.status() == .idle)
    }

    @Test("Abort drops the staging and keeps the old image")
    func abort() async throws {
        let (flash, storage) = try makeFlash()
        _ = try flash.start(packets.parameters)
        _ = try await flash.receive(packets.packet(0))
        try flash.abort()
        #expect(flash.status() == .idle)
        #expect(try storage.read(.slot(.b)) == [])
        #expect(try storage.read(.staging) == nil)
        #expect(try flash.activeImageBytes() == oldImage.bytes)
    }

    @Test("Start with other parameters replaces a staging; with the same ones it resumes")
    func restartOrResume() async throws {
        let (flash, _) = try makeFlash()
        _ = try flash.start(packets.parameters)
        for number in 0..<3 { _ = try await flash.receive(packets.packet(number)) }
        #expect(try flash.start(packets.parameters) == .ready(nextPacket: 3))
        var other = packets.parameters
        other.packetSize = 50
        #expect(try flash.start(other) == .ready(nextPacket: 0))
        #expect(flash.status() == .receiving(nextPacket: 0, receivedBytes: 0))
    }

    @Test("The CRC-32 of the staged prefix answers for held packets only")
    func stagedPrefixCRC() async throws {
        let (flash, _) = try makeFlash()
        #expect(try flash.crc32OfStagedPackets(0) == nil)
        _ = try flash.start(packets.parameters)
        for number in 0..<4 { _ = try await flash.receive(packets.packet(number)) }
        #expect(try flash.crc32OfStagedPackets(4) == packets.crc32OfPackets(4))
        #expect(try flash.crc32OfStagedPackets(2) == packets.crc32OfPackets(2))
        #expect(try flash.crc32OfStagedPackets(5) == nil)
    }

    @Test("Writes spend flash time at the configured speed, counted apart")
    func flashTime() async throws {
        let (flash, _) = try makeFlash(.init(writeSpeed: 10_000))
        _ = try flash.start(packets.parameters)
        for number in 0..<packets.packetCount { _ = try await flash.receive(packets.packet(number)) }
        // 1,000 bytes at 10,000 bytes per second.
        #expect(flash.statistics.flashTime == .milliseconds(100))
        #expect(flash.statistics.bytesWritten == 1000)
    }
}
