import BLE

/// Why a GATT command failed, in words a user can act on.
enum GATTCommandError: Error, CustomStringConvertible {
    /// The scan ended without a discovery from this address.
    case notAdvertised(BluetoothAddress, seconds: Double)
    /// No discovered characteristic has this UUID.
    case characteristicNotFound(BluetoothUUID, on: BluetoothAddress)
    /// An operation of the API failed: what was being done, and why.
    case failed(String, BLEError)

    var description: String {
        switch self {
        case .notAdvertised(let address, let seconds):
            "no device with address \(address) advertised within \(Self.format(seconds)) s"
        case .characteristicNotFound(let uuid, let address):
            "no characteristic \(uuid.labelled) on \(address)"
        case .failed(let doing, let error):
            "\(doing): \(Self.explain(error))"
        }
    }

    /// The API's error, with properties and ATT errors by name.
    static func explain(_ error: BLEError) -> String {
        switch error {
        case .propertyNotSupported(let required):
            "the characteristic lacks the "
                + PropertyNames.names(required).joined(separator: " or ")
                + (required.rawValue.nonzeroBitCount > 1 ? " properties" : " property")
        default:
            error.description
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}

/// Runs an operation of the API and names what was being done when it fails.
func attempt<T>(
    isolation: isolated (any Actor)? = #isolation, _ doing: @autoclosure () -> String,
    _ operation: () async throws -> T
) async throws -> T {
    do {
        return try await operation()
    } catch let error as BLEError {
        throw GATTCommandError.failed(doing(), error)
    }
}
