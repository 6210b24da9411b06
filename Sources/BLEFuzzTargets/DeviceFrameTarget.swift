import BLECompanion

/// Device-protocol frames from a peer (notifications or writes in chunks of any size): the
/// parser accounts for every octet (a frame, discarded, or buffered), a frame re-encodes to
/// the octets it came from, and the headset's messages decode to a value that encodes back.
enum DeviceFrameTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var input = FuzzInput(bytes)
        let maximum = input.u8() & 1 == 0 ? DeviceFrame.defaultMaximumPayloadLength : Int(input.u16() % 300)
        var parser = DeviceFrameParser(maximumPayloadLength: maximum)
        var appended = 0
        var framed = 0
        while !input.isEmpty {
            let chunk = input.take(Int(input.u8() % 40) + 1)
            appended += chunk.count
            for result in parser.append(chunk) {
                switch result {
                case .success(let frame):
                    framed += frame.encoded.count
                    try require(frame.payload.count <= parser.maximumPayloadLength, "frame over the maximum")
                    try message(HeadsetAppMessage.self, frame)
                    try message(HeadsetDeviceMessage.self, frame)
                case .failure(let error):
                    _ = "\(error)"
                }
            }
            try require(
                framed + parser.discardedOctets + parser.bufferedOctets == appended,
                "\(appended) appended ≠ \(framed) framed + \(parser.discardedOctets) discarded + \(parser.bufferedOctets) buffered")
        }
    }

    private static func message<M: DeviceProtocolMessage>(_ type: M.Type, _ frame: DeviceFrame) throws(FuzzFailure) {
        guard let decoded = try? M(frame: frame) else { return }
        let again = try? M(messageType: decoded.messageType, payload: decoded.payload[...])
        try require(again == decoded, "\(M.self): \(decoded) does not survive encode → decode")
        _ = "\(decoded)"
    }
}
