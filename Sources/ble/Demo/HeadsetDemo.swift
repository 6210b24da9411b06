import BLE
import BLEWire
import BLEController
import BLECompanion
import BLEDevices
import BLESimulation
import Synchronization

/// `ble demo`: the whole story of a wearable and its app, told through swift-ble's public API on
/// the virtual radio. A headset (`VirtualHeadset`) advertises its MAC; the phone finds it by that
/// MAC, remembers it (`KnownDevices`), connects, opens the headset protocol (`DeviceLink`),
/// prints gestures and sensor events as they come, runs a job on the headset's heartbeats
/// (`DeviceTickScheduler`), asks the firmware version, and updates it (`OTAEngine`): packets
/// faulted on the way in are resent from the packet the headset names, the link is lost
/// mid-transfer (the headset walks out of range) and the `Reconnector` brings it back, a second
/// run resumes from the headset's own count, and the headset verifies the image and swaps slots.
/// It restarts at a new address with the same MAC, and the reconnector finds it again by that
/// MAC and re-binds its record.
enum HeadsetDemo {
    static let mac = BluetoothAddress(0x0000_5E00_5340)
    /// The headset's controller addresses before and after the update (its MAC stays).
    static let firstAddress = BluetoothAddress(0x0000_5E00_53A1)
    static let secondAddress = BluetoothAddress(0x0000_5E00_53B2)
    static let imageSize = 256 * 1024
    static let newVersion = "2.0.0"
    /// One incoming OTA packet in 250 is dropped or corrupted, from a fixed seed.
    static let faultRate = 0.004
    static let seed: UInt64 = 7
    /// 30 ms interval (24 × 1.25 ms), 1 s supervision timeout (100 × 10 ms).
    static let connectOptions = ConnectOptions(
        connectionParameters: HCI.ConnectionParameters(
            connectionIntervalMin: 24, connectionIntervalMax: 24, supervisionTimeout: 100))
    /// The link before negotiation: LE 1M, LL payloads of 27 octets, 30 ms.
    static let link = LinkTiming(interval: .milliseconds(30), phy: .le1M, maxOctets: 27)
    /// The phone controller's ACL buffers (the virtual controller's default).
    static let phoneACLBuffers = Int(VirtualController.Configuration().aclBufferCount)
    static let outOfRange = AirPosition(x: 100_000)
    static let outage = Duration.milliseconds(1500)

    /// Gestures and sensor events the wearer makes, once, from the headset's start.
    static let script: [ScriptedHeadsetEvent] = [
        ScriptedHeadsetEvent(after: .milliseconds(2800), .gesture(.tap)),
        ScriptedHeadsetEvent(after: .milliseconds(400), .gesture(.swipeUp)),
        ScriptedHeadsetEvent(after: .milliseconds(300), .proximity(.near)),
        ScriptedHeadsetEvent(after: .milliseconds(500), .volume(40)),
        ScriptedHeadsetEvent(after: .milliseconds(200), .audioJack(.pluggedIn)),
        ScriptedHeadsetEvent(after: .milliseconds(600), .gesture(.backLongPress)),
        ScriptedHeadsetEvent(after: .milliseconds(300), .openCamera),
    ]

    /// - Parameter phoneHost: the phone's host settings (its logger: `ble demo --log-level`).
    static func run(capturePath: String? = nil, phoneHost: HostConfiguration = HostConfiguration()) async throws {
        let stage = try DemoStage(capturePath: capturePath)
        let (radio, phoneRadio, log) = (stage.radio, stage.phoneRadio, stage.log)
        let (story, wall) = try await stage.perform(
            banner: "a headset and its phone app, each a swift-ble host on its own virtual controller,\n"
        ) {
            try await HeadsetStory(radio: radio, phoneRadio: phoneRadio, phoneHost: phoneHost, log: log).tell()
        }
        print("")
        for line in HeadsetDemoSummary(story: story, wall: wall).lines { print(line) }
        try stage.finishCapture()
    }

    /// The image: 256 KiB of seeded noise (firmware does not compress either), version 2.0.0.
    static func image() throws -> FirmwareImage {
        try FirmwareImage(bytes: firmwareBytes(count: imageSize, seed: seed), version: newVersion)
    }

    /// `count` bytes of seeded noise, the demo's stand-in for firmware.
    static func firmwareBytes(count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededRandomGenerator(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next().littleEndian) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }

    static func describe(_ message: HeadsetDeviceMessage) -> String? {
        switch message {
        case .gesture(let gesture): "gesture \(gesture)"
        case .proximity(let proximity): "proximity \(proximity)"
        case .audioJack(let jack): "audio jack \(jack)"
        case .volume(let volume): "volume \(volume) %"
        case .battery(let level): "battery \(level) %"
        case .openCamera: "open the camera"
        default: nil
        }
    }
}
