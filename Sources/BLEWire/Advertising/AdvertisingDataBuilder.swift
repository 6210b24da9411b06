/// Why advertising data could not be built: over the PDU's limit (Core 5.4 Vol 6 Part B §2.3),
/// a structure over 255 octets (Vol 3 Part C §11) or data breaking its type's format (CSS Part A).
public enum AdvertisingDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The block needs `total` octets, `over` more than `limit`. `structures` lists every
    /// structure's octets on the wire (length and type included), largest first.
    case tooLong(limit: Int, total: Int, over: Int, structures: [(type: ADType, octets: Int)])
    /// One structure would carry `dataOctets` octets of data; a Length octet allows 254.
    case structureTooLong(type: ADType, dataOctets: Int)
    /// Raw data that breaks its type's format (CSS Part A).
    case invalidStructure(DecodeError)
    /// `ADStructure.init(_:)` was given a value that needs `count` structures (a UUID list of
    /// mixed widths); use `ADStructure.structures(for:)`.
    case severalStructuresNeeded(count: Int)

    public static func == (lhs: AdvertisingDataError, rhs: AdvertisingDataError) -> Bool {
        switch (lhs, rhs) {
        case (.tooLong(let l1, let t1, let o1, let s1), .tooLong(let l2, let t2, let o2, let s2)):
            return l1 == l2 && t1 == t2 && o1 == o2 && s1.count == s2.count
                && zip(s1, s2).allSatisfy { $0.type == $1.type && $0.octets == $1.octets }
        case (.structureTooLong(let t1, let d1), .structureTooLong(let t2, let d2)):
            return t1 == t2 && d1 == d2
        case (.invalidStructure(let e1), .invalidStructure(let e2)):
            return e1 == e2
        case (.severalStructuresNeeded(let c1), .severalStructuresNeeded(let c2)):
            return c1 == c2
        default:
            return false
        }
    }

    /// "advertising data is 38 octets, 7 over the legacy limit of 31: Complete Local Name 21, …"
    public var description: String {
        switch self {
        case .tooLong(let limit, let total, let over, let structures):
            let limitName: String
            switch limit {
            case AdvertisingData.legacyMaximumLength: limitName = "the legacy limit of \(limit)"
            case AdvertisingData.extendedMaximumLength: limitName = "the extended limit of \(limit)"
            default: limitName = "the limit of \(limit)"
            }
            let parts = structures.map { "\($0.type.name ?? $0.type.description) \($0.octets)" }
            return "advertising data is \(total) octets, \(over) over \(limitName): "
                + parts.joined(separator: ", ")
        case .structureTooLong(let type, let octets):
            return "\(type) carries \(octets) data octets; one AD structure holds at most "
                + "\(ADStructure.maximumDataLength)"
        case .invalidStructure(let error):
            return "invalid AD structure: \(error)"
        case .severalStructuresNeeded(let count):
            return "the value needs \(count) AD structures, not one"
        }
    }
}

/// Assembles Advertising or Scan Response Data from typed values and raw structures and checks
/// the result against the PDU's limit (Core 5.4 Vol 3 Part C §11; Vol 6 Part B §2.3).
public struct AdvertisingDataBuilder: Sendable {
    /// How many octets the block may take.
    public enum Limit: Hashable, Sendable {
        /// 31 octets: legacy advertising and scan response PDUs (Vol 6 Part B §2.3.1).
        case legacy
        /// 1650 octets: extended advertising data (Vol 4 Part E §7.8.54).
        case extended
        case custom(Int)

        public var octets: Int {
            switch self {
            case .legacy: AdvertisingData.legacyMaximumLength
            case .extended: AdvertisingData.extendedMaximumLength
            case .custom(let count): count
            }
        }
    }

    public private(set) var structures: [ADStructure] = []

    public init() {}

    /// Octets the structures take so far.
    public var totalLength: Int { structures.reduce(0) { $0 + $1.encodedLength } }

    /// Octets left under `limit` (negative when already over).
    public func remaining(in limit: Limit) -> Int { limit.octets - totalLength }

    /// Appends the structures of a typed value (see `ADStructure.structures(for:)`).
    public mutating func append(_ value: ADValue) throws(AdvertisingDataError) {
        structures.append(contentsOf: try ADStructure.structures(for: value))
    }

    /// Appends a raw structure as it is.
    public mutating func append(_ structure: ADStructure) {
        structures.append(structure)
    }

    /// The local name as it fits in what `limit` leaves: the Complete Local Name when it fits,
    /// else a Shortened Local Name cut at a character boundary ("A shortened name shall only
    /// contain contiguous characters from the beginning of the full name", CSS Part A §1.2.1).
    /// Throws `tooLong` when not even one character fits.
    public mutating func appendLocalName(_ name: String, limit: Limit = .legacy) throws(AdvertisingDataError) {
        let room = remaining(in: limit) - 2
        guard let value = Self.fittedLocalName(name, room: room) else {
            let complete = ADStructure(unchecked: .completeLocalName, data: Array(name.utf8)[...])
            throw Self.tooLong(structures + [complete], limit: limit.octets)
        }
        try append(value)
    }

    /// The name as a Complete Local Name if its UTF-8 fits `room` data octets, else the longest
    /// prefix of whole characters that fits as a Shortened Local Name; nil if no character fits.
    public static func fittedLocalName(_ name: String, room: Int) -> ADValue? {
        let room = min(room, ADStructure.maximumDataLength)
        if name.utf8.count <= room { return .localName(complete: true, name) }
        var used = 0
        var end = name.startIndex
        for index in name.indices {
            let next = name.index(after: index)
            let size = name.utf8.distance(from: index, to: next)
            if used + size > room { break }
            used += size
            end = next
        }
        return end == name.startIndex ? nil : .localName(complete: false, String(name[..<end]))
    }

    /// The block, or `tooLong` naming how far over the limit it is and which structures take
    /// the room.
    public func build(limit: Limit = .legacy) throws(AdvertisingDataError) -> AdvertisingData {
        if totalLength > limit.octets { throw Self.tooLong(structures, limit: limit.octets) }
        return AdvertisingData(structures)
    }

    static func tooLong(_ structures: [ADStructure], limit: Int) -> AdvertisingDataError {
        let sizes = structures.enumerated()
            .map { (offset: $0.offset, type: $0.element.type, octets: $0.element.encodedLength) }
            .sorted { $0.octets != $1.octets ? $0.octets > $1.octets : $0.offset < $1.offset }
            .map { (type: $0.type, octets: $0.octets) }
        let total = structures.reduce(0) { $0 + $1.encodedLength }
        return .tooLong(limit: limit, total: total, over: total - limit, structures: sizes)
    }
}
