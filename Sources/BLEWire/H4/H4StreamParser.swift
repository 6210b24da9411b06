/// Why an H4 byte stream cannot be framed any further (Core 5.4 Vol 4 Part A §2).
///
/// The UART transport has no resynchronisation: after a bad packet indicator or an
/// impossible length, no later octet can be trusted to start a packet, so the parser stays
/// failed and the transport is expected to close (or reset the controller).
public enum H4StreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An octet where a packet indicator was due is not 0x01–0x05. `offset` counts octets
    /// from the start of the stream.
    case unknownPacketType(octet: UInt8, offset: Int)
    /// A header declares more data octets than the parser's limit for that type.
    case packetTooLong(type: H4PacketType, declaredLength: Int, maximum: Int, offset: Int)

    /// Stream offset of the packet indicator of the offending packet.
    public var offset: Int {
        switch self {
        case .unknownPacketType(_, let offset), .packetTooLong(_, _, _, let offset): offset
        }
    }

    public var description: String {
        switch self {
        case .unknownPacketType(let octet, let offset):
            "H4 stream: unknown packet type \(Hex.prefixed(octet, width: 2)) at offset \(offset)"
        case .packetTooLong(let type, let declared, let maximum, let offset):
            "H4 stream: \(type) packet at offset \(offset) declares \(declared) octets, limit \(maximum)"
        }
    }
}

/// Splits a UART transport byte stream into H4 packets (Core 5.4 Vol 4 Part A §2).
///
/// A socket read may end anywhere: feed chunks as they arrive, then call `next()` until it
/// returns nil (more octets needed).
///
/// Cost: packets that lie wholly inside a fed chunk are parsed in place — their payload is a
/// slice sharing the chunk's storage, nothing is copied. Only a packet that straddles chunks is
/// copied, once, into a fresh array sized from its (limit-checked) header; that array is handed
/// out with the packet and never appended to again, so no copy-on-write of a shared buffer can
/// happen. The parser's own buffer therefore never holds more than one incomplete packet.
///
/// On an unknown packet indicator or a length above the limit, `next()` throws and keeps
/// throwing the same error; later input is ignored.
public struct H4StreamParser: Sendable {
    /// The largest data length accepted per packet type. A host that knows its controller's
    /// buffer sizes can reject absurd packets early; the default is what the format allows.
    public struct Limits: Sendable, Hashable {
        public var command: Int
        public var acl: Int
        public var sco: Int
        public var event: Int
        public var iso: Int

        public init(
            command: Int = 0xFF, acl: Int = 0xFFFF, sco: Int = 0xFF, event: Int = 0xFF, iso: Int = 0x3FFF
        ) {
            self.command = command
            self.acl = acl
            self.sco = sco
            self.event = event
            self.iso = iso
        }

        /// The largest length each header can express: nothing is rejected for its length.
        public static let formatMaximum = Limits()

        /// The same limit for every type (each still capped by its format maximum).
        public static func uniform(_ maximum: Int) -> Limits {
            Limits(
                command: min(maximum, 0xFF), acl: min(maximum, 0xFFFF), sco: min(maximum, 0xFF),
                event: min(maximum, 0xFF), iso: min(maximum, 0x3FFF))
        }

        @inlinable
        public func maximum(for type: H4PacketType) -> Int {
            switch type {
            case .command: command
            case .acl: acl
            case .sco: sco
            case .event: event
            case .iso: iso
            }
        }
    }

    public let limits: Limits

    /// The unread part of the chunk being parsed in place (shares the caller's storage).
    private var current: ArraySlice<UInt8> = []
    /// Chunks fed while `current` was still unread, in order, from `queueHead`.
    private var queued: [ArraySlice<UInt8>] = []
    private var queueHead = 0
    /// The beginning of a packet that straddles chunks, indicator included.
    private var partial: [UInt8] = []
    private var partialType: H4PacketType = .event
    /// Total octets of the packet in `partial`, or 0 while its header is incomplete.
    private var partialTotal = 0
    /// Stream offset of the next packet's indicator.
    public private(set) var offset = 0
    /// The error that stopped the parser, if any.
    public private(set) var failure: H4StreamError?

    public init(limits: Limits = .formatMaximum) {
        self.limits = limits
    }

    /// Octets fed but not yet returned in a packet.
    public var pendingByteCount: Int {
        var count = partial.count &+ current.count
        for index in queueHead..<queued.count { count &+= queued[index].count }
        return count
    }

    /// Octets of an incomplete packet held in the parser's own buffer (the only octets it
    /// copies).
    public var bufferedByteCount: Int { partial.count }

    /// Adds octets read from the transport. Ignored once the parser has failed.
    public mutating func feed(_ chunk: ArraySlice<UInt8>) {
        if failure != nil || chunk.isEmpty { return }
        if current.isEmpty && queueHead == queued.count {
            current = chunk
        } else {
            queued.append(chunk)
        }
    }

    public mutating func feed(_ chunk: [UInt8]) {
        feed(chunk[...])
    }

    /// Feeds `chunk` and returns every packet completed so far. On an error the packets of
    /// this chunk that preceded it are lost with the stream; use `feed` and `next` to keep them.
    public mutating func packets(from chunk: ArraySlice<UInt8>) throws(H4StreamError) -> [H4Packet] {
        feed(chunk)
        var packets: [H4Packet] = []
        while let packet = try next() {
            packets.append(packet)
        }
        return packets
    }

    public mutating func packets(from chunk: [UInt8]) throws(H4StreamError) -> [H4Packet] {
        try packets(from: chunk[...])
    }

    /// The next complete packet, or nil when more octets are needed.
    public mutating func next() throws(H4StreamError) -> H4Packet? {
        if let failure { throw failure }
        while true {
            if current.isEmpty && !popQueued() { return nil }
            if partial.isEmpty {
                if let packet = try parseInPlace() { return packet }
            } else if let packet = try completePartial() {
                return packet
            }
        }
    }

    /// Fast path: a packet starting in `current`. Returns nil after moving an incomplete tail
    /// into `partial`.
    private mutating func parseInPlace() throws(H4StreamError) -> H4Packet? {
        let start = current.startIndex
        let indicator = current[start]
        guard let type = H4PacketType(rawValue: indicator) else {
            throw fail(.unknownPacketType(octet: indicator, offset: offset))
        }
        let headerEnd = start &+ 1 &+ HCIPacketHeader.length(of: type)
        if headerEnd <= current.endIndex {
            let length = HCIPacketHeader.unsafeDeclaredDataLength(of: type, in: current, at: start &+ 1)
            let maximum = limits.maximum(for: type)
            if length > maximum {
                throw fail(
                    .packetTooLong(type: type, declaredLength: length, maximum: maximum, offset: offset))
            }
            let end = headerEnd &+ length
            if end <= current.endIndex {
                let packet = H4Packet(type: type, payload: current[(start &+ 1)..<end])
                offset &+= end &- start
                current = end == current.endIndex ? [] : current[end...]
                return packet
            }
            partialTotal = end &- start
            // Sized from a length already checked against the limit.
            partial.reserveCapacity(partialTotal)
        }
        partialType = type
        partial.append(contentsOf: current)
        current = []
        return nil
    }

    /// Slow path: completes the packet in `partial` from `current`.
    private mutating func completePartial() throws(H4StreamError) -> H4Packet? {
        let type = partialType
        if partialTotal == 0 {
            let headerTotal = 1 &+ HCIPacketHeader.length(of: type)
            take(upTo: headerTotal)
            if partial.count < headerTotal { return nil }
            let length = HCIPacketHeader.unsafeDeclaredDataLength(of: type, in: partial[...], at: 1)
            let maximum = limits.maximum(for: type)
            if length > maximum {
                throw fail(
                    .packetTooLong(type: type, declaredLength: length, maximum: maximum, offset: offset))
            }
            partialTotal = headerTotal &+ length
            partial.reserveCapacity(partialTotal)
        }
        take(upTo: partialTotal)
        guard partial.count == partialTotal else { return nil }
        // Hand the array out and start afresh: it is never appended to again, so the
        // payload slice is its only owner and nothing is copied.
        let bytes = partial
        partial = []
        partialTotal = 0
        offset &+= bytes.count
        return H4Packet(type: type, payload: bytes[1...])
    }

    /// Moves octets from `current` into `partial` until it holds `total`.
    private mutating func take(upTo total: Int) {
        let count = min(total &- partial.count, current.count)
        guard count > 0 else { return }
        let end = current.startIndex &+ count
        partial.append(contentsOf: current[current.startIndex..<end])
        current = end == current.endIndex ? [] : current[end...]
    }

    private mutating func popQueued() -> Bool {
        guard queueHead < queued.count else { return false }
        current = queued[queueHead]
        queued[queueHead] = []
        queueHead &+= 1
        if queueHead == queued.count {
            queued.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        return true
    }

    private mutating func fail(_ error: H4StreamError) -> H4StreamError {
        failure = error
        current = []
        queued = []
        queueHead = 0
        partial = []
        partialTotal = 0
        return error
    }
}
