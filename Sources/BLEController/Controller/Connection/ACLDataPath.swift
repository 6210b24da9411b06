import BLEWire

// ACL data between host and controller (Core 5.4 Vol 4 Part E §4.1, §5.4.2) and its flow
// control: the host may have at most Total_Num_LE_ACL_Data_Packets packets of at most
// LE_ACL_Data_Packet_Length octets in the controller; each is returned by Number Of Completed
// Packets once the peer has acknowledged all of it (§7.7.19).

extension VirtualController {
    /// An HCI ACL packet from the host.
    ///
    /// A packet for no live connection is discarded (the host counts packets of a closed
    /// handle as flushed, §7.7.5). A packet beyond the buffers the controller advertised, or
    /// longer than one buffer, is lost and reported with Data Buffer Overflow (§7.7.26).
    func receiveHostACL(_ packet: ACLPacket) {
        guard let connection = connections[packet.handle] else {
            statistics.aclForUnknownHandle += 1
            logger.notice("dropped an ACL packet from the host for handle \(packet.handle.rawValue): no such connection")
            return
        }
        guard packet.data.count <= Int(configuration.aclBufferSize),
            aclPacketsInController < Int(configuration.aclBufferCount)
        else {
            statistics.bufferOverflows += 1
            logger.warning(
                "dropped an ACL packet of \(packet.data.count) octets: over the controller's buffers (§7.7.26)")
            send(.dataBufferOverflow(.init(linkType: .acl)))
            return
        }
        aclPacketsInController += 1
        connection.hostPacketsHeld += 1
        let start: Bool
        switch packet.packetBoundary {
        case .continuing: start = false
        case .firstNonFlushable, .firstFlushable, .complete: start = true
        }
        if packet.data.isEmpty {
            // Nothing to send: the buffer is free again at once.
            connection.completedPackets += 1
            reportCompletedPackets(connection)
            return
        }
        connection.transmit.enqueue(hostData: packet.data, start: start)
    }

    /// Number Of Completed Packets for what the peer acknowledged on `c`: when the connection
    /// event ends, or earlier as `Configuration.completedPacketsReporting` says; never before the
    /// peer has the data.
    func reportCompletedPackets(_ c: Connection) {
        guard c.completedPackets > 0, connections[c.handle] === c else { return }
        let count = c.completedPackets
        c.completedPackets = 0
        c.hostPacketsHeld -= count
        aclPacketsInController -= count
        send(
            .numberOfCompletedPackets(
                .init(entries: [.init(connectionHandle: c.handle, numCompletedPackets: UInt16(count))])))
    }

    /// Data from the peer toward the host, cut to the host's ACL packet length: the first
    /// piece of an L2CAP PDU start is flagged as an automatically flushable start (0b10), the
    /// rest as continuations (§5.4.2).
    func deliverToHost(_ data: LinkLayerData, on c: Connection) {
        let length = max(1, Int(hostACLDataPacketLength))
        let payload = data.payload
        var offset = payload.startIndex
        while offset < payload.endIndex {
            let end = min(payload.endIndex, offset + length)
            let first = offset == payload.startIndex
            let boundary: ACLPacketBoundary = (first && data.start) ? .firstFlushable : .continuing
            sendACL(ACLPacket(handle: c.handle, packetBoundary: boundary, data: payload[offset..<end]))
            offset = end
        }
    }
}
