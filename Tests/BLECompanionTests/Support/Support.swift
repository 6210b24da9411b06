import BLE
import BLECompanion
import Testing

/// A test that cannot go on.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Parses hex test vectors ("A5 10 04").
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index..<next], radix: 16) else { fatalError("bad test vector \(text)") }
        bytes.append(byte)
        index = next
    }
    return bytes
}

/// Every message of both directions, with the values at the edges of their ranges.
enum Samples {
    static let sha256 = Array(0..<32 as Range<UInt8>)

    static let deviceMessages: [HeadsetDeviceMessage] =
        HeadsetProtocol.Proximity.allCases.map { .proximity($0) }
        + HeadsetProtocol.AudioJack.allCases.map { .audioJack($0) }
        + [.volume(0), .volume(55), .volume(100)]
        + HeadsetProtocol.Gesture.allCases.map { .gesture($0) }
        + [.battery(0), .battery(100), .heartbeat(0), .heartbeat(.max), .openCamera]
        + [.macAddress(BluetoothAddress(0x0000_5E00_5310)), .macAddress(BluetoothAddress(0xFFFF_FFFF_FFFF))]
        + [.firmwareVersion(""), .firmwareVersion("1.2.3"), .firmwareVersion(String(repeating: "9", count: 32))]
        + HeadsetProtocol.MCUResponse.allCases.map { .mcuResponse($0) }
        + HeadsetProtocol.OTAResult.allCases.map { .otaResult($0) }
        + [.otaResend(packet: 0), .otaResend(packet: .max)]
        + [
            .otaStatus(.init(receivedBytes: 0, nextPacket: 0)),
            .otaStatus(.init(receivedBytes: .max, nextPacket: .max)),
        ]
        + [.otaAcknowledged(nextPacket: 7)]
        + [.otaResendPacket(0), .otaResendPacket(.max)]

    static let appMessages: [HeadsetAppMessage] = [
        .firmwareVersionQuery, .macAddressQuery, .otaStatusQuery, .otaCommit, .otaAbort,
        .otaStart(.init(imageSize: 262_144, packetLength: 230, sha256: sha256, version: "2.0.0")),
        .otaStart(.init(imageSize: 0, packetLength: 1, sha256: sha256, version: "")),
        .otaData(.init(packet: 5, data: [0xDE, 0xAD, 0xBE, 0xEF])),
        .otaData(.init(packet: .max, crc32: 0, data: Array(repeating: 0xA5, count: 230))),
        .setHeartbeatPeriod(seconds: 0), .setHeartbeatPeriod(seconds: 60),
    ]
}
