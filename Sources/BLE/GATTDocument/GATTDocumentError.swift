/// A mistake in a GATT description, at a path in the document such as
/// `services[1].characteristics[0].properties[2]`.
package struct GATTDocumentError: Error, CustomStringConvertible, Equatable {
    package var path: String
    package var problem: String

    package init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    package var description: String { path.isEmpty ? problem : "\(path): \(problem)" }
}

/// Why octets are not a GATT description: not JSON `ble serve` takes, or JSON that does not
/// describe a database it can publish.
package enum GATTDocumentParseError: Error, CustomStringConvertible, Equatable {
    case notJSON(JSONParseError)
    case invalid(GATTDocumentError)

    package var description: String {
        switch self {
        case .notJSON(let error): "\(error)"
        case .invalid(let error): "\(error)"
        }
    }
}
