/// What an ATT response means in the light of its request (Core 5.4 Vol 3 Part F §3.4), for
/// `ble decode`: the values of a Read By Group Type Response are service UUIDs when the request
/// asked for services, a Read By Type Response's are characteristic declarations when it asked
/// for those (Vol 3 Part G §3.1–§3.3), a read's value belongs to the handle the request named.
extension ATTPDU {
    /// For a response whose fields cannot be understood alone, what is missing: `ble decode`
    /// shows it beside a lone packet. Nil for every other PDU.
    public var requestDependence: String? {
        switch self {
        case .readByGroupTypeResponse:
            "the values are of the group type the Read By Group Type Request asked for "
                + "(0x2800, 0x2801: service UUIDs); decode the capture to see them"
        case .readByTypeResponse:
            "the values are of the attribute type the Read By Type Request asked for "
                + "(0x2803: characteristic declarations); decode the capture to see them"
        case .readResponse, .readBlobResponse:
            "the value belongs to the handle the read request named; decode the capture to see it"
        case .readMultipleResponse:
            "the values of the Read Multiple Request's handles, back to back: their lengths are "
                + "known only from those attributes"
        default: nil
        }
    }

    /// The fields this response gains from `request`, the request it answers: `request`
    /// itself, then what the request gives meaning to (`services`, `characteristics`,
    /// `includes`, or the `handle` a value belongs to).
    public func interpreted(answering request: ATTPDU) -> [(String, RenderedValue)] {
        var fields: [(String, RenderedValue)] = [("request", Rendering.render(request))]
        switch (self, request) {
        case (.readByGroupTypeResponse(let response), .readByGroupTypeRequest(let asked))
        where asked.attributeGroupType == 0x2800 || asked.attributeGroupType == 0x2801:
            // «Primary Service», «Secondary Service» (Vol 3 Part G §3.1): the value is the UUID.
            fields.append(
                (
                    "services",
                    .array(
                        response.entries.map { entry in
                            .object(
                                name: nil,
                                fields: [
                                    ("start", .unsigned(UInt64(entry.handle))),
                                    ("end", .unsigned(UInt64(entry.endGroupHandle))),
                                    ("uuid", Self.uuid(entry.value)),
                                ])
                        })
                ))
        case (.readByTypeResponse(let response), .readByTypeRequest(let asked)):
            guard let declaration = Declaration(attributeType: asked.attributeType) else { break }
            fields.append(
                (
                    declaration.listName,
                    .array(
                        response.entries.map { entry in
                            let value = Array(entry.value)
                            guard value.count >= declaration.minimumLength else { return .bytes(value) }
                            let handle: (String, RenderedValue) = ("declaration", .unsigned(UInt64(entry.handle)))
                            return .object(name: nil, fields: [handle] + declaration.fields(of: value))
                        })
                ))
        case (.readResponse, .readRequest(let asked)):
            fields.append(("handle", .unsigned(UInt64(asked.handle))))
        case (.readBlobResponse, .readBlobRequest(let asked)):
            fields.append(("handle", .unsigned(UInt64(asked.handle))))
            fields.append(("offset", .unsigned(UInt64(asked.valueOffset))))
        default:
            break
        }
        return fields
    }

    /// The declarations a Read By Type Request asks for by their attribute type (Vol 3 Part G
    /// §3.2, §3.3.1): each entry is the declaration's handle and its value.
    private enum Declaration {
        case include
        case characteristic

        init?(attributeType: BluetoothUUID) {
            switch attributeType {
            case 0x2802: self = .include
            case 0x2803: self = .characteristic
            default: return nil
            }
        }

        var listName: String {
            switch self {
            case .include: "includes"
            case .characteristic: "characteristics"
            }
        }

        /// Shorter values stay octets.
        var minimumLength: Int {
            switch self {
            case .include: 4
            case .characteristic: 5
            }
        }

        /// The fields of a value at least `minimumLength` long.
        func fields(of value: [UInt8]) -> [(String, RenderedValue)] {
            switch self {
            case .include:
                // «Include» (§3.2): service handle (2), end group handle (2), UUID (2 or none).
                var fields: [(String, RenderedValue)] = [
                    ("start", .unsigned(UInt64(value[0]) | UInt64(value[1]) << 8)),
                    ("end", .unsigned(UInt64(value[2]) | UInt64(value[3]) << 8)),
                ]
                if value.count > 4 { fields.append(("uuid", ATTPDU.uuid(value[4...]))) }
                return fields
            case .characteristic:
                // «Characteristic» (§3.3.1): properties (1), value handle (2), UUID (2 or 16).
                return [
                    ("properties", .symbol(Hex.prefixed(value[0], width: 2))),
                    ("valueHandle", .unsigned(UInt64(value[1]) | UInt64(value[2]) << 8)),
                    ("uuid", ATTPDU.uuid(value[3...])),
                ]
            }
        }
    }

    /// A UUID of 2 or 16 octets as its rendering; other lengths stay octets.
    fileprivate static func uuid(_ octets: ArraySlice<UInt8>) -> RenderedValue {
        guard octets.count == 2 || octets.count == 16,
            let uuid = try? BluetoothUUID(decodingLittleEndian: octets)
        else { return .bytes(Array(octets)) }
        return uuid.rendered
    }
}

extension RenderedValue {
    /// This object with `fields` appended; any other value becomes the `value` of an object.
    public func appending(_ fields: [(String, RenderedValue)]) -> RenderedValue {
        guard !fields.isEmpty else { return self }
        if case .object(let name, let existing) = self { return .object(name: name, fields: existing + fields) }
        return .object(name: nil, fields: [("value", self)] + fields)
    }
}
