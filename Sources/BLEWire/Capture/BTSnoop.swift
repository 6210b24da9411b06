/// The btsnoop capture format: what BlueZ's btmon and Android's Bluetooth snoop log write, and
/// what Wireshark reads. A 16-octet file header, then one record per HCI packet; every integer
/// is big-endian (the format follows RFC 1761's snoop).
///
/// File header: identification pattern `btsnoop\0`, version 1, datalink type.
/// Record: original length, included length, packet flags, cumulative drops (four octets each),
/// a 64-bit timestamp in microseconds since midnight, 1 January of year 0 AD, then the included
/// octets of the packet.
public enum BTSnoop {
    /// `btsnoop\0`.
    public static let identificationPattern: [UInt8] = [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00]
    /// The only version of the format.
    public static let version: UInt32 = 1
    /// Octets of the file header.
    public static let fileHeaderLength = 16
    /// Octets of a record's header, before its packet data.
    public static let recordHeaderLength = 24
}

/// What the packets of a btsnoop file are.
public enum BTSnoopDatalink: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HCI packets without a packet indicator; the record's flags tell command, event and data
    /// apart (the type of a data packet is taken to be ACL).
    case hciUnframed = 1001
    /// HCI packets with the UART transport's packet indicator first (H4, Core 5.4 Vol 4 Part A
    /// §2). What swift-ble writes.
    case h4 = 1002

    public var description: String {
        switch self {
        case .hciUnframed: "HCI unframed (1001)"
        case .h4: "HCI UART, H4 (1002)"
        }
    }
}

/// Which way a packet crossed the host–controller interface (bit 0 of a record's flags).
public enum BTSnoopDirection: Sendable, Hashable, CustomStringConvertible {
    /// Host to controller (flag bit 0 clear).
    case sent
    /// Controller to host (flag bit 0 set).
    case received

    public var description: String {
        switch self {
        case .sent: "host → controller"
        case .received: "controller → host"
        }
    }
}

/// A record's time stamp: microseconds since midnight, 1 January of year 0 AD (the Gregorian
/// calendar run backwards), as btsnoop stores it.
public struct BTSnoopTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds from year 0 AD to the Unix epoch (1 January 1970, 00:00 UTC).
    public static let unixEpochOffset: Int64 = 0x00E0_3AB4_4A67_6000

    /// The value stored in the file.
    public var microsecondsSinceYearZero: Int64

    public init(microsecondsSinceYearZero: Int64) {
        self.microsecondsSinceYearZero = microsecondsSinceYearZero
    }

    /// A time given in microseconds since the Unix epoch (saturating at the format's range).
    public init(unixMicroseconds: Int64) {
        let (sum, overflow) = unixMicroseconds.addingReportingOverflow(Self.unixEpochOffset)
        microsecondsSinceYearZero = overflow ? .max : sum
    }

    /// Microseconds since the Unix epoch (saturating: a file may hold any 64-bit value).
    public var unixMicroseconds: Int64 {
        let (difference, overflow) = microsecondsSinceYearZero.subtractingReportingOverflow(Self.unixEpochOffset)
        return overflow ? .min : difference
    }

    public static func < (lhs: BTSnoopTimestamp, rhs: BTSnoopTimestamp) -> Bool {
        lhs.microsecondsSinceYearZero < rhs.microsecondsSinceYearZero
    }

    /// UTC, `YYYY-MM-DD hh:mm:ss.uuuuuu` (proleptic Gregorian; dates before year 1 are shown
    /// as offsets from the epoch).
    public var description: String {
        let micros = unixMicroseconds
        let (days, dayMicros) = Self.floorDivide(micros, 86_400_000_000)
        guard let civil = Self.civilDate(daysSinceEpoch: days), civil.year >= 1 else {
            return "\(micros) µs from the Unix epoch"
        }
        let seconds = dayMicros / 1_000_000
        let fraction = dayMicros % 1_000_000
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(civil.year, 4))-\(pad(civil.month, 2))-\(pad(civil.day, 2)) "
            + "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(fraction, 6))"
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm); nil far outside the
    /// calendar's useful range.
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64)? {
        guard abs(days) < 3_000_000_000 else { return nil }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// One record of a btsnoop file: a packet (or its first `data.count` octets), which way it
/// went, when, and how many packets were lost before it.
public struct BTSnoopRecord: Sendable, Hashable {
    /// The packet's length on the interface; more than `data.count` when the capture kept
    /// only the start of it.
    public var originalLength: UInt32
    public var direction: BTSnoopDirection
    /// Flag bit 1: a command or an event rather than data.
    public var isCommandOrEvent: Bool
    /// Packets lost since the capture began (as counted by the writer).
    public var cumulativeDrops: UInt32
    public var timestamp: BTSnoopTimestamp
    /// The octets kept (a slice of the file when read).
    public var data: ArraySlice<UInt8>

    public init(
        originalLength: UInt32, direction: BTSnoopDirection, isCommandOrEvent: Bool, cumulativeDrops: UInt32 = 0,
        timestamp: BTSnoopTimestamp, data: ArraySlice<UInt8>
    ) {
        self.originalLength = originalLength
        self.direction = direction
        self.isCommandOrEvent = isCommandOrEvent
        self.cumulativeDrops = cumulativeDrops
        self.timestamp = timestamp
        self.data = data
    }

    /// A whole packet as a record of `datalink`: its indicator first for `.h4`; without it for
    /// `.hciUnframed` (which cannot tell SCO and ISO from ACL).
    public init(
        packet: H4Packet, direction: BTSnoopDirection, timestamp: BTSnoopTimestamp, datalink: BTSnoopDatalink = .h4,
        cumulativeDrops: UInt32 = 0
    ) {
        let data: ArraySlice<UInt8> =
            switch datalink {
            case .h4: packet.encoded[...]
            case .hciUnframed: packet.payload
            }
        self.init(
            originalLength: UInt32(truncatingIfNeeded: data.count), direction: direction,
            isCommandOrEvent: packet.type == .command || packet.type == .event, cumulativeDrops: cumulativeDrops,
            timestamp: timestamp, data: data)
    }

    /// The record's flags field: bit 0 direction (set: received), bit 1 command or event.
    public var flags: UInt32 {
        (direction == .received ? 1 : 0) | (isCommandOrEvent ? 2 : 0)
    }

    /// True when the file kept fewer octets than the packet had.
    public var isSnapped: Bool { data.count < originalLength }

    /// The packet as H4, decoding the record's data as `datalink` carries it. A snapped record
    /// or a malformed packet gives the H4 decoder's error.
    public func packet(datalink: BTSnoopDatalink) throws(DecodeError) -> H4Packet {
        switch datalink {
        case .h4:
            return try H4Packet(decoding: data)
        case .hciUnframed:
            // Without an indicator the flags name the type: commands go out, events come in.
            let type: H4PacketType =
                switch (isCommandOrEvent, direction) {
                case (true, .sent): .command
                case (true, .received): .event
                case (false, _): .acl
                }
            return try H4Packet(decoding: [type.rawValue] + data)
        }
    }

    /// The record as stored: header, then data (big-endian).
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(BTSnoop.recordHeaderLength + data.count)
        bytes.appendBigEndian(originalLength)
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: data.count))
        bytes.appendBigEndian(flags)
        bytes.appendBigEndian(cumulativeDrops)
        bytes.appendBigEndian(UInt64(bitPattern: timestamp.microsecondsSinceYearZero))
        bytes.append(contentsOf: data)
        return bytes
    }
}

extension [UInt8] {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        var shift = T.bitWidth
        while shift > 0 {
            shift -= 8
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}
