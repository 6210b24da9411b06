import BLE

/// The headset protocol v1 (docs/headset-protocol.md): a wearable with a touch pad, a
/// proximity sensor and an audio jack talks to its phone app over one service's pair of
/// characteristics, in `DeviceFrame`s.
///
/// Message type codes 0x01–0x7F travel from the headset to the app (`HeadsetDeviceMessage`),
/// 0x81–0xFF from the app to the headset (`HeadsetAppMessage`), so a frame sent the wrong way
/// is an unknown message, not a misread one. Integers are little-endian.
public enum HeadsetProtocol: DeviceProtocol {
    public typealias ToDevice = HeadsetAppMessage
    public typealias ToApp = HeadsetDeviceMessage

    /// 7C1E0001-4B2A-4F5E-9D3B-6A8C2E5F1D00
    public static let serviceUUID = BluetoothUUID(high: 0x7C1E_0001_4B2A_4F5E, low: 0x9D3B_6A8C_2E5F_1D00)
    /// 7C1E0002-…: the app writes it without response.
    public static let toDeviceCharacteristicUUID = BluetoothUUID(
        high: 0x7C1E_0002_4B2A_4F5E, low: 0x9D3B_6A8C_2E5F_1D00)
    /// 7C1E0003-…: the headset notifies it.
    public static let toAppCharacteristicUUID = BluetoothUUID(
        high: 0x7C1E_0003_4B2A_4F5E, low: 0x9D3B_6A8C_2E5F_1D00)
    /// Enough for an OTA data packet in one notification-sized chunk at the largest ATT_MTU
    /// (517: 514 octets per chunk, 506 of payload).
    public static let maximumPayloadLength = 512

    /// The longest firmware version text, in UTF-8 octets.
    public static let maximumVersionLength = 32
    /// OTA data packet fields before the data: packet number, CRC-32.
    public static let otaDataHeaderLength = 6

    /// The most firmware octets an OTA data packet carries so that its frame fits one Write
    /// Command at `mtu` (ATT_MTU − 3 − frame overhead − packet header), at least 1.
    public static func maximumOTADataLength(forATTMTU mtu: Int) -> Int {
        max(1, min(mtu - 3, maximumPayloadLength + DeviceFrame.overhead) - DeviceFrame.overhead - otaDataHeaderLength)
    }

    // MARK: Field values

    /// The proximity sensor's reading (type 0x01).
    public enum Proximity: UInt8, Sendable, Hashable, CaseIterable {
        case near = 0
        case away = 1
        case error = 2
    }

    /// The audio jack (type 0x02).
    public enum AudioJack: UInt8, Sendable, Hashable, CaseIterable {
        case pluggedIn = 0
        case unplugged = 1
        case error = 2
    }

    /// A touch-pad gesture or back-button press (type 0x04).
    public enum Gesture: UInt8, Sendable, Hashable, CaseIterable {
        case swipeUp = 0
        case swipeDown = 1
        case swipeLeft = 2
        case swipeRight = 3
        case tap = 4
        case backShortPress = 5
        case backLongPress = 6
    }

    /// The MCU's answer to OTA start (type 0x0A).
    public enum MCUResponse: UInt8, Sendable, Hashable, CaseIterable {
        case enteredOTAMode = 0
        case batteryTooLow = 1
    }

    /// How an update ended (type 0x0B).
    public enum OTAResult: UInt8, Sendable, Hashable, CaseIterable {
        case success = 0
        case failure = 1
        /// The version in OTA start is not `major.minor.patch`.
        case versionFormatError = 2
        case restartFailure = 3
        /// The answer to OTA abort.
        case aborted = 4
        /// OTA start on a link that is not authenticated, where the headset requires one.
        case authenticationRequired = 5
    }

    /// OTA start (type 0x83): what the image is, before any of it is sent.
    public struct OTAStart: Sendable, Hashable {
        /// Octets in the whole image.
        public var imageSize: UInt32
        /// Firmware octets in every data packet but the last; packet n starts at n × this.
        public var packetLength: UInt16
        /// SHA-256 of the whole image (32 octets).
        public var sha256: [UInt8]
        /// The image's version, `major.minor.patch` (the headset checks the format).
        public var version: String

        public init(imageSize: UInt32, packetLength: UInt16, sha256: [UInt8], version: String) {
            self.imageSize = imageSize
            self.packetLength = packetLength
            self.sha256 = sha256
            self.version = version
        }
    }

    /// One OTA data packet (type 0x84).
    public struct OTAData: Sendable, Hashable {
        /// 0 for the image's first packet.
        public var packet: UInt16
        /// CRC-32 (IEEE) of `data`.
        public var crc32: UInt32
        public var data: [UInt8]

        public init(packet: UInt16, crc32: UInt32, data: [UInt8]) {
            self.packet = packet
            self.crc32 = crc32
            self.data = data
        }

        /// A packet of `data` with its CRC-32.
        public init(packet: UInt16, data: [UInt8]) {
            self.init(packet: packet, crc32: CRC32.checksum(data), data: data)
        }
    }

    /// Where an update stands (type 0x0D): what a resume starts from.
    public struct OTAStatus: Sendable, Hashable {
        /// Image octets received and verified so far.
        public var receivedBytes: UInt32
        /// The packet the headset expects next.
        public var nextPacket: UInt16

        public init(receivedBytes: UInt32, nextPacket: UInt16) {
            self.receivedBytes = receivedBytes
            self.nextPacket = nextPacket
        }
    }
}
