import BLECompanion
import Foundation

/// Which slot runs, and what it holds (the record whose replacement is the swap).
struct SlotTable: Codable, Hashable, Sendable {
    var active: FlashSlot
    var version: String
    var sha256: [UInt8]
    var size: Int
}

/// How far the staging has come: every packet before `nextPacket` is in `slot`
/// (`receivedBytes` bytes).
struct StagingRecord: Codable, Hashable, Sendable {
    var parameters: OTASessionParameters
    var slot: FlashSlot
    var receivedBytes: Int
    var nextPacket: Int
}

extension FlashStorage {
    /// Reads and decodes a JSON record (nil when absent); bytes that do not decode are `.corrupt`.
    func readRecord<Value: Decodable>(_ type: Value.Type, from record: FlashRecord) throws(FlashStorageError) -> Value?
    {
        guard let bytes = try read(record) else { return nil }
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw .corrupt("\(record.fileName): \(error)")
        }
    }

    /// Encodes and atomically replaces a JSON record.
    func writeRecord(_ value: some Encodable, to record: FlashRecord) throws(FlashStorageError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw .corrupt("\(record.fileName): \(error)")
        }
        try replace(record, with: [UInt8](data))
    }
}
