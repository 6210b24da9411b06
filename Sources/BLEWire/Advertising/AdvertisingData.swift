/// Advertising Data, Scan Response Data or Periodic Advertising Data: a block of AD structures
/// (Core 5.4 Vol 3 Part C §11).
///
/// The value keeps the significant part of the block as a slice of its input and walks it on
/// demand (`structures`), so decoding allocates nothing: it checks every structure's length and
/// the data of every known type once, up front, and later reads cannot fail.
///
/// A Length octet of zero ends the significant part (§11: "This shall only occur to allow an
/// early termination"). The octets after it form the non-significant part, which the sender
/// shall fill with zeros; this decoder ignores them whatever they hold, since the specification
/// gives the receiver no rule and treating them as data could only invent structures.
public struct AdvertisingData: Hashable, Sendable, WireCodable, WireRenderable, CustomRendering {
    /// The significant part: the structures back to back, without terminator or padding.
    public let bytes: ArraySlice<UInt8>
    /// The number of structures.
    public let count: Int

    /// The legacy limit of Advertising and Scan Response Data (Vol 6 Part B §2.3.1): 31 octets.
    public static let legacyMaximumLength = 31
    /// The limit of extended Advertising Data (Vol 4 Part E §7.8.54): 1650 octets.
    public static let extendedMaximumLength = 1650

    @inlinable
    init(validated bytes: ArraySlice<UInt8>, count: Int) {
        self.bytes = bytes
        self.count = count
    }

    /// An empty block.
    public init() { self.init(validated: [], count: 0) }

    /// A block of the given structures, in order (each already checked when it was made; the
    /// length limits of an advertising PDU are `AdvertisingDataBuilder`'s concern).
    public init(_ structures: some Sequence<ADStructure>) {
        var writer = ByteWriter()
        var count = 0
        for structure in structures {
            structure.encode(into: &writer)
            count &+= 1
        }
        self.init(validated: writer.bytes[...], count: count)
    }

    /// Decodes a block, reporting which structure is at fault on malformed input.
    public static func decode(_ bytes: ArraySlice<UInt8>) throws(AdvertisingDataDecodeError)
        -> AdvertisingData
    {
        var reader = ByteReader(bytes, context: "Advertising Data")
        return try parse(&reader)
    }

    public static func decode(_ bytes: [UInt8]) throws(AdvertisingDataDecodeError) -> AdvertisingData {
        try decode(bytes[...])
    }

    /// Consumes the rest of the reader: an AD block has no length of its own.
    public init(from reader: inout ByteReader) throws(DecodeError) {
        do {
            self = try Self.parse(&reader)
        } catch {
            throw error.error
        }
    }

    @usableFromInline
    static func parse(_ reader: inout ByteReader) throws(AdvertisingDataDecodeError) -> AdvertisingData {
        reader.context = "Advertising Data"
        let base = reader.offset
        let block = reader.rest()
        // Walk raw memory (the closure is non-escaping: nothing is allocated): slicing the array
        // per structure would retain and release its buffer each time, which costs more than the
        // checks themselves.
        let outcome = block.withUnsafeBufferPointer { walk($0, base: base) }
        switch outcome {
        case .success(let length, let count):
            return AdvertisingData(
                validated: block[block.startIndex..<(block.startIndex &+ length)], count: count)
        case .failure(let error):
            throw error
        }
    }

    enum WalkOutcome {
        case success(length: Int, count: Int)
        case failure(AdvertisingDataDecodeError)
    }

    /// Checks every structure of `block` up to its end or a zero Length. `base` is the offset of
    /// the block in the decoder's input, for error offsets.
    static func walk(_ block: UnsafeBufferPointer<UInt8>, base: Int) -> WalkOutcome {
        let context: StaticString = "Advertising Data"
        let end = block.count
        var index = 0
        var count = 0
        while index < end {
            let length = Int(block[index])
            if length == 0 { break }
            let offset = base &+ index
            let available = end &- index &- 1
            if length > available {
                return .failure(
                    AdvertisingDataDecodeError(
                        structureIndex: count, structureOffset: offset,
                        type: available > 0 ? ADType(rawValue: block[index &+ 1]) : nil,
                        error: DecodeError(
                            context: context, field: "Length", offset: offset,
                            reason: .truncated(needed: length, available: available))))
            }
            let type = ADType(rawValue: block[index &+ 1])
            let next = index &+ 1 &+ length
            do {
                try ADStructure.validate(
                    type: type, data: block[(index &+ 2)..<next], context: context, at: offset)
            } catch {
                return .failure(
                    AdvertisingDataDecodeError(
                        structureIndex: count, structureOffset: offset, type: type, error: error))
            }
            count &+= 1
            index = next
        }
        return .success(length: index, count: count)
    }

    public func encode(into writer: inout ByteWriter) {
        writer.append(bytes)
    }

    /// The block followed by zeros up to `length` octets (the non-significant part), as the
    /// fixed 31-octet field of HCI LE Set Advertising Data wants it. A longer block is returned
    /// unpadded.
    public func padded(toLength length: Int = AdvertisingData.legacyMaximumLength) -> [UInt8] {
        var out = Array(bytes)
        if out.count < length { out.append(contentsOf: repeatElement(0, count: length - out.count)) }
        return out
    }

    /// The structures, read from `bytes` as they are visited.
    public var structures: Structures { Structures(bytes: bytes, count: count) }

    /// The structures of a block, in order; indices are positions in `AdvertisingData.bytes`.
    public struct Structures: Collection, Sendable {
        public let bytes: ArraySlice<UInt8>
        public let count: Int

        @inlinable public var startIndex: Int { bytes.startIndex }
        @inlinable public var endIndex: Int { bytes.endIndex }

        @inlinable
        public func index(after i: Int) -> Int { i &+ 1 &+ Int(bytes[i]) }

        @inlinable
        public subscript(position: Int) -> ADStructure {
            let next = position &+ 1 &+ Int(bytes[position])
            return ADStructure(
                unchecked: ADType(rawValue: bytes[position &+ 1]), data: bytes[(position &+ 2)..<next])
        }
    }

    public var rendered: RenderedValue { .array(structures.map(\.rendered)) }
}

/// Malformed advertising data (Core 5.4 Vol 3 Part C §11, CSS Part A): which structure (counted
/// from 0) is at fault, where it starts, its type when one was read, and the field-level error.
public struct AdvertisingDataDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var structureIndex: Int
    /// Offset of the structure's Length octet in the decoder's input.
    public var structureOffset: Int
    public var type: ADType?
    public var error: DecodeError

    public init(structureIndex: Int, structureOffset: Int, type: ADType?, error: DecodeError) {
        self.structureIndex = structureIndex
        self.structureOffset = structureOffset
        self.type = type
        self.error = error
    }

    /// "AD structure 1 (Tx Power Level (0x0A)) at offset 3: …".
    public var description: String {
        let what = type.map { " (\($0))" } ?? ""
        return "AD structure \(structureIndex)\(what) at offset \(structureOffset): \(error)"
    }
}

extension AdvertisingData {
    /// The typed value of every structure, in order.
    public var values: [ADValue] { structures.map(\.value) }

    /// The first structure of `type`.
    public subscript(type: ADType) -> ADStructure? { structures.first { $0.type == type } }

    /// The Complete Local Name if present, else the Shortened Local Name (CSS Part A §1.2).
    public var localName: String? {
        var shortened: String? = nil
        for structure in structures {
            switch structure.value {
            case .localName(true, let name): return name
            case .localName(false, let name) where shortened == nil: shortened = name
            default: continue
            }
        }
        return shortened
    }

    /// True when the block carries the Complete Local Name (not only a shortened one).
    public var hasCompleteLocalName: Bool { self[.completeLocalName] != nil }

    /// Flags, if present (CSS Part A §1.3).
    public var flags: ADFlags? {
        guard let structure = self[.flags] else { return nil }
        return ADFlags(rawValue: structure.data.first ?? 0)
    }

    /// Every service UUID of every list, complete or not, in order of appearance.
    public var serviceUUIDs: [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for structure in structures {
            if case .serviceUUIDs(_, let uuids) = structure.value { result.append(contentsOf: uuids) }
        }
        return result
    }

    /// Every solicited service UUID, in order of appearance.
    public var solicitedServiceUUIDs: [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for structure in structures {
            if case .solicitedServiceUUIDs(let uuids) = structure.value { result.append(contentsOf: uuids) }
        }
        return result
    }

    /// Manufacturer Specific Data by company identifier; the first structure wins for a company
    /// that appears twice.
    public var manufacturerData: [UInt16: ArraySlice<UInt8>] {
        var result: [UInt16: ArraySlice<UInt8>] = [:]
        for structure in structures {
            if case .manufacturerData(let company, let data) = structure.value, result[company] == nil {
                result[company] = data
            }
        }
        return result
    }

    /// Service Data by UUID (16-, 32- and 128-bit forms merged); the first structure wins.
    public var serviceData: [BluetoothUUID: ArraySlice<UInt8>] {
        var result: [BluetoothUUID: ArraySlice<UInt8>] = [:]
        for structure in structures {
            if case .serviceData(let uuid, let data) = structure.value, result[uuid] == nil {
                result[uuid] = data
            }
        }
        return result
    }

    /// Tx Power Level in dBm, if present.
    public var txPowerLevel: Int8? {
        guard case .txPowerLevel(let dBm)? = self[.txPowerLevel]?.value else { return nil }
        return dBm
    }

    /// Appearance, if present.
    public var appearance: ADAppearance? {
        guard case .appearance(let appearance)? = self[.appearance]?.value else { return nil }
        return appearance
    }
}
