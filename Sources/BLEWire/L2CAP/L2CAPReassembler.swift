/// Why the reassembler dropped a fragment or a PDU (Core 5.4 Vol 3 Part A §7.2,
/// Vol 4 Part E §5.4.2). Lengths named `…PDULength` count the whole PDU, basic header included.
public enum L2CAPReassemblyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A continuing fragment arrived with no PDU in progress on its handle; it is dropped.
    case continuationWithoutStart(handle: ConnectionHandle, fragmentLength: Int)
    /// The fragments carry more octets than the basic header declares; the whole PDU is
    /// dropped.
    case overlong(handle: ConnectionHandle, declaredPDULength: Int, receivedPDULength: Int)
    /// The basic header declares an information payload above the reassembler's maximum (the
    /// MTU); the PDU is dropped without buffering it.
    case payloadTooLarge(handle: ConnectionHandle, declaredLength: Int, maximum: Int)
    /// A start fragment arrived while a PDU on the same handle was incomplete: that PDU is
    /// discarded (the new start is still processed). `expectedPDULength` is nil when the
    /// discarded PDU had not yet delivered its 4-octet header.
    case incompletePDUDiscarded(handle: ConnectionHandle, receivedPDULength: Int, expectedPDULength: Int?)

    /// The connection the fault happened on.
    public var handle: ConnectionHandle {
        switch self {
        case .continuationWithoutStart(let handle, _), .overlong(let handle, _, _),
            .payloadTooLarge(let handle, _, _), .incompletePDUDiscarded(let handle, _, _):
            handle
        }
    }

    public var description: String {
        let on = "L2CAP reassembly on handle \(Hex.prefixed(handle.rawValue, width: 4))"
        switch self {
        case .continuationWithoutStart(_, let length):
            return "\(on): continuing fragment (\(length) octets) without a start fragment, dropped"
        case .overlong(_, let declared, let received):
            return "\(on): PDU declares \(declared) octets but fragments carry \(received), dropped"
        case .payloadTooLarge(_, let declared, let maximum):
            return "\(on): PDU declares a \(declared)-octet payload, maximum \(maximum), dropped"
        case .incompletePDUDiscarded(_, let received, let expected):
            let of = expected.map { " of \($0)" } ?? ""
            return "\(on): new start fragment, incomplete PDU (\(received)\(of) octets) discarded"
        }
    }
}

/// What one ACL fragment did to the reassembly (Core 5.4 Vol 3 Part A §7.2).
public enum L2CAPReassemblyResult: Sendable, Hashable {
    /// The fragment completed a PDU.
    case frame(L2CAPBasicFrame)
    /// The fragment was buffered; the PDU needs more.
    case incomplete
    /// The fragment (and the PDU it belonged to, if any) was dropped.
    case dropped(L2CAPReassemblyError)
    /// A start fragment arrived while a PDU on its handle was incomplete: that PDU was
    /// discarded (`discarded` is `.incompletePDUDiscarded`) and the start fragment was then
    /// processed as usual, with the outcome `then` (never itself `.restarted`). Only this case
    /// is boxed: a boxed enum would allocate for every frame.
    indirect case restarted(discarded: L2CAPReassemblyError, then: L2CAPReassemblyResult)

    /// The completed PDU, if this fragment completed one.
    public var frame: L2CAPBasicFrame? {
        switch self {
        case .frame(let frame): frame
        case .incomplete, .dropped: nil
        case .restarted(_, let then): then.frame
        }
    }

    /// Every fault this fragment reported, in order.
    public var errors: [L2CAPReassemblyError] {
        switch self {
        case .frame, .incomplete: []
        case .dropped(let error): [error]
        case .restarted(let discarded, let then): [discarded] + then.errors
        }
    }
}

/// Rebuilds L2CAP PDUs from HCI ACL data fragments, per connection handle (Core 5.4 Vol 3
/// Part A §7.2; packet boundary flags in Vol 4 Part E §5.4.2).
///
/// Feed every ACL packet in arrival order with `push(_:)`; handles may interleave. A start
/// fragment (any boundary flag but `.continuing`) begins a PDU of Length + 4 octets, even one
/// too short to hold its own 4-octet header; continuing fragments append. A start fragment
/// that holds a whole PDU is returned as a frame whose payload is a slice of the fragment,
/// without copying; a PDU in several fragments is copied once into a buffer sized from its
/// header after that header passed the maximum-size check. Call `reset(handle:)` when a
/// connection ends.
public struct L2CAPReassembler: Sendable {
    private struct Pending: Sendable {
        var handle: ConnectionHandle
        var bytes: [UInt8]
        /// Octets of the whole PDU, or 0 while its basic header is incomplete.
        var expected: Int
    }

    /// The largest information payload accepted (the channel MTU the host can receive).
    public let maximumPayloadLength: Int
    /// At most one PDU in progress per handle; a host has few connections, so a linear scan
    /// beats hashing.
    private var pending: [Pending] = []

    /// `maximumPayloadLength` is clamped to 0...65,535, what the Length field can express.
    public init(maximumPayloadLength: Int = L2CAPBasicFrame.maximumPayloadLength) {
        self.maximumPayloadLength = max(0, min(maximumPayloadLength, L2CAPBasicFrame.maximumPayloadLength))
    }

    /// True when a PDU on `handle` awaits more fragments.
    public func hasIncompletePDU(handle: ConnectionHandle) -> Bool {
        pendingIndex(ConnectionHandle(handle.rawValue & 0x0FFF)) != nil
    }

    /// Number of handles with a PDU in progress.
    public var incompletePDUCount: Int { pending.count }

    /// Forgets any partial PDU on `handle` (call on disconnection).
    public mutating func reset(handle: ConnectionHandle) {
        if let index = pendingIndex(ConnectionHandle(handle.rawValue & 0x0FFF)) { remove(at: index) }
    }

    /// Forgets every partial PDU.
    public mutating func reset() {
        pending.removeAll()
    }

    /// Processes one ACL fragment.
    public mutating func push(_ packet: ACLPacket) -> L2CAPReassemblyResult {
        let handle = ConnectionHandle(packet.handle.rawValue & 0x0FFF)
        let index = pendingIndex(handle)
        guard packet.packetBoundary.isStart else {
            guard let index else {
                return .dropped(.continuationWithoutStart(handle: handle, fragmentLength: packet.data.count))
            }
            return `continue`(at: index, with: packet.data)
        }
        guard let index else { return start(handle: handle, data: packet.data) }
        let old = pending[index]
        remove(at: index)
        let discarded = L2CAPReassemblyError.incompletePDUDiscarded(
            handle: handle, receivedPDULength: old.bytes.count,
            expectedPDULength: old.expected == 0 ? nil : old.expected)
        return .restarted(discarded: discarded, then: start(handle: handle, data: packet.data))
    }

    private mutating func start(handle: ConnectionHandle, data: ArraySlice<UInt8>) -> L2CAPReassemblyResult {
        let first = data.startIndex
        guard data.count >= L2CAPBasicFrame.headerLength else {
            // Too short for the header: keep the few octets until continuations complete it.
            pending.append(Pending(handle: handle, bytes: Array(data), expected: 0))
            return .incomplete
        }
        let length = Int(data[first]) | Int(data[first &+ 1]) << 8
        if length > maximumPayloadLength {
            return .dropped(
                .payloadTooLarge(handle: handle, declaredLength: length, maximum: maximumPayloadLength))
        }
        let total = length &+ L2CAPBasicFrame.headerLength
        if data.count == total {
            // Fast path: the whole PDU in one fragment, returned without copying.
            let channel = L2CAPChannelID(UInt16(data[first &+ 2]) | UInt16(data[first &+ 3]) << 8)
            return .frame(L2CAPBasicFrame(channelID: channel, payload: data[(first &+ 4)...]))
        }
        if data.count > total {
            return .dropped(
                .overlong(handle: handle, declaredPDULength: total, receivedPDULength: data.count))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(total)  // checked against the maximum above
        bytes.append(contentsOf: data)
        pending.append(Pending(handle: handle, bytes: bytes, expected: total))
        return .incomplete
    }

    private mutating func `continue`(at index: Int, with data: ArraySlice<UInt8>) -> L2CAPReassemblyResult {
        var rest = data
        if pending[index].expected == 0 {
            // The header is still incomplete: complete it first, then check the declared size.
            let needed = L2CAPBasicFrame.headerLength &- pending[index].bytes.count
            let split = rest.startIndex &+ min(needed, rest.count)
            pending[index].bytes.append(contentsOf: rest[..<split])
            rest = rest[split...]
            guard pending[index].bytes.count == L2CAPBasicFrame.headerLength else { return .incomplete }
            let length = Int(pending[index].bytes[0]) | Int(pending[index].bytes[1]) << 8
            if length > maximumPayloadLength {
                let handle = pending[index].handle
                remove(at: index)
                return .dropped(
                    .payloadTooLarge(handle: handle, declaredLength: length, maximum: maximumPayloadLength))
            }
            pending[index].expected = length &+ L2CAPBasicFrame.headerLength
            pending[index].bytes.reserveCapacity(pending[index].expected)
        }
        let received = pending[index].bytes.count &+ rest.count
        let expected = pending[index].expected
        if received > expected {
            let handle = pending[index].handle
            remove(at: index)
            return .dropped(
                .overlong(handle: handle, declaredPDULength: expected, receivedPDULength: received))
        }
        pending[index].bytes.append(contentsOf: rest)
        guard received == expected else { return .incomplete }
        // Move the buffer out so the frame's payload slice is its only owner.
        let bytes = pending[index].bytes
        remove(at: index)
        let channel = L2CAPChannelID(UInt16(bytes[2]) | UInt16(bytes[3]) << 8)
        return .frame(L2CAPBasicFrame(channelID: channel, payload: bytes[4...]))
    }

    private func pendingIndex(_ handle: ConnectionHandle) -> Int? {
        var index = 0
        while index < pending.count {
            if pending[index].handle == handle { return index }
            index &+= 1
        }
        return nil
    }

    /// Order does not matter: swap with the last and drop it.
    private mutating func remove(at index: Int) {
        let last = pending.count &- 1
        if index != last { pending.swapAt(index, last) }
        pending.removeLast()
    }
}
