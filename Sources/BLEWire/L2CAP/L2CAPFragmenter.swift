/// Splits L2CAP PDUs into HCI ACL data packets no longer than the controller's buffer
/// (Core 5.4 Vol 3 Part A §7.2; boundary flags in Vol 4 Part E §5.4.2).
///
/// The first fragment carries `firstBoundary` — `.firstNonFlushable` from an LE host to its
/// controller, `.firstFlushable` from a controller to its host — and the rest `.continuing`.
/// Fragments are slices of the PDU: fragmenting copies nothing.
public struct L2CAPFragmenter: Sendable, Hashable {
    /// The most data octets per ACL packet (e.g. LE ACL Data Packet Length from
    /// LE Read Buffer Size, Vol 4 Part E §7.8.2). Clamped to 1...65,535.
    public let maximumDataLength: Int
    public let firstBoundary: ACLPacketBoundary
    public let broadcast: ACLBroadcastFlag

    public init(
        maximumDataLength: Int, firstBoundary: ACLPacketBoundary = .firstNonFlushable,
        broadcast: ACLBroadcastFlag = .pointToPoint
    ) {
        self.maximumDataLength = max(1, min(maximumDataLength, ACLPacket.maximumDataLength))
        self.firstBoundary = firstBoundary
        self.broadcast = broadcast
    }

    /// The fragments of `pdu` (a whole L2CAP PDU, header included) on `handle`. An empty PDU
    /// gives no fragments.
    public func fragments(of pdu: ArraySlice<UInt8>, handle: ConnectionHandle) -> L2CAPFragments {
        L2CAPFragments(pdu: pdu, handle: handle, fragmenter: self)
    }

    public func fragments(of pdu: [UInt8], handle: ConnectionHandle) -> L2CAPFragments {
        fragments(of: pdu[...], handle: handle)
    }

    /// Encodes `frame` once and fragments it.
    public func fragments(of frame: L2CAPBasicFrame, handle: ConnectionHandle) -> L2CAPFragments {
        fragments(of: frame.encoded[...], handle: handle)
    }
}

/// The ACL fragments of one L2CAP PDU, computed on access (no array is built).
public struct L2CAPFragments: RandomAccessCollection, Sendable, Hashable {
    public let pdu: ArraySlice<UInt8>
    public let handle: ConnectionHandle
    public let fragmenter: L2CAPFragmenter

    @inlinable public var startIndex: Int { 0 }

    @inlinable
    public var endIndex: Int {
        let size = fragmenter.maximumDataLength
        return pdu.count / size &+ (pdu.count % size == 0 ? 0 : 1)
    }

    @inlinable
    public subscript(position: Int) -> ACLPacket {
        precondition(position >= 0 && position < endIndex, "fragment index out of range")
        let size = fragmenter.maximumDataLength
        let lower = pdu.startIndex &+ position &* size
        let upper = Swift.min(lower &+ size, pdu.endIndex)
        return ACLPacket(
            handle: handle, packetBoundary: position == 0 ? fragmenter.firstBoundary : .continuing,
            broadcast: fragmenter.broadcast, data: pdu[lower..<upper])
    }
}
