import ArgumentParser
import BLEWire

/// `ble demo --wire-tour`: a heart-rate sensor advertises, a phone connects, exchanges the MTU,
/// discovers services and receives a notification too long for one ACL buffer.
struct DemoStory {
    let showBytes: Bool
    /// Every packet, in order, as (direction, H4 bytes).
    private var wire: [(String, [UInt8])] = []

    init(showBytes: Bool) { self.showBytes = showBytes }

    mutating func tell() throws {
        let sensor = BluetoothAddress(0xC47C_8D6A_1234)
        let phone = BluetoothAddress(0x7A99_B601_0203)  // a resolvable private address

        print("swift-ble demo — the wire layer (BLEWire). The virtual radio and the host are not built")
        print("yet; here every packet of a short connection is built as a value, sent as H4 bytes,")
        print("and decoded again.")

        section("1. The sensor builds its advertising data (Core Vol 3 Part C §11)")
        var builder = AdvertisingDataBuilder()
        try builder.append(.flags([.leGeneralDiscoverable, .brEdrNotSupported]))
        try builder.append(.serviceUUIDs(complete: true, [BluetoothUUID(0x180D), BluetoothUUID(0x180F)]))
        try builder.append(.manufacturerData(companyID: 0xFFFF, data: [0xC4, 0x7C, 0x8D, 0x6A, 0x12, 0x34]))
        try builder.appendLocalName("Heart Rate Sensor HRS-1")
        let advertisingData = try builder.build(limit: .legacy)
        print("  \(advertisingData.encoded.count) of 31 octets; the name was shortened to fit:")
        for structure in advertisingData.structures { print("    \(structure)") }
        var tooMuch = builder
        try tooMuch.append(.serviceUUIDs(complete: false, [BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!]))
        do {
            _ = try tooMuch.build(limit: .legacy)
        } catch {
            print("  adding a 128-bit UUID is refused: \(error)")
        }

        section("2. The sensor's host tells its controller to advertise (HCI commands)")
        send(
            "host → controller",
            .command(
                HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0x00A0, advertisingIntervalMax: 0x00A0).packet))
        send("host → controller", .command(HCI.LESetAdvertisingData(advertisingData: advertisingData.encoded).packet))
        send("host → controller", .command(HCI.LESetAdvertisingEnable(advertisingEnable: true).packet))
        send(
            "controller → host",
            .event(.commandComplete(.init(HCI.LESetAdvertisingEnable.self, returnParameters: .init()))))

        section("3. The phone scans and sees it (LE Advertising Report)")
        let report = LEMetaEvent.AdvertisingReport.Report(
            eventType: .advInd, address: LEAddress(sensor, type: .public), data: advertisingData.encoded[...], rssi: -58
        )
        send("controller → host", .event(.le(.advertisingReport(.init(reports: [report])))))

        section("4. They connect; the phone asks for a larger ATT MTU")
        send(
            "controller → host",
            .event(
                .le(
                    .connectionComplete(
                        .init(
                            connectionHandle: 0x0040, role: .central, peerAddress: LEAddress(sensor, type: .public),
                            connectionInterval: 24, peripheralLatency: 0, supervisionTimeout: 72,
                            centralClockAccuracy: 0)))))
        print("  (the sensor's controller reports the same link from the other side:)")
        let peripheralSide = LEMetaEvent.ConnectionComplete(
            connectionHandle: 0x0040, role: .peripheral, peerAddress: LEAddress(phone, type: .random),
            connectionInterval: 24, peripheralLatency: 0, supervisionTimeout: 72, centralClockAccuracy: 0)
        print("  \(HCIPacket.event(.le(.connectionComplete(peripheralSide))))")
        sendATT("host → controller", .exchangeMTURequest(.init(clientRxMTU: 247)))
        sendATT("controller → host", .exchangeMTUResponse(.init(serverRxMTU: 247)))

        section("5. Primary service discovery (ATT Read By Group Type)")
        sendATT(
            "host → controller",
            .readByGroupTypeRequest(.init(startingHandle: 0x0001, endingHandle: 0xFFFF, attributeGroupType: 0x2800)))
        if let services = ATT.ReadByGroupTypeResponse(entries: [
            .init(handle: 0x0001, endGroupHandle: 0x0005, value: [0x00, 0x18]),
            .init(handle: 0x0006, endGroupHandle: 0x000B, value: [0x0D, 0x18]),
            .init(handle: 0x000C, endGroupHandle: 0xFFFF, value: [0x0F, 0x18]),
        ]) {
            sendATT("controller → host", .readByGroupTypeResponse(services))
        }

        section("6. A 200-octet notification crosses 27-octet ACL buffers (L2CAP fragmentation)")
        let value = (0..<200).map { UInt8($0 & 0xFF) }
        let notification = ATTPDU.handleValueNotification(.init(handle: 0x0008, value: value[...]))
        let frame = L2CAPBasicFrame(channelID: .att, payload: notification.encoded[...])
        let fragments = L2CAPFragmenter(maximumDataLength: 27, firstBoundary: .firstFlushable)
            .fragments(of: frame, handle: 0x0040)
        print("  one \(frame.encoded.count)-octet L2CAP PDU → \(fragments.count) ACL fragments")
        for fragment in fragments { record("controller → host", .acl(fragment), quiet: true) }
        send(
            "controller → host",
            .event(.numberOfCompletedPackets(.init(entries: [.init(connectionHandle: 0x0040, numCompletedPackets: 2)])))
        )

        section("7. All of it as one byte stream, parsed again in 7-octet chunks")
        try replay()
    }

    private func section(_ title: String) {
        print("\n" + title)
    }

    private mutating func send(_ direction: String, _ packet: HCIPacket) {
        record(direction, packet, quiet: false)
    }

    private mutating func sendATT(_ direction: String, _ pdu: ATTPDU) {
        let frame = L2CAPBasicFrame(channelID: .att, payload: pdu.encoded[...])
        let boundary: ACLPacketBoundary = direction.hasPrefix("host") ? .firstNonFlushable : .firstFlushable
        send(direction, .acl(ACLPacket(handle: 0x0040, packetBoundary: boundary, data: frame.encoded[...])))
    }

    private mutating func record(_ direction: String, _ packet: HCIPacket, quiet: Bool) {
        let h4 = packet.h4.encoded
        wire.append((direction, h4))
        guard !quiet else { return }
        print("  \(direction): \(packet)")
        if showBytes { print("    \(Hex.string(h4))") }
    }

    /// Concatenates every packet, cuts the stream into 7-octet chunks, parses, reassembles and
    /// checks that each packet comes back identical.
    private func replay() throws {
        let stream = wire.flatMap(\.1)
        var parser = H4StreamParser()
        var reassembler = L2CAPReassembler()
        var parsed: [[UInt8]] = []
        var reassembled: [L2CAPBasicFrame] = []
        var start = 0
        while start < stream.count {
            let end = min(start + 7, stream.count)
            parser.feed(stream[start..<end])
            while let packet = try parser.next() {
                parsed.append(packet.encoded)
                if case .acl(let acl) = try HCIPacket(packet), let frame = reassembler.push(acl).frame {
                    reassembled.append(frame)
                }
            }
            start = end
        }
        let identical = parsed == wire.map(\.1)
        print(
            "  \(stream.count) octets in \((stream.count + 6) / 7) chunks → \(parsed.count) packets,", terminator: " ")
        print("identical to what was sent: \(identical ? "yes" : "NO")")
        if let last = reassembled.last {
            print("  the fragmented notification reassembled: \(try L2CAPChannelPayload(last))")
        }
        if !identical { throw DecodeFailure(message: "the replayed stream differs from what was sent") }
    }
}
