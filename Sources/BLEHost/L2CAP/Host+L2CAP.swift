import BLETransport
import BLEWire

extension Host {
    /// Queues an L2CAP PDU (basic frame) on a link's fixed channel.
    func sendL2CAP(_ payload: [UInt8], channel: L2CAPChannelID, on handle: ConnectionHandle, priority: ACLScheduler.Priority) {
        var writer = ByteWriter(capacity: payload.count + 4)
        L2CAPBasicFrame(channelID: channel, payload: payload[...]).encode(into: &writer)
        sendL2CAPFrame(writer.bytes, on: handle, priority: priority)
    }

    /// Queues a basic frame already encoded (header included).
    func sendL2CAPFrame(_ frame: [UInt8], on handle: ConnectionHandle, priority: ACLScheduler.Priority) {
        acl.enqueue(frame, on: handle, priority: priority)
        pumpACL()
    }

    /// `pdu` as a basic frame on the ATT channel (Vol 3 Part A §3.1), encoded in one buffer
    /// behind its header; nil, with the PDU's length, when it is longer than `mtu` (Vol 3
    /// Part F §3.2.8).
    static func attFrame(_ pdu: ATTPDU, mtu: Int) -> Result<[UInt8], ATTBearerError> {
        var writer = ByteWriter(capacity: 4 + mtu)
        writer.u16(0)
        writer.u16(L2CAPChannelID.att.rawValue)
        pdu.encode(into: &writer)
        let length = writer.count - 4
        guard length <= mtu else { return .failure(.pduTooLong(length: length, mtu: mtu)) }
        writer.bytes[0] = UInt8(truncatingIfNeeded: length)
        writer.bytes[1] = UInt8(truncatingIfNeeded: length >> 8)
        return .success(writer.bytes)
    }

    /// Sends the ACL packets the controller's buffers allow, and tells waiters about room.
    func pumpACL() {
        defer { if securityManagers.awaitsDelivery { releaseDeliveredPairings() } }
        acl.nextPackets(into: &aclOutbox)
        guard !aclOutbox.isEmpty else { return wakeReadinessWaiters() }
        for packet in aclOutbox {
            if let inPlaceTransport, inPlaceTransport.takesWireBytes {
                // The pipe takes H4 bytes as they go on a wire: built here in one buffer.
                if tracesPackets { trace("tx", H4Packet(acl: packet)) }
                var writer = ByteWriter(capacity: 5 + packet.data.count)
                writer.u8(H4PacketType.acl.rawValue)
                packet.encode(into: &writer)
                do throws(HCITransportError) {
                    try inPlaceTransport.sendNow(wire: writer.bytes)
                } catch {
                    sendFailed(H4Packet(acl: packet), error)
                }
            } else {
                transmit(H4Packet(acl: packet))
            }
        }
        aclOutbox.removeAll(keepingCapacity: true)
        wakeReadinessWaiters()
    }

    /// ACL data from the controller: reassemble, then route by fixed channel
    /// (Core 5.4 Vol 3 Part A §2.1).
    func receivedACL(_ packet: ACLPacket) {
        guard connections[packet.handle] != nil else { return holdEarlyACL(packet) }
        let frame: L2CAPBasicFrame
        switch reassembler.push(packet) {
        case .frame(let whole): frame = whole
        case .incomplete: return
        case let result:
            for error in result.errors {
                statistics.droppedL2CAPFragments += 1
                logger.notice("\(error)")
            }
            guard let whole = result.frame else { return }
            frame = whole
        }
        switch frame.channelID {
        case .att:
            receivedATT(frame.payload, on: packet.handle)
        case .leSignaling:
            receivedSignal(frame.payload, on: packet.handle)
        case .smp:
            receivedSMP(frame.payload, on: packet.handle)
        default:
            // A credit based channel's K-frame (Vol 3 Part A §3.4.3).
            if L2CAPChannelID.leDynamicRange.contains(frame.channelID.rawValue),
                receivedKFrame(frame.payload, cid: frame.channelID, on: packet.handle)
            {
                return
            }
            // A dynamic CID no channel has, and unknown fixed channels, are ignored (Vol 3 Part A §2.1: "shall be discarded").
            statistics.framesOnUnservedChannels += 1
            logger.notice(
                """
                dropped an L2CAP frame on \(frame.channelID) of handle \(packet.handle) \
                (\(frame.payload.count) octets): no such channel served
                """)
        }
    }

    /// The most ACL packets held for links whose LE Connection Complete has not arrived.
    static let earlyACLLimit = 16

    /// ACL data for a handle the host does not know yet. Events and ACL data may reach the host
    /// by different paths (on USB, the interrupt and bulk endpoints: Core 5.4 Vol 4 Part B), so
    /// the peer's first packets can overtake the LE Connection Complete event of their link
    /// (Vol 4 Part E §7.7.65.1). A few are held and delivered when the link comes up; the oldest
    /// go first when the bound is reached, so a stray handle cannot grow memory.
    private func holdEarlyACL(_ packet: ACLPacket) {
        if earlyACL.count >= Self.earlyACLLimit {
            let dropped = earlyACL.removeFirst()
            statistics.aclForUnknownHandle += 1
            logger.warning(
                """
                dropped an ACL packet for handle \(dropped.handle) \
                (\(dropped.data.count) octets): no such connection, and \(Self.earlyACLLimit) packets wait already
                """)
        }
        logger.debug("holding an ACL packet for handle \(packet.handle) until its link is up")
        earlyACL.append(packet)
    }

    /// The link `handle` came up: the ACL data that arrived before it, in order.
    func deliverEarlyACL(for handle: ConnectionHandle) {
        guard earlyACL.contains(where: { $0.handle == handle }) else { return }
        let early = earlyACL.filter { $0.handle == handle }
        earlyACL.removeAll { $0.handle == handle }
        for packet in early { receivedACL(packet) }
    }

    /// LE signalling (Vol 3 Part A §4): reject what this host does not implement yet, so the
    /// peer is never left waiting.
    private func receivedSignal(_ payload: ArraySlice<UInt8>, on handle: ConnectionHandle) {
        let signal: L2CAPSignal
        do throws(DecodeError) {
            signal = try L2CAPSignal(decoding: payload)
        } catch {
            statistics.badL2CAPSignals += 1
            logger.warning("dropped an LE signalling packet on handle \(handle) that does not decode: \(error)")
            return
        }
        // Credit based channels (§4.6, §4.22–§4.27) are theirs to answer.
        if receivedChannelSignal(signal, on: handle) { return }
        switch signal.command {
        case .connectionParameterUpdateRequest(let request):
            receivedParameterUpdateRequest(request, identifier: signal.identifier, on: handle)
        case .connectionParameterUpdateResponse(let response):
            receivedParameterUpdateResponse(response, identifier: signal.identifier, on: handle)
        case .commandReject, .disconnectionResponse,
            .leCreditBasedConnectionResponse, .creditBasedConnectionResponse, .creditBasedReconfigureResponse,
            .flowControlCreditIndication:
            return
        default:
            let reject = L2CAPSignal(
                identifier: signal.identifier, command: .commandReject(.init(reason: .commandNotUnderstood)))
            sendL2CAP(reject.encoded, channel: .leSignaling, on: handle, priority: .signaling)
        }
    }
}
