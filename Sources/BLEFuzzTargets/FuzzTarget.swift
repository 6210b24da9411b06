/// The fuzz targets: one per decoder of untrusted input, the renderer, and the stateful
/// machines that take untrusted input one packet at a time (`scripts/fuzz`, Fuzz/README.md).
///
/// Each target takes any octets, decodes, renders or drives with them, and checks what the code
/// promises (a round trip, a bound, a count). A trap is a crash libFuzzer reports; a broken
/// promise is a `FuzzFailure`, turned into a crash by the libFuzzer entry and into a test
/// failure by the corpus replay (Tests/BLEFuzzTests).
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// H4 byte stream framing (`H4StreamParser`), fed in chunks.
    case h4Stream = "h4-stream"
    /// HCI event packets (`HCIEvent`), with Command Complete return parameters by the table.
    case hciEvent = "hci-event"
    /// HCI command packets and their parameters by the command table.
    case hciCommand = "hci-command"
    /// ACL packets through L2CAP reassembly, then the fixed channel's decoder.
    case aclReassembly = "acl-reassembly"
    /// LE signalling channel commands (`L2CAPSignal`).
    case l2capSignalling = "l2cap-signalling"
    /// ATT PDUs (`ATTPDU`).
    case att
    /// SMP commands (`SMPCommand`).
    case smp
    /// Advertising and scan response data (`AdvertisingData`).
    case advertisingData = "advertising-data"
    /// btsnoop capture files (`BTSnoopReader`), every record decoded and rendered.
    case btsnoop
    /// Device-protocol frames (`DeviceFrameParser`) and the headset's messages.
    case deviceFrames = "device-frames"
    /// The one rendering (`Rendering`), text and JSON, of any H4 packet down to ATT/SMP.
    case render
    /// The GATT server state machine fed ATT PDUs on two connections.
    case gattServer = "gatt-server"
    /// The GATT description `ble serve --gatt` reads (`GATTDocument`), parsed and published.
    case gattJSON = "gatt-json"
    /// A host fed controller events and ACL data after its start-up.
    case host
    /// A virtual controller fed HCI commands and ACL data by its host.
    case controller
    /// The credit based channel machine fed signalling commands and K-frames.
    case l2capChannels = "l2cap-channels"
    /// A pairing initiator and responder fed SMP commands, each other's and hostile ones.
    case smpSession = "smp-session"
    /// A bond's GATT state as a bond file keeps it (`BondBlobs`).
    case bondBlobs = "bond-blobs"
    /// A firmware file (`FirmwareFile`): raw, Intel HEX, MCUboot, a Nordic DFU zip.
    case firmwareFile = "firmware-file"

    /// Runs the target on one input.
    package func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        switch self {
        case .h4Stream: try WireTargets.h4Stream(bytes)
        case .hciEvent: try WireTargets.hciEvent(bytes)
        case .hciCommand: try WireTargets.hciCommand(bytes)
        case .aclReassembly: try WireTargets.aclReassembly(bytes)
        case .l2capSignalling: try WireTargets.l2capSignalling(bytes)
        case .att: try WireTargets.att(bytes)
        case .smp: try WireTargets.smp(bytes)
        case .advertisingData: try WireTargets.advertisingData(bytes)
        case .btsnoop: try WireTargets.btsnoop(bytes)
        case .deviceFrames: try DeviceFrameTarget.run(bytes)
        case .render: try WireTargets.render(bytes)
        case .gattServer: try GATTServerTarget.run(bytes)
        case .gattJSON: try GATTJSONTarget.run(bytes)
        case .host: try HostTarget.run(bytes)
        case .controller: try ControllerTarget.run(bytes)
        case .l2capChannels: try CreditChannelsTarget.run(bytes)
        case .smpSession: try SMPSessionTarget.run(bytes)
        case .bondBlobs: try BondBlobsTarget.run(bytes)
        case .firmwareFile: try FirmwareFileTarget.run(bytes)
        }
    }

    /// The longest input worth trying (libFuzzer's -max_len): a btsnoop file or a stream of
    /// packets needs more than one PDU does, a GATT description with a few services more still.
    package var maximumInputLength: Int {
        switch self {
        case .gattJSON, .firmwareFile: 8192
        case .h4Stream, .btsnoop, .host, .controller, .gattServer, .deviceFrames, .aclReassembly, .l2capChannels,
            .smpSession:
            4096
        case .hciEvent, .hciCommand, .l2capSignalling, .att, .smp, .advertisingData, .render, .bondBlobs: 512
        }
    }
}

/// A promise a target checks that did not hold.
package struct FuzzFailure: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }
}

/// Throws `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFailure) {
    if !condition { throw FuzzFailure(message()) }
}
