import BLE
import BLEWire

/// A peer's attribute database as a client's full discovery finds it: every primary service
/// (Core 5.4 Vol 3 Part G §4.4.1), the services each includes (§4.5.1) — secondary services are
/// reachable only that way (§3.1) — and every service's characteristics (§4.6.1) and
/// descriptors (§4.7.1).
///
/// The entries are also the `--json` object (keys sorted, no spaces): 16-bit UUIDs as four
/// upper-case hex digits, 128-bit ones in upper-case canonical form, handles as integers,
/// properties by Core Bluetooth's names.
struct GATTDatabaseDump: Sendable, Encodable {
    struct DescriptorEntry: Sendable, Encodable {
        @UUIDText var uuid: BluetoothUUID
        var handle: UInt16
    }

    struct CharacteristicEntry: Sendable, Encodable {
        @UUIDText var uuid: BluetoothUUID
        var declaration: UInt16
        var value: UInt16
        @PropertyNameList var properties: CharacteristicProperties
        var descriptors: [DescriptorEntry]
    }

    /// A service another includes (§3.2): its range, and whether it is primary (text only).
    struct IncludeEntry: Sendable, Encodable {
        @UUIDText var uuid: BluetoothUUID
        var start: UInt16
        var end: UInt16
        var isPrimary: Bool

        private enum CodingKeys: String, CodingKey { case uuid, start, end }
    }

    struct ServiceEntry: Sendable, Encodable {
        @UUIDText var uuid: BluetoothUUID
        var isPrimary: Bool
        var start: UInt16
        var end: UInt16
        var includes: [IncludeEntry]
        var characteristics: [CharacteristicEntry]

        private enum CodingKeys: String, CodingKey {
            case uuid, isPrimary = "primary", start, end, includes, characteristics
        }
    }

    /// In handle order: primary services and the services they include, each once.
    var services: [ServiceEntry]

    /// Runs the discovery over the current connection.
    static func discover(_ peripheral: Peripheral) async throws -> GATTDatabaseDump {
        var pending = try await attempt("discovering services") { try await peripheral.discoverServices() }
            .sorted { $0.handleRange.lowerBound < $1.handleRange.lowerBound }
        var seen = Set(pending.map(\.handleRange.lowerBound))
        var entries: [ServiceEntry] = []
        while !pending.isEmpty {
            let service = pending.removeFirst()
            let name = service.uuid.labelled
            let includes = try await attempt("discovering the services \(name) includes") {
                try await peripheral.discoverIncludedServices(for: service)
            }
            // An included service not found as a primary one (a secondary service) is dumped too.
            for include in includes where seen.insert(include.handleRange.lowerBound).inserted {
                pending.append(include)
            }
            let characteristics = try await attempt("discovering characteristics of \(name)") {
                try await peripheral.discoverCharacteristics(for: service)
            }
            var characteristicEntries: [CharacteristicEntry] = []
            for characteristic in characteristics {
                let descriptors = try await attempt("discovering descriptors of \(characteristic.uuid.labelled)") {
                    try await peripheral.discoverDescriptors(for: characteristic)
                }
                characteristicEntries.append(
                    CharacteristicEntry(
                        uuid: characteristic.uuid, declaration: characteristic.declarationHandle,
                        value: characteristic.handle, properties: characteristic.properties,
                        descriptors: descriptors.map { DescriptorEntry(uuid: $0.uuid, handle: $0.handle) }))
            }
            entries.append(
                ServiceEntry(
                    uuid: service.uuid, isPrimary: service.isPrimary, start: service.handleRange.lowerBound,
                    end: service.handleRange.upperBound,
                    includes: includes.map {
                        IncludeEntry(
                            uuid: $0.uuid, start: $0.handleRange.lowerBound, end: $0.handleRange.upperBound,
                            isPrimary: $0.isPrimary)
                    },
                    characteristics: characteristicEntries))
        }
        return GATTDatabaseDump(services: entries.sorted { $0.start < $1.start })
    }

    func json() throws -> String { try JSONOutput.line(self) }

    /// A readable tree: services with their handle ranges, includes, characteristics (declaration
    /// and value handles, properties) and descriptors, with the names of well-known UUIDs.
    var text: [String] {
        var lines: [String] = []
        for service in services {
            lines.append(
                "service \(Self.handle(service.start))…\(Self.handle(service.end))  \(service.uuid.labelled)"
                    + (service.isPrimary ? "" : " (secondary)"))
            for include in service.includes {
                lines.append(
                    "  includes \(Self.handle(include.start))…\(Self.handle(include.end))  \(include.uuid.labelled)"
                        + (include.isPrimary ? "" : " (secondary)"))
            }
            for characteristic in service.characteristics {
                let properties = PropertyNames.names(characteristic.properties).joined(separator: ", ")
                lines.append(
                    "  characteristic \(Self.handle(characteristic.declaration)), value "
                        + "\(Self.handle(characteristic.value))  \(characteristic.uuid.labelled)  [\(properties)]")
                for descriptor in characteristic.descriptors {
                    lines.append("    descriptor \(Self.handle(descriptor.handle))  \(descriptor.uuid.labelled)")
                }
            }
        }
        return lines
    }

    private static func handle(_ value: UInt16) -> String { Hex.prefixed(value, width: 4) }
}

/// A UUID in the dump's JSON: a 16-bit one as four hex digits, any other (32-bit aliases too) in
/// canonical form.
@propertyWrapper
struct UUIDText: Sendable, Encodable {
    var wrappedValue: BluetoothUUID

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.uuid16 != nil ? wrappedValue.description : wrappedValue.uuidString)
    }
}

/// Characteristic properties in JSON as the list of their Core Bluetooth names.
@propertyWrapper
struct PropertyNameList: Sendable, Encodable {
    var wrappedValue: CharacteristicProperties

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(PropertyNames.names(wrappedValue))
    }
}
