// Parameter types shared by several HCI commands (Core 5.4 Vol 4 Part E §7.8).
//
// Enumerations keep values this version does not name as `.other(raw)`: deciding that a value is
// invalid is the controller's job (it answers 0x12 Invalid HCI Command Parameters), so decoding
// stays permissive about values and strict about lengths.

extension HCI {
    /// Own_Address_Type (Core 5.4 Vol 4 Part E §7.8.5, §7.8.10, §7.8.12): which address the
    /// controller uses for itself; the resolvable forms need the resolving list (LL privacy).
    public enum OwnAddressType: Hashable, Sendable {
        case `public`
        case random
        /// A resolvable private address from the resolving list, else the public address.
        case resolvableOrPublic
        /// A resolvable private address from the resolving list, else the random address.
        case resolvableOrRandom
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .public
            case 0x01: self = .random
            case 0x02: self = .resolvableOrPublic
            case 0x03: self = .resolvableOrRandom
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .public: 0x00
            case .random: 0x01
            case .resolvableOrPublic: 0x02
            case .resolvableOrRandom: 0x03
            case .other(let value): value
            }
        }
    }

    /// Advertising_Type of legacy advertising (Core 5.4 Vol 4 Part E §7.8.5).
    public enum AdvertisingType: Hashable, Sendable {
        /// ADV_IND: connectable and scannable undirected.
        case connectableUndirected
        /// ADV_DIRECT_IND, high duty cycle.
        case connectableDirectedHighDutyCycle
        /// ADV_SCAN_IND: scannable undirected.
        case scannableUndirected
        /// ADV_NONCONN_IND: non-connectable undirected.
        case nonConnectableUndirected
        /// ADV_DIRECT_IND, low duty cycle.
        case connectableDirectedLowDutyCycle
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .connectableUndirected
            case 0x01: self = .connectableDirectedHighDutyCycle
            case 0x02: self = .scannableUndirected
            case 0x03: self = .nonConnectableUndirected
            case 0x04: self = .connectableDirectedLowDutyCycle
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .connectableUndirected: 0x00
            case .connectableDirectedHighDutyCycle: 0x01
            case .scannableUndirected: 0x02
            case .nonConnectableUndirected: 0x03
            case .connectableDirectedLowDutyCycle: 0x04
            case .other(let value): value
            }
        }
    }

    /// Advertising_Channel_Map / Primary_Advertising_Channel_Map (Core 5.4 Vol 4 Part E §7.8.5,
    /// §7.8.53): which of the three primary advertising channels to use.
    public struct AdvertisingChannelMap: OptionSet, Hashable, Sendable, CustomRendering {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let channel37 = AdvertisingChannelMap(rawValue: 1 << 0)
        public static let channel38 = AdvertisingChannelMap(rawValue: 1 << 1)
        public static let channel39 = AdvertisingChannelMap(rawValue: 1 << 2)
        public static let all: AdvertisingChannelMap = [.channel37, .channel38, .channel39]

        static let bitNames: [(Int, String)] = [(0, "channel37"), (1, "channel38"), (2, "channel39")]
        public var rendered: RenderedValue {
            HCI.renderBits(UInt64(rawValue), width: 8, names: Self.bitNames)
        }
    }

    /// Advertising_Filter_Policy (Core 5.4 Vol 4 Part E §7.8.5, §7.8.53): which scan and
    /// connection requests the advertiser accepts.
    public enum AdvertisingFilterPolicy: Hashable, Sendable {
        /// Scan and connection requests from any device.
        case acceptAll
        /// Scan requests only from the Filter Accept List; connection requests from any device.
        case scanFilterAcceptList
        /// Scan requests from any device; connection requests only from the Filter Accept List.
        case connectFilterAcceptList
        /// Both only from the Filter Accept List.
        case scanAndConnectFilterAcceptList
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .acceptAll
            case 0x01: self = .scanFilterAcceptList
            case 0x02: self = .connectFilterAcceptList
            case 0x03: self = .scanAndConnectFilterAcceptList
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .acceptAll: 0x00
            case .scanFilterAcceptList: 0x01
            case .connectFilterAcceptList: 0x02
            case .scanAndConnectFilterAcceptList: 0x03
            case .other(let value): value
            }
        }
    }

    /// LE_Scan_Type / Scan_Type (Core 5.4 Vol 4 Part E §7.8.10, §7.8.64).
    public enum ScanType: Hashable, Sendable {
        /// No scan requests are sent.
        case passive
        /// Scan requests may be sent.
        case active
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .passive
            case 0x01: self = .active
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .passive: 0x00
            case .active: 0x01
            case .other(let value): value
            }
        }
    }

    /// Scanning_Filter_Policy (Core 5.4 Vol 4 Part E §7.8.10, §7.8.64). The extended policies
    /// additionally accept directed advertising whose target is a resolvable private address.
    public enum ScanningFilterPolicy: Hashable, Sendable {
        case basicUnfiltered
        /// Only advertisers in the Filter Accept List.
        case basicFiltered
        case extendedUnfiltered
        case extendedFiltered
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .basicUnfiltered
            case 0x01: self = .basicFiltered
            case 0x02: self = .extendedUnfiltered
            case 0x03: self = .extendedFiltered
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .basicUnfiltered: 0x00
            case .basicFiltered: 0x01
            case .extendedUnfiltered: 0x02
            case .extendedFiltered: 0x03
            case .other(let value): value
            }
        }
    }

    /// Initiator_Filter_Policy (Core 5.4 Vol 4 Part E §7.8.12, §7.8.66).
    public enum InitiatorFilterPolicy: Hashable, Sendable {
        /// Connect to the peer given by Peer_Address_Type and Peer_Address.
        case peerAddress
        /// Connect to any device in the Filter Accept List (the peer address is ignored).
        case filterAcceptList
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .peerAddress
            case 0x01: self = .filterAcceptList
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .peerAddress: 0x00
            case .filterAcceptList: 0x01
            case .other(let value): value
            }
        }
    }

    /// A 128-bit key or AES block as HCI carries it: little-endian, least significant octet first
    /// (Core 5.4 Vol 4 Part E §5.2; used by §7.8.22, §7.8.24, §7.8.25, §7.8.38).
    ///
    /// Stored as one integer so fixed-size commands decode without allocating; rendered as hex,
    /// most significant octet first, the order of the specification's sample data.
    public struct Key128: Hashable, Sendable, CustomStringConvertible, CustomRendering {
        public var value: UInt128

        public init(_ value: UInt128) { self.value = value }

        /// From 16 octets in wire order (least significant first); nil for another count.
        public init?(wireOctets octets: some Collection<UInt8>) {
            guard octets.count == 16 else { return nil }
            var value: UInt128 = 0
            for (i, octet) in octets.enumerated() { value |= UInt128(octet) << (8 * i) }
            self.value = value
        }

        /// The 16 octets in wire order.
        public var wireOctets: [UInt8] {
            (0..<16).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }

        public static let zero = Key128(0)

        public init(from reader: inout ByteReader, _ field: StaticString) throws(DecodeError) {
            try reader.require(16, field)
            let low = try reader.u64(field)
            let high = try reader.u64(field)
            value = UInt128(high) << 64 | UInt128(low)
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u64(UInt64(truncatingIfNeeded: value))
            writer.u64(UInt64(truncatingIfNeeded: value >> 64))
        }

        public var description: String { Hex.string(wireOctets.reversed()) }
        public var rendered: RenderedValue { .symbol(description) }
    }
}

// MARK: - Helpers shared by the command files

extension HCI {
    /// Renders a bit mask as the names of its set bits; bits without a name appear as "bitN" so
    /// nothing a controller sets is hidden.
    static func renderBits(_ raw: UInt64, width: Int, names: [(Int, String)]) -> RenderedValue {
        var items: [RenderedValue] = []
        for bit in 0..<width where raw & (1 << UInt64(bit)) != 0 {
            if let entry = names.first(where: { $0.0 == bit }) {
                items.append(.symbol(entry.1))
            } else {
                items.append(.symbol("bit\(bit)"))
            }
        }
        return .array(items)
    }

    /// True when a failed command's return parameters stop right after the status.
    ///
    /// Controllers commonly send only the status when a command fails (e.g. 0x01 Unknown HCI
    /// Command); the remaining fields then keep their zero defaults instead of failing to decode.
    @inlinable
    static func endsAfterFailure(_ status: HCIStatus, _ reader: ByteReader) -> Bool {
        !status.isSuccess && reader.isAtEnd
    }

    /// Reads a one-octet boolean whose only valid encodings are 0x00 and 0x01 (enable flags).
    /// Other values cannot be represented by `Bool`, so they are rejected here.
    @inlinable
    static func readFlag(_ reader: inout ByteReader, _ field: StaticString) throws(DecodeError) -> Bool {
        let offset = reader.offset
        switch try reader.u8(field) {
        case 0x00: return false
        case 0x01: return true
        case let value: throw reader.error(field, .invalidValue(UInt64(value)), at: offset)
        }
    }

    /// 0.625 ms units (advertising and scanning intervals, CE lengths) as milliseconds.
    @inlinable static func slotsToMilliseconds(_ units: UInt32) -> Double { Double(units) * 0.625 }
    /// 1.25 ms units (connection intervals) as milliseconds.
    @inlinable static func connectionUnitsToMilliseconds(_ units: UInt16) -> Double { Double(units) * 1.25 }
    /// 10 ms units (supervision timeouts, advertising and scan durations) as milliseconds.
    @inlinable static func tenMillisecondsToMilliseconds(_ units: UInt16) -> Double { Double(units) * 10 }
}
