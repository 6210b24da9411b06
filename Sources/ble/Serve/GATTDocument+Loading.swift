import BLE
import BLETransport

extension GATTDocument {
    /// The description in the file at `path`, or a failure naming the file and what is wrong.
    static func load(path: String) throws -> GATTDocument {
        let bytes: [UInt8]
        do {
            bytes = try FileAccess.read(path, limit: maximumDocumentLength)
        } catch {
            throw CommandFailure("cannot read \(error)")
        }
        do {
            return try parse(bytes)
        } catch .notJSON(let error) {
            throw CommandFailure("\(path) is not valid JSON: \(error)")
        } catch .invalid(let error) {
            throw CommandFailure("\(path): \(error)")
        }
    }
}
