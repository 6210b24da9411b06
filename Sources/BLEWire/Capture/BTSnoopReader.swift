/// Reads a btsnoop file record by record, from untrusted bytes (see `BTSnoop` for the layout).
///
/// The file header is checked when the reader is made: a wrong identification pattern, a
/// version other than 1 or a datalink other than H4 (1002) or unframed HCI (1001) throws
/// `DecodeError`. `next()` then returns one record at a time and throws at the first damaged
/// one — a record cut short, or one claiming to keep more octets than the packet had — after
/// every record before it was returned. Offsets in errors count from the start of the file.
/// Records are slices of the input: nothing is copied.
public struct BTSnoopReader: Sendable {
    public let datalink: BTSnoopDatalink
    private var reader: ByteReader
    /// Records returned so far.
    public private(set) var recordCount = 0

    /// Reads the file header of `bytes`.
    public init(_ bytes: ArraySlice<UInt8>) throws(DecodeError) {
        var reader = ByteReader(bytes, context: "btsnoop file header")
        try reader.require(BTSnoop.identificationPattern.count, "Identification Pattern")
        let pattern = try reader.take(BTSnoop.identificationPattern.count, "Identification Pattern")
        guard pattern.elementsEqual(BTSnoop.identificationPattern) else {
            throw reader.error(
                "Identification Pattern", .invalidValue(pattern.reduce(0) { $0 << 8 | UInt64($1) }), at: 0)
        }
        let version = try reader.bigEndianU32("Version Number")
        guard version == BTSnoop.version else {
            throw reader.error("Version Number", .invalidValue(UInt64(version)), at: reader.offset &- 4)
        }
        let datalinkValue = try reader.bigEndianU32("Datalink Type")
        guard let datalink = BTSnoopDatalink(rawValue: datalinkValue) else {
            throw reader.error("Datalink Type", .invalidValue(UInt64(datalinkValue)), at: reader.offset &- 4)
        }
        self.datalink = datalink
        reader.context = "btsnoop record"
        self.reader = reader
    }

    public init(_ bytes: [UInt8]) throws(DecodeError) {
        try self.init(bytes[...])
    }

    /// Offset in the file of the next record.
    public var offset: Int { reader.offset }

    /// The next record, or nil at the end of the file.
    public mutating func next() throws(DecodeError) -> BTSnoopRecord? {
        guard !reader.isAtEnd else { return nil }
        // Work on a copy so a damaged record leaves the reader at its start.
        var cursor = reader
        let originalLength = try cursor.bigEndianU32("Original Length")
        let includedOffset = cursor.offset
        let includedLength = try cursor.bigEndianU32("Included Length")
        let flags = try cursor.bigEndianU32("Packet Flags")
        let drops = try cursor.bigEndianU32("Cumulative Drops")
        let timestamp = try cursor.bigEndianU64("Timestamp Microseconds")
        guard includedLength <= originalLength else {
            throw cursor.error(
                "Included Length", .outOfRange(value: Int(includedLength), allowed: 0...Int(originalLength)),
                at: includedOffset)
        }
        let data = try cursor.take(Int(includedLength), "Packet Data")
        reader = cursor
        recordCount += 1
        return BTSnoopRecord(
            originalLength: originalLength, direction: flags & 1 == 0 ? .sent : .received,
            isCommandOrEvent: flags & 2 != 0, cumulativeDrops: drops,
            timestamp: BTSnoopTimestamp(microsecondsSinceYearZero: Int64(bitPattern: timestamp)), data: data)
    }
}

/// Builds a btsnoop file in memory: the file header, then records as they are appended.
public struct BTSnoopWriter: Sendable {
    public let datalink: BTSnoopDatalink
    /// The file so far.
    public private(set) var bytes: [UInt8]

    public init(datalink: BTSnoopDatalink = .h4) {
        self.datalink = datalink
        bytes = Self.fileHeader(datalink: datalink)
    }

    /// The 16-octet file header.
    public static func fileHeader(datalink: BTSnoopDatalink) -> [UInt8] {
        var header = BTSnoop.identificationPattern
        header.appendBigEndian(BTSnoop.version)
        header.appendBigEndian(datalink.rawValue)
        return header
    }

    public mutating func append(_ record: BTSnoopRecord) {
        bytes += record.encoded
    }

    /// Appends a whole packet as a record of this file's datalink.
    public mutating func append(_ packet: H4Packet, direction: BTSnoopDirection, timestamp: BTSnoopTimestamp) {
        append(BTSnoopRecord(packet: packet, direction: direction, timestamp: timestamp, datalink: datalink))
    }
}

extension ByteReader {
    /// btsnoop is big-endian, unlike Bluetooth's own fields.
    fileprivate mutating func bigEndianU32(_ field: StaticString) throws(DecodeError) -> UInt32 {
        let octets = try take(4, field)
        return octets.reduce(0) { $0 << 8 | UInt32($1) }
    }

    fileprivate mutating func bigEndianU64(_ field: StaticString) throws(DecodeError) -> UInt64 {
        let octets = try take(8, field)
        return octets.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
