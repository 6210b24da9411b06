import BLE
import BLECompanion
import BLEPhone

/// How the headset's phone app is built: what its Info.plist declares, which headset it looks
/// for, and the work it does in the background.
public struct HeadsetAppConfiguration: Sendable {
    public var declaration: AppDeclaration
    /// The central manager's restore identifier (state restoration), or nil.
    public var restoreIdentifier: String?
    /// The headset to connect to: the MAC address in its advertisement (nil: the first headset
    /// found).
    public var headsetMAC: BluetoothAddress?
    /// The app's own timer, on the app's clock (it stands while the app is suspended).
    public var appTimerPeriod: Duration
    /// The device-driven job: every this many heartbeat ticks of the headset.
    public var jobEveryTicks: Int
    /// Asks the headset for this heartbeat period once connected (`88`), or leaves its own.
    public var heartbeatPeriodSeconds: UInt16?
    public var connectOptions: PhoneConnectOptions
    /// On leaving the screen, begins a background task ("sync") and ends it only when its
    /// expiration handler is called — the pattern that uses the whole budget.
    public var syncsInBackground: Bool
    /// A voice prompt that ducks the user's music on a headset event (nil: none).
    public var voicePrompt: HeadsetVoicePrompt? = nil
    /// Turns a firmware file shared to the app (its bytes and name) into an image, or throws for
    /// a file that is not one. The default recognises the formats by content
    /// (`FirmwareFile.recognize`: raw with the version in the name, Intel HEX, MCUboot, Nordic
    /// DFU packages; docs/firmware-files.md).
    public var firmwareRecognizer: @Sendable ([UInt8], String) throws -> FirmwareImage = { bytes, name in
        try FirmwareFile.recognize(bytes: bytes, fileName: name).image
    }
    /// Replaces the app's own update once the user confirmed it; nil (the default): the app runs
    /// the OTA engine over its link to the headset (`HeadsetPhoneApp+FirmwareUpdate`).
    public var startFirmwareUpdate: (@Sendable (FirmwareImage) async -> Void)?
    /// The overnight check for new firmware (`checkingForUpdates()`; nil: none).
    public var updateCheck: HeadsetUpdateCheck? = nil
    /// How the app's OTA engine runs (timeouts, acknowledgement window, recoveries).
    public var otaConfiguration = OTAConfiguration()

    public init(
        declaration: AppDeclaration, restoreIdentifier: String? = nil,
        headsetMAC: BluetoothAddress? = nil, appTimerPeriod: Duration = .seconds(30),
        jobEveryTicks: Int = 10, heartbeatPeriodSeconds: UInt16? = nil,
        connectOptions: PhoneConnectOptions = PhoneConnectOptions(), syncsInBackground: Bool = false
    ) {
        self.declaration = declaration
        self.restoreIdentifier = restoreIdentifier
        self.headsetMAC = headsetMAC
        self.appTimerPeriod = appTimerPeriod
        self.jobEveryTicks = jobEveryTicks
        self.heartbeatPeriodSeconds = heartbeatPeriodSeconds
        self.connectOptions = connectOptions
        self.syncsInBackground = syncsInBackground
    }

    /// The app's bundle identifier.
    public static let bundleIdentifier = "com.example.headset"
    /// The restore identifier of its central manager.
    public static let centralRestoreIdentifier = "headset-central"

    /// An app without background modes: it sees the headset only while it is in front.
    public static func foregroundOnly(headsetMAC: BluetoothAddress? = nil)
        -> HeadsetAppConfiguration
    {
        HeadsetAppConfiguration(
            declaration: AppDeclaration(bundleIdentifier: bundleIdentifier).declaringFirmwareDocuments(),
            headsetMAC: headsetMAC)
    }

    /// An app with the `bluetooth-central` mode and state restoration: woken for the headset's
    /// messages, relaunched for them after the system ended it.
    public static func bluetoothCentral(headsetMAC: BluetoothAddress? = nil)
        -> HeadsetAppConfiguration
    {
        HeadsetAppConfiguration(
            declaration: AppDeclaration(
                bundleIdentifier: bundleIdentifier, backgroundModes: [.bluetoothCentral],
                restoreIdentifiers: [centralRestoreIdentifier]
            ).declaringFirmwareDocuments(),
            restoreIdentifier: centralRestoreIdentifier, headsetMAC: headsetMAC)
    }
}
