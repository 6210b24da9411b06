import BLECompanion
import BLEDevices
import BLETestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The headset's state directory with each of its files damaged each way: opening the store is
/// an error and nothing is written — never a factory reset over slot A and the slot table.
@Suite("Headset state directory: a damaged file is an error, never a reset")
struct StateDirectoryDamageTests {
    static let records: [FlashRecord] = [.slotTable, .staging, .slot(.a), .slot(.b)]

    /// A state directory with an image installed in slot A and an update half staged in B.
    static func populated(_ folder: String) async throws -> (FirmwareImage, [String: [UInt8]]) {
        let factory = try FirmwareImage.random(size: 300, version: "1.0.0", seed: 1)
        let update = try FirmwareImage.random(size: 450, version: "1.1.0", seed: 2)
        let packets = try OTAPacketizer(image: update, packetSize: 100)
        let directory = URL(fileURLWithPath: folder + "/state", isDirectory: true)
        let flash = try FirmwareFlash(storage: DirectoryFlashStorage(directory: directory), factoryImage: factory)
        _ = try flash.start(packets.parameters)
        for number in 0..<2 { _ = try await flash.receive(packets.packet(number)) }
        return (factory, try contents(folder))
    }

    /// Every regular file of the state directory, by name.
    static func contents(_ folder: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/state") {
            let path = folder + "/state/" + name
            // Regular files only (lstat: a FIFO would block a read, a link is not followed).
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            files[name] = [UInt8](data)
        }
        return files
    }

    @Test(
        "Each record × each damage (directory, FIFO, device, symbolic link loop or to nothing): opening throws, the other files are untouched",
        arguments: Self.records, DamagedPaths.Damage.allCases.filter { $0 != .notADirectory })
    func damagedRecord(_ record: FlashRecord, _ damage: DamagedPaths.Damage) async throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let (factory, before) = try await Self.populated(paths.folder)
        let path = paths.folder + "/state/" + record.fileName
        try FileManager.default.removeItem(atPath: path)
        paths.make(damage, at: path)
        let directory = URL(fileURLWithPath: paths.folder + "/state", isDirectory: true)
        #expect(throws: FlashStorageError.self, "\(record.fileName) as a \(damage)") {
            let flash = try FirmwareFlash(storage: DirectoryFlashStorage(directory: directory), factoryImage: factory)
            // A store that opened must not have lost anything: reading the active image fails
            // or gives the bytes that were there.
            _ = try flash.activeImageBytes()
            _ = try flash.crc32OfStagedPackets(2)
        }
        var expected = before
        expected[record.fileName] = nil
        let after = try Self.contents(paths.folder).filter { !$0.key.hasPrefix(record.fileName) }
        #expect(after == expected, "\(record.fileName) as a \(damage): other files changed")
    }

    @Test("A slot table that does not decode is .corrupt; nothing is rewritten")
    func garbageTable() async throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let (factory, before) = try await Self.populated(paths.folder)
        let path = paths.folder + "/state/slots.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data("{\"active\":".utf8))
        let directory = URL(fileURLWithPath: paths.folder + "/state", isDirectory: true)
        #expect(throws: FlashStorageError.self) {
            _ = try FirmwareFlash(storage: DirectoryFlashStorage(directory: directory), factoryImage: factory)
        }
        var expected = before
        expected["slots.json"] = Array("{\"active\":".utf8)
        #expect(try Self.contents(paths.folder) == expected)
    }

    @Test("Only an empty store is new: a slot table missing beside the slots is an error, slot A is kept")
    func missingTableBesideSlots() async throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let (factory, before) = try await Self.populated(paths.folder)
        try FileManager.default.removeItem(atPath: paths.folder + "/state/slots.json")
        let directory = URL(fileURLWithPath: paths.folder + "/state", isDirectory: true)
        // (Slot A holds the factory image, which a first start may leave without its table;
        // the staged slot B may not be lost.)
        #expect(throws: FlashStorageError.corrupt("slots.json is missing but slot-b.bin is there")) {
            _ = try FirmwareFlash(storage: DirectoryFlashStorage(directory: directory), factoryImage: factory)
        }
        var expected = before
        expected["slots.json"] = nil
        #expect(try Self.contents(paths.folder) == expected)
    }

    @Test("A first start cut short after writing the factory image (no table yet) completes: nothing to lose")
    func interruptedFirstStart() throws {
        let paths = DamagedPaths()
        defer { paths.remove() }
        let factory = try FirmwareImage.random(size: 300, version: "1.0.0", seed: 1)
        let directory = URL(fileURLWithPath: paths.folder + "/state", isDirectory: true)
        let storage = try DirectoryFlashStorage(directory: directory)
        try storage.replace(.slot(.a), with: factory.bytes)
        let flash = try FirmwareFlash(storage: storage, factoryImage: factory)
        #expect(flash.activeVersion == "1.0.0")
        #expect(try flash.activeImageBytes() == factory.bytes)
    }
}
