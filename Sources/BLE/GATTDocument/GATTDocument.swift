import BLEHost
import BLEWire

/// A GATT server and its advertising as `ble serve --gatt FILE.json` describes them (the schema
/// is in docs/gatt-json.md). Parsing checks everything before anything is published; a mistake
/// is a `GATTDocumentError` naming its path in the document. Lives here, not in the tool, so the
/// `gatt-json` fuzz target can reach it.
package struct GATTDocument: Sendable {
    /// A characteristic's part that the server keeps outside the attribute database: its value
    /// (every characteristic value is `.dynamic`, so each read and write reaches `ble serve`,
    /// which prints it) and the values it sends subscribers periodically.
    package struct CharacteristicBehaviour: Sendable {
        package var initialValue: [UInt8]
        package var updates: Updates?
    }

    /// Values sent to subscribers every `interval`, in turn.
    package struct Updates: Sendable {
        package var interval: Duration
        package var values: [[UInt8]]
    }

    package struct ServiceEntry: Sendable {
        package var definition: MutableService
        /// One per characteristic of `definition`, in order.
        package var behaviours: [CharacteristicBehaviour]
        /// The services `definition` holds, itself included, counted at every level of its
        /// includes and each time one is reached.
        package var reach: Int
    }

    package var deviceName: String
    package var appearance: UInt16
    package var advertisement: AdvertisementData
    /// In the order they are published: an included service comes before those including it.
    package var services: [ServiceEntry]

    /// The longest attribute value (Core 5.4 Vol 3 Part F §3.2.9).
    package static let maximumValueLength = 512

    /// The largest description read (a full database of 65,535 attributes fits well within).
    package static let maximumDocumentLength = 64 << 20

    /// The most services one service may bring in through its includes (Core 5.4 Vol 3 Part G
    /// §3.2), counted at every level and each time one is reached. A real server needs a
    /// handful; the attribute database resolves an include by comparing definitions by value,
    /// so a lattice of includes (twin services including each other's twins, level after level)
    /// would cost 2^levels to publish: a 2 kB file would hang the server.
    package static let maximumIncludedServices = 64

    /// The document in `bytes`: JSON read strictly (`JSONParser`), then checked key by key.
    package static func parse(_ bytes: [UInt8]) throws(GATTDocumentParseError) -> GATTDocument {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw .notJSON(error)
        }
        do {
            return try GATTDocument(JSONCursor(value: root, path: ""))
        } catch {
            throw .invalid(error)
        }
    }

    /// The GAP service (Core 5.4 Vol 3 Part C §12) the document's name and appearance give.
    package var gap: GAPServiceConfiguration {
        GAPServiceConfiguration(deviceName: deviceName, appearance: appearance)
    }

    package init(_ document: JSONCursor) throws(GATTDocumentError) {
        let root = try document.object(allowing: ["name", "appearance", "advertising", "services"])
        deviceName = try root.member("name")?.string() ?? "swift-ble"
        // Refused rather than cut: the name is the user's, and a cut (even on a character
        // boundary) would publish something other than what the file says.
        if let nameCursor = root.member("name"), deviceName.utf8.count > GAPServiceConfiguration.maximumDeviceNameLength
        {
            throw nameCursor.fail(
                "\(deviceName.utf8.count) octets of UTF-8; a Device Name holds at most "
                    + "\(GAPServiceConfiguration.maximumDeviceNameLength) (Core 5.4 Vol 3 Part C §12.1)")
        }
        appearance = UInt16(try root.member("appearance")?.integer(in: 0...0xFFFF) ?? 0)
        guard let servicesCursor = root.member("services") else { throw root.fail("missing key \"services\"") }
        var entries: [ServiceEntry] = []
        var identified: [String: ServiceEntry] = [:]
        for cursor in try servicesCursor.array() {
            let (entry, id) = try Self.service(cursor, identified: identified)
            if let id {
                guard identified[id] == nil else {
                    throw (cursor.member("id") ?? cursor).fail("a second service with id \"\(id)\"")
                }
                identified[id] = entry
            }
            entries.append(entry)
        }
        services = entries
        advertisement = try Self.advertisement(root.member("advertising"), deviceName: deviceName)
    }

    // MARK: Services

    private static func service(
        _ cursor: JSONCursor, identified: [String: ServiceEntry]
    ) throws(GATTDocumentError) -> (ServiceEntry, String?) {
        let object = try cursor.object(allowing: ["uuid", "id", "primary", "includes", "characteristics"])
        let uuid = try requiredUUID(object)
        let id = try object.member("id")?.string()
        let primary = try object.member("primary")?.bool() ?? true
        var includes: [MutableService] = []
        var reached = 0
        for include in try object.member("includes")?.array() ?? [] {
            let name = try include.string()
            guard let included = identified[name] else {
                throw include.fail(
                    "no service with id \"\(name)\" before this one (an included service is listed before the "
                        + "services that include it)")
            }
            includes.append(included.definition)
            reached += included.reach
            guard reached <= maximumIncludedServices else {
                throw include.fail(
                    "the includes bring in \(reached) services, counted at every level; at most "
                        + "\(maximumIncludedServices)")
            }
        }
        var characteristics: [MutableCharacteristic] = []
        var behaviours: [CharacteristicBehaviour] = []
        for element in try object.member("characteristics")?.array() ?? [] {
            let (characteristic, behaviour) = try self.characteristic(element)
            characteristics.append(characteristic)
            behaviours.append(behaviour)
        }
        let definition = MutableService(
            uuid: uuid, isPrimary: primary, includedServices: includes, characteristics: characteristics)
        return (ServiceEntry(definition: definition, behaviours: behaviours, reach: 1 + reached), id)
    }

    private static func characteristic(
        _ cursor: JSONCursor
    ) throws(GATTDocumentError) -> (MutableCharacteristic, CharacteristicBehaviour) {
        let object = try cursor.object(allowing: [
            "uuid", "properties", "extendedProperties", "permissions", "value", "descriptors", "updates",
        ])
        let uuid = try requiredUUID(object)
        guard let propertiesCursor = object.member("properties") else {
            throw object.fail("missing key \"properties\"")
        }
        var properties: CharacteristicProperties = []
        for element in try propertiesCursor.array() {
            let name = try element.string()
            guard let property = PropertyNames.property(named: name) else {
                throw element.fail(
                    "unknown property \"\(name)\"; expected one of: "
                        + PropertyNames.all.map(\.name).joined(separator: ", "))
            }
            properties.insert(property)
        }
        guard !properties.isEmpty else { throw propertiesCursor.fail("a characteristic needs at least one property") }
        // An encryption-required subscription notifies (indicates) as declared on air.
        if properties.contains(.notifyEncryptionRequired) { properties.insert(.notify) }
        if properties.contains(.indicateEncryptionRequired) { properties.insert(.indicate) }
        var extended: CharacteristicExtendedProperties?
        if let cursor = object.member("extendedProperties") {
            var set: CharacteristicExtendedProperties = []
            for element in try cursor.array() {
                switch try element.string() {
                case "reliableWrite": set.insert(.reliableWrite)
                case "writableAuxiliaries": set.insert(.writableAuxiliaries)
                case let name:
                    throw element.fail(
                        "unknown extended property \"\(name)\"; expected reliableWrite or writableAuxiliaries")
                }
            }
            extended = set
        }
        let permissions = try object.member("permissions").map(self.permissions) ?? defaultPermissions(properties)
        let value = try object.member("value").map(self.value) ?? []
        var descriptors: [MutableDescriptor] = []
        for element in try object.member("descriptors")?.array() ?? [] {
            descriptors.append(try descriptor(element))
        }
        var updates: Updates?
        if let cursor = object.member("updates") {
            guard !properties.isDisjoint(with: [.notify, .indicate]) else {
                throw cursor.fail("updates need the notify or indicate property")
            }
            updates = try self.updates(cursor)
        }
        let characteristic = MutableCharacteristic(
            uuid: uuid, properties: properties, extendedProperties: extended, permissions: permissions,
            value: .dynamic, descriptors: descriptors)
        return (characteristic, CharacteristicBehaviour(initialValue: value, updates: updates))
    }

    private static func descriptor(_ cursor: JSONCursor) throws(GATTDocumentError) -> MutableDescriptor {
        let object = try cursor.object(allowing: ["uuid", "value", "permissions"])
        let uuid = try requiredUUID(object)
        if uuid == GATTAttributeType.clientCharacteristicConfiguration
            || uuid == GATTAttributeType.characteristicExtendedProperties
        {
            throw (object.member("uuid") ?? object).fail(
                "\(uuid) is added by the server (from the properties); leave it out")
        }
        guard let valueCursor = object.member("value") else { throw object.fail("missing key \"value\"") }
        let permissions = try object.member("permissions").map(self.permissions) ?? .readable
        return MutableDescriptor(uuid: uuid, permissions: permissions, value: .stored(try value(valueCursor)))
    }

    private static func updates(_ cursor: JSONCursor) throws(GATTDocumentError) -> Updates {
        let object = try cursor.object(allowing: ["interval", "values"])
        guard let intervalCursor = object.member("interval") else { throw object.fail("missing key \"interval\"") }
        let interval = try intervalCursor.number()
        guard interval >= 0.001, interval <= 86400 else {
            throw intervalCursor.fail("expected seconds from 0.001 to 86400")
        }
        guard let valuesCursor = object.member("values") else { throw object.fail("missing key \"values\"") }
        var values: [[UInt8]] = []
        for element in try valuesCursor.array() { values.append(try value(element)) }
        guard !values.isEmpty else { throw valuesCursor.fail("expected at least one value") }
        return Updates(interval: .seconds(interval), values: values)
    }

    // MARK: Values

    static let permissionNames: [(String, AttributePermissions)] = [
        ("readable", .readable), ("writeable", .writeable), ("readEncryptionRequired", .readEncryptionRequired),
        ("writeEncryptionRequired", .writeEncryptionRequired),
        ("readAuthenticationRequired", .readAuthenticationRequired),
        ("writeAuthenticationRequired", .writeAuthenticationRequired),
        ("readAuthorizationRequired", .readAuthorizationRequired),
        ("writeAuthorizationRequired", .writeAuthorizationRequired),
    ]

    private static func permissions(_ cursor: JSONCursor) throws(GATTDocumentError) -> AttributePermissions {
        var permissions: AttributePermissions = []
        for element in try cursor.array() {
            let name = try element.string()
            guard let permission = permissionNames.first(where: { $0.0 == name })?.1 else {
                throw element.fail(
                    "unknown permission \"\(name)\"; expected one of: "
                        + permissionNames.map(\.0).joined(separator: ", "))
            }
            permissions.insert(permission)
        }
        return permissions
    }

    /// Readable when the characteristic can be read, writeable when it can be written.
    private static func defaultPermissions(_ properties: CharacteristicProperties) -> AttributePermissions {
        var permissions: AttributePermissions = []
        if properties.contains(.read) { permissions.insert(.readable) }
        if !properties.isDisjoint(with: [.write, .writeWithoutResponse, .authenticatedSignedWrites]) {
            permissions.insert(.writeable)
        }
        return permissions
    }

    /// `{"hex": "0102"}` or `{"text": "UTF-8 text"}`, at most 512 octets.
    static func value(_ cursor: JSONCursor) throws(GATTDocumentError) -> [UInt8] {
        let object = try cursor.object(allowing: ["hex", "text"])
        let bytes: [UInt8]
        switch (object.member("hex"), object.member("text")) {
        case (let hex?, nil):
            guard let parsed = Hex.bytes(try hex.string()) else {
                throw hex.fail("not hex: use pairs of digits 0-9, a-f")
            }
            bytes = parsed
        case (nil, let text?):
            bytes = Array(try text.string().utf8)
        default:
            throw object.fail("expected exactly one of \"hex\" and \"text\"")
        }
        guard bytes.count <= maximumValueLength else {
            throw object.fail("\(bytes.count) octets; an attribute value holds at most \(maximumValueLength)")
        }
        return bytes
    }

    private static func requiredUUID(_ object: JSONCursor) throws(GATTDocumentError) -> BluetoothUUID {
        guard let cursor = object.member("uuid") else { throw object.fail("missing key \"uuid\"") }
        return try uuid(cursor)
    }

    static func uuid(_ cursor: JSONCursor) throws(GATTDocumentError) -> BluetoothUUID {
        let text = try cursor.string()
        guard let uuid = BluetoothUUID(text) else {
            throw cursor.fail("\"\(text)\" is not a UUID; expected 4 or 8 hex digits (180D) or the 8-4-4-4-12 form")
        }
        return uuid
    }

    // MARK: Advertising

    private static func advertisement(
        _ cursor: JSONCursor?, deviceName: String
    ) throws(GATTDocumentError) -> AdvertisementData {
        guard let cursor else { return AdvertisementData(localName: deviceName) }
        let object = try cursor.object(allowing: ["name", "services", "manufacturerData", "serviceData", "connectable"])
        var advertisement = AdvertisementData(localName: try object.member("name")?.string() ?? deviceName)
        for element in try object.member("services")?.array() ?? [] {
            advertisement.serviceUUIDs.append(try uuid(element))
        }
        if let manufacturer = object.member("manufacturerData") {
            let fields = try manufacturer.object(allowing: ["company", "data"])
            guard let company = fields.member("company") else { throw fields.fail("missing key \"company\"") }
            guard let data = fields.member("data") else { throw fields.fail("missing key \"data\"") }
            guard let bytes = Hex.bytes(try data.string()) else {
                throw data.fail("not hex: use pairs of digits 0-9, a-f")
            }
            advertisement.manufacturerData = ManufacturerData(
                companyIdentifier: UInt16(try company.integer(in: 0...0xFFFF)), data: bytes)
        }
        if let serviceData = object.member("serviceData") {
            guard case .object(let members) = serviceData.value else {
                throw serviceData.fail("expected an object from service UUID to hex, found \(serviceData.value.kind)")
            }
            for key in members.keys.sorted() {
                guard let entry = serviceData.member(key) else { continue }
                guard let uuid = BluetoothUUID(key) else { throw entry.fail("\"\(key)\" is not a UUID") }
                guard let bytes = Hex.bytes(try entry.string()) else {
                    throw entry.fail("not hex: use pairs of digits 0-9, a-f")
                }
                advertisement.serviceData[uuid] = bytes
            }
        }
        advertisement.isConnectable = try object.member("connectable")?.bool() ?? true
        return advertisement
    }
}
