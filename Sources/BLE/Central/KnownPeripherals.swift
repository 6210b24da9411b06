import BLEHost
import BLETransport
import BLEWire
import Foundation

/// Why a central manager's file of known peripherals could not be used. A file that cannot be
/// read as one is reported and left as it is — never reset — for the user to keep or remove.
public enum KnownPeripheralsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file cannot be read or written (permissions, a directory, a FIFO, …).
    case file(FileAccessError)
    /// The file is there but is not a known-peripherals file of this version: what is wrong.
    case damaged(path: String, reason: String)

    public var description: String {
        switch self {
        case .file(let error): "known peripherals: \(error)"
        case .damaged(let path, let reason): "\(path) is not a usable known-peripherals file: \(reason)"
        }
    }
}

/// The identities a central has seen (Core Bluetooth's `retrievePeripherals(withIdentifiers:)`
/// answers from them), kept in a JSON file when the manager was given one, so a later process
/// can connect to a peripheral without scanning for it first.
///
/// The file is replaced atomically at every new identity, readable by its owner only (0600).
struct KnownPeripherals {
    /// One remembered peripheral: its identifier and the address it was seen with.
    struct Record: Codable, Hashable {
        var identifier: UUID
        /// The 48-bit address as `AA:BB:CC:DD:EE:FF`.
        var address: String
        var isRandom: Bool
        var name: String?

        init(_ address: LEAddress, name: String?) {
            self.identifier = address.peerIdentifier
            self.address = "\(address.address)"
            self.isRandom = address.type.isRandom
            self.name = name
        }

        /// The address, checked against the identifier it was stored under.
        func leAddress() throws(KnownPeripheralsError) -> LEAddress {
            guard let parsed = BluetoothAddress(address) else {
                throw .damaged(path: "", reason: "\(address) is not a Bluetooth address")
            }
            let result = LEAddress(parsed, type: isRandom ? .random : .public)
            guard result.peerIdentifier == identifier else {
                throw .damaged(path: "", reason: "\(identifier) is not the identifier of \(address)")
            }
            return result
        }
    }

    /// The file's shape; `version` changes when it does.
    struct Contents: Codable {
        var version: Int
        var peripherals: [Record]
    }

    static let version = 1

    /// Where they are kept; nil keeps them for this manager only.
    let path: String?
    private(set) var records: [UUID: (address: LEAddress, name: String?)] = [:]
    /// The order they were first seen (the file lists them so).
    private var order: [UUID] = []

    init() { path = nil }

    /// What `path` holds; nothing when no file is there yet.
    init(loading path: String) throws(KnownPeripheralsError) {
        self.path = path
        let bytes: [UInt8]?
        do {
            bytes = try FileAccess.readIfPresent(path, limit: 16 << 20)
        } catch {
            throw .file(error)
        }
        guard let bytes else { return }
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: Data(bytes))
        } catch {
            throw .damaged(path: path, reason: "\(error)")
        }
        guard contents.version == Self.version else {
            throw .damaged(path: path, reason: "version \(contents.version), this one reads \(Self.version)")
        }
        for record in contents.peripherals {
            let address: LEAddress
            do {
                address = try record.leAddress()
            } catch .damaged(_, let reason) {
                throw .damaged(path: path, reason: reason)
            } catch {
                throw error
            }
            if records[record.identifier] == nil { order.append(record.identifier) }
            records[record.identifier] = (address, record.name)
        }
    }

    /// Remembers a peripheral first seen now, and writes the file when there is one (true when
    /// the identity was new).
    mutating func remember(_ address: LEAddress, name: String?) throws(KnownPeripheralsError) -> Bool {
        let identifier = address.peerIdentifier
        guard records[identifier] == nil else { return false }
        records[identifier] = (address, name)
        order.append(identifier)
        try save()
        return true
    }

    private func save() throws(KnownPeripheralsError) {
        guard let path else { return }
        let contents = Contents(
            version: Self.version,
            peripherals: order.compactMap { id in records[id].map { Record($0.address, name: $0.name) } })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(contents)
        } catch {
            throw .damaged(path: path, reason: "cannot encode: \(error)")
        }
        do {
            try FileAccess.writeAtomically(Array(data), to: path, mode: 0o600)
        } catch {
            throw .file(error)
        }
    }
}
