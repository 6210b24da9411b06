import BLEPhone
import BLETransport

extension PhoneScenario {
    /// The scenario in the file at `path`, or a failure naming the file and the place of the
    /// mistake (its path in the document, line and column).
    static func load(path: String) throws -> PhoneScenario {
        let bytes: [UInt8]
        do {
            bytes = try FileAccess.read(path, limit: maximumDocumentLength)
        } catch {
            throw CommandFailure("cannot read \(error)")
        }
        do {
            return try PhoneScenario(parsing: bytes)
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }
}
