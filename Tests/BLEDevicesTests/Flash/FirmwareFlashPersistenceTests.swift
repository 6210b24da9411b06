import BLECompanion
import BLEDevices
import Foundation
import Testing

@Suite("Firmware flash: persistence and power cuts")
struct FirmwareFlashPersistenceTests {
    let oldImage: FirmwareImage
    let newImage: FirmwareImage
    let packets: OTAPacketizer

    init() throws {
        oldImage = try .random(size: 300, version: "1.0.0", seed: 1)
        newImage = try .random(size: 450, version: "1.1.0", seed: 2)
        packets = try OTAPacketizer(image: newImage, packetSize: 100)
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ble-flash-\(UUID().uuidString)")
    }

    @Test("With a state directory, staged progress survives a restart and the update resumes at the next packet")
    func resumeAcrossRestart() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try FirmwareFlash(storage: DirectoryFlashStorage(directory: directory), factoryImage: oldImage)
        _ = try first.start(packets.parameters)
        for number in 0..<3 { _ = try await first.receive(packets.packet(number)) }

        let second = try FirmwareFlash(storage: DirectoryFlashStorage(directory: directory), factoryImage: oldImage)
        #expect(second.status() == .receiving(nextPacket: 3, receivedBytes: 300))
        #expect(second.activeVersion == "1.0.0")
        #expect(try second.start(packets.parameters) == .ready(nextPacket: 3))
        #expect(try second.crc32OfStagedPackets(3) == packets.crc32OfPackets(3))
        for number in 3..<packets.packetCount { #expect(try await second.receive(packets.packet(number)) == .stored) }
        #expect(try second.commit() == .installed)

        let third = try FirmwareFlash(storage: DirectoryFlashStorage(directory: directory), factoryImage: oldImage)
        #expect(third.activeVersion == "1.1.0")
        #expect(try third.activeImageBytes() == newImage.bytes)
        #expect(third.status() == .idle)
    }

    @Test("With a staging record every 4 packets, a restart resumes at the last recorded packet")
    func recordInterval() async throws {
        let storage = MemoryFlashStorage()
        let configuration = FirmwareFlash.Configuration(stagingRecordInterval: 4)
        let first = try FirmwareFlash(storage: storage, factoryImage: oldImage, configuration: configuration)
        _ = try first.start(packets.parameters)
        for number in 0..<3 { _ = try await first.receive(packets.packet(number)) }
        #expect(first.status() == .receiving(nextPacket: 3, receivedBytes: 300))
        let second = try FirmwareFlash(storage: storage, factoryImage: oldImage, configuration: configuration)
        #expect(second.status() == .receiving(nextPacket: 0, receivedBytes: 0))
        #expect(try storage.read(.slot(.b))?.count == 0)
        for number in 0..<packets.packetCount { _ = try await second.receive(packets.packet(number)) }
        // The last packet is always recorded, so a complete staging survives a restart whole.
        let third = try FirmwareFlash(storage: storage, factoryImage: oldImage, configuration: configuration)
        #expect(third.status() == .receiving(nextPacket: 5, receivedBytes: 450))
        #expect(try third.commit() == .installed)
        #expect(try third.activeImageBytes() == newImage.bytes)
    }

    @Test("Bytes appended past the staging record (a crash between the two writes) are trimmed on restart")
    func trimsUncountedBytes() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try DirectoryFlashStorage(directory: directory)
        let first = try FirmwareFlash(storage: storage, factoryImage: oldImage)
        _ = try first.start(packets.parameters)
        for number in 0..<2 { _ = try await first.receive(packets.packet(number)) }
        try storage.append([0xEE, 0xEE, 0xEE], to: .slot(.b))

        let second = try FirmwareFlash(storage: DirectoryFlashStorage(directory: directory), factoryImage: oldImage)
        #expect(second.status() == .receiving(nextPacket: 2, receivedBytes: 200))
        #expect(try storage.read(.slot(.b))?.count == 200)
    }

    @Test("A corrupt record in the state directory is a typed error, not a crash")
    func corruptRecord() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try DirectoryFlashStorage(directory: directory)
        _ = try FirmwareFlash(storage: storage, factoryImage: oldImage)
        try storage.replace(.slotTable, with: Array("{not json".utf8))
        #expect {
            try FirmwareFlash(storage: storage, factoryImage: oldImage)
        } throws: { error in
            if case .corrupt = error as? FlashStorageError { return true }
            return false
        }
    }

    /// Runs the whole update on `storage` from wherever it stands, reopening the store after
    /// every power cut; checks after each cut that the device runs the old or the new image.
    func updateThroughCuts(_ storage: MemoryFlashStorage) async throws {
        var flash = try FirmwareFlash(storage: storage, factoryImage: oldImage)
        while true {
            do {
                switch try flash.start(packets.parameters) {
                case .alreadyInstalled:
                    return
                case .refused(let refusal):
                    Issue.record("refused: \(refusal)")
                    return
                case .ready(let next):
                    for number in next..<packets.packetCount {
                        let outcome = try await flash.receive(packets.packet(number))
                        #expect(outcome == .stored)
                    }
                    let outcome = try flash.commit()
                    #expect(outcome == .installed)
                    return
                }
            } catch FlashStorageError.powerLost {
                storage.restorePower()
                flash = try FirmwareFlash(storage: storage, factoryImage: oldImage)
                let running = try flash.activeImageBytes()
                #expect(running == oldImage.bytes || running == newImage.bytes)
                #expect(FirmwareDigest.sha256(running) == flash.activeSHA256)
            }
        }
    }

    @Test("A power cut at every storage operation of an update leaves the old or the new image, and it completes")
    func powerCutAtEveryOperation() async throws {
        // Start (3 operations) + 5 packets (2 each) + commit (2): cut at each, and once past the end.
        for cut in 0...16 {
            let storage = MemoryFlashStorage()
            _ = try FirmwareFlash(storage: storage, factoryImage: oldImage)
            storage.schedulePowerLoss(afterOperations: cut)
            try await updateThroughCuts(storage)
            storage.restorePower()
            let final = try FirmwareFlash(storage: storage, factoryImage: oldImage)
            #expect(try final.activeImageBytes() == newImage.bytes, "cut at operation \(cut)")
            #expect(final.activeVersion == "1.1.0")
            #expect(final.status() == .idle)
        }
    }

    @Test("A cut between the swap and the removal of the staging record leaves a stale record that restart drops")
    func staleStagingAfterSwap() async throws {
        let storage = MemoryFlashStorage()
        let flash = try FirmwareFlash(storage: storage, factoryImage: oldImage)
        _ = try flash.start(packets.parameters)
        for number in 0..<packets.packetCount { _ = try await flash.receive(packets.packet(number)) }
        // The commit replaces the slot table, then removes the staging record: cut the second.
        storage.schedulePowerLoss(afterOperations: 1)
        #expect(throws: FlashStorageError.powerLost) { try flash.commit() }
        storage.restorePower()
        #expect(try storage.read(.staging) != nil)
        let reopened = try FirmwareFlash(storage: storage, factoryImage: oldImage)
        #expect(reopened.activeSlot == .b)
        #expect(try reopened.activeImageBytes() == newImage.bytes)
        #expect(reopened.status() == .idle)
        #expect(try storage.read(.staging) == nil)
        #expect(try reopened.start(packets.parameters) == .alreadyInstalled)
    }
}
