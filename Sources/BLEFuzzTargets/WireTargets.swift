import BLEWire

/// The decoders of `BLEWire`, each on untrusted octets: a typed error or a value that encodes
/// back to itself (decode → encode → decode gives an equal value) and renders.
enum WireTargets {
    /// Decodes `bytes` as `T`; a value must survive encode → decode and render.
    @discardableResult
    static func decodeAndCheck<T: WireCodable & Equatable>(_ type: T.Type, _ bytes: ArraySlice<UInt8>) throws(FuzzFailure)
        -> T?
    {
        guard let value = try? T(decoding: bytes) else { return nil }
        try roundTrip(value)
        try RenderingCheck.check(value, "\(T.self)")
        return value
    }

    /// decode(encode(value)) == value.
    static func roundTrip<T: WireCodable & Equatable>(_ value: T) throws(FuzzFailure) {
        let encoded = value.encoded
        let again: T
        do {
            again = try T(decoding: encoded)
        } catch {
            throw FuzzFailure("\(T.self): its own encoding \(Hex.string(encoded)) does not decode: \(error)")
        }
        try require(again == value, "\(T.self): \(Hex.string(encoded)) decodes to another value")
    }

    // MARK: Targets

    /// The H4 framing, fed in chunks the input chooses: every octet ends in a packet, in the
    /// parser's pending count, or at the offset of a typed error; packets come out in order.
    static func h4Stream(_ bytes: [UInt8]) throws(FuzzFailure) {
        var input = FuzzInput(bytes)
        let limits = input.u8() & 1 == 0 ? H4StreamParser.Limits.formatMaximum : .uniform(Int(input.u8()) + 4)
        var parser = H4StreamParser(limits: limits)
        var fed = 0
        var framed = 0
        var failedAt: Int?
        while !input.isEmpty, failedAt == nil {
            let chunk = input.take(Int(input.u8() % 64) + 1)
            parser.feed(chunk)
            fed += chunk.count
            var packets: [H4Packet] = []
            do {
                while let packet = try parser.next() { packets.append(packet) }
            } catch {
                failedAt = error.offset
            }
            for packet in packets {
                framed += 1 + packet.payload.count
                if let decoded = try? HCIPacket(packet) { try RenderingCheck.check(decoded, "HCIPacket") }
            }
        }
        if let failedAt {
            try require(failedAt == framed, "H4 error at \(failedAt) after \(framed) framed octets")
        } else {
            try require(framed + parser.pendingByteCount == fed, "H4: \(fed) fed, \(framed) framed, \(parser.pendingByteCount) pending")
        }
    }

    /// An HCI event; a Command Complete's return parameters also through the command table.
    static func hciEvent(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let event = try decodeAndCheck(HCIEvent.self, bytes[...]) else { return }
        if case .commandComplete(let complete) = event,
            let decode = HCICommandTable.entry(for: complete.opcode)?.decodeReturnParameters,
            let parameters = try? decode(complete.returnParameters)
        {
            let encoded = parameters.encoded
            guard let again = try? decode(encoded[...]) else {
                throw FuzzFailure("\(type(of: parameters)): its own encoding \(Hex.string(encoded)) does not decode")
            }
            try require(again.encoded == encoded, "\(type(of: parameters)): encoding is not a fixed point")
            try RenderingCheck.check(parameters, "\(type(of: parameters))")
        }
    }

    /// An HCI command packet, and its parameters through the command table: the typed command's
    /// encoding decodes to a command that encodes the same.
    static func hciCommand(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let packet = try decodeAndCheck(HCICommandPacket.self, bytes[...]) else { return }
        guard let entry = HCICommandTable.entry(for: packet.opcode), let command = try? entry.decode(packet.parameters)
        else { return }
        let encoded = command.encoded
        guard let again = try? entry.decode(encoded[...]) else {
            throw FuzzFailure("\(entry.name): its own encoding \(Hex.string(encoded)) does not decode")
        }
        try require(again.encoded == encoded, "\(entry.name): encoding is not a fixed point")
        try RenderingCheck.check(command, entry.name)
    }

    /// ACL packets (each length-prefixed in the input) through one reassembler: every complete
    /// PDU's payload goes to its fixed channel's decoder; every fragment is accounted for.
    static func aclReassembly(_ bytes: [UInt8]) throws(FuzzFailure) {
        var input = FuzzInput(bytes)
        let maximum = input.u8() & 1 == 0 ? L2CAPBasicFrame.maximumPayloadLength : Int(input.u16() % 600)
        var reassembler = L2CAPReassembler(maximumPayloadLength: maximum)
        while !input.isEmpty {
            let header = input.u8()
            let handle = ConnectionHandle(UInt16(header & 0x03))
            let boundary = ACLPacketBoundary(rawValue: (header >> 2) & 0x03) ?? .continuing
            let data = input.chunk()
            let packet = ACLPacket(handle: handle, packetBoundary: boundary, data: data[...])
            try roundTrip(packet)
            let result = reassembler.push(packet)
            if let frame = result.frame {
                try require(frame.payload.count <= reassembler.maximumPayloadLength, "frame over the maximum")
                try roundTrip(frame)
                if let payload = try? L2CAPChannelPayload(frame) { try RenderingCheck.check(payload, "L2CAP payload") }
            }
            for error in result.errors { _ = error.description }
            try require(reassembler.incompletePDUCount <= 4, "more incomplete PDUs than handles")
        }
    }

    static func l2capSignalling(_ bytes: [UInt8]) throws(FuzzFailure) {
        try decodeAndCheck(L2CAPSignal.self, bytes[...])
    }

    static func att(_ bytes: [UInt8]) throws(FuzzFailure) {
        try decodeAndCheck(ATTPDU.self, bytes[...])
    }

    static func smp(_ bytes: [UInt8]) throws(FuzzFailure) {
        try decodeAndCheck(SMPCommand.self, bytes[...])
    }

    /// An AD block: the structures it counts are the ones visited, each with its typed value.
    static func advertisingData(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let data = try decodeAndCheck(AdvertisingData.self, bytes[...]) else { return }
        var visited = 0
        for structure in data.structures {
            visited += 1
            try RenderingCheck.check(structure.value, "ADValue")
        }
        try require(visited == data.count, "AdvertisingData counts \(data.count) structures, visits \(visited)")
    }

    /// A btsnoop file: every record until the end or a typed error, each as a packet.
    static func btsnoop(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard var reader = try? BTSnoopReader(bytes) else { return }
        var records = 0
        while records < 10_000 {
            let offset = reader.offset
            guard let record = try? reader.next() else { return }
            try require(reader.offset > offset, "btsnoop reader did not advance at \(offset)")
            records += 1
            _ = record.timestamp.description
            if let packet = try? record.packet(datalink: reader.datalink), let decoded = try? HCIPacket(packet) {
                try RenderingCheck.check(decoded, "btsnoop record \(records)")
            }
        }
    }

    /// Any single H4 packet, rendered through every layer it carries.
    static func render(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let packet = try? HCIPacket(h4: bytes) else { return }
        try RenderingCheck.check(packet, "HCIPacket")
    }
}
