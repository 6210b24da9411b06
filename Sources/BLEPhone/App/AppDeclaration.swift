/// A background mode an app declares (Info.plist's `UIBackgroundModes`).
public enum BackgroundMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// `bluetooth-central`: woken for central-manager and peripheral events.
    case bluetoothCentral = "bluetooth-central"
    /// `bluetooth-peripheral`: woken for peripheral-manager events (reads, writes, subscriptions).
    case bluetoothPeripheral = "bluetooth-peripheral"
    case audio
    case location
    /// `fetch`: background app refresh (BGAppRefreshTask).
    case fetch
    /// `processing`: BGProcessingTask.
    case processing
    case voip
    /// `remote-notification`: silent pushes.
    case remoteNotification = "remote-notification"
}

/// What an app declares about itself, as Info.plist does: its identifier, background modes,
/// the restore identifiers of its Bluetooth managers and the identifiers of the tasks it may
/// schedule.
public struct AppDeclaration: Sendable, Hashable {
    /// The bundle identifier, which names the app in the phone and its trace.
    public var bundleIdentifier: String
    public var backgroundModes: Set<BackgroundMode>
    /// The restore identifiers the app's managers use (`CBCentralManagerOptionRestoreIdentifierKey`,
    /// `CBPeripheralManagerOptionRestoreIdentifierKey`); a manager made with another one is not
    /// restored.
    public var restoreIdentifiers: Set<String>
    /// `BGTaskSchedulerPermittedIdentifiers`.
    public var permittedTaskIdentifiers: Set<String>
    /// Paired through AccessorySetupKit (iOS 26's relaunch note 5).
    public var usesAccessorySetupKit: Bool
    /// `CFBundleDocumentTypes`: the documents the app opens ("Open in…", Documents/).
    public var documentTypes: [DocumentTypeDeclaration] = []
    /// `UTExportedTypeDeclarations`: the uniform types the app defines.
    public var exportedTypes: [ExportedTypeDeclaration] = []
    /// `LSSupportsOpeningDocumentsInPlace`.
    public var supportsOpeningDocumentsInPlace = false
    /// `UIFileSharingEnabled`: with the key above, the Documents folder shows in the Files view.
    public var fileSharingEnabled = false

    public init(
        bundleIdentifier: String, backgroundModes: Set<BackgroundMode> = [], restoreIdentifiers: Set<String> = [],
        permittedTaskIdentifiers: Set<String> = [], usesAccessorySetupKit: Bool = false
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.backgroundModes = backgroundModes
        self.restoreIdentifiers = restoreIdentifiers
        self.permittedTaskIdentifiers = permittedTaskIdentifiers
        self.usesAccessorySetupKit = usesAccessorySetupKit
    }
}

/// An installed app on one phone (its bundle identifier).
public struct AppIdentifier: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public let bundleIdentifier: String
    /// The text's hash, computed once: the phone and its Bluetooth service look apps up by
    /// identifier several times per event they hand over, and hashing the text every time
    /// was a noticeable share of a day of once-a-second notifications.
    private let textHash: Int

    public init(_ bundleIdentifier: String) {
        self.bundleIdentifier = bundleIdentifier
        textHash = bundleIdentifier.hashValue
    }

    public static func == (lhs: AppIdentifier, rhs: AppIdentifier) -> Bool {
        lhs.bundleIdentifier == rhs.bundleIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(textHash)
    }

    public static func < (lhs: AppIdentifier, rhs: AppIdentifier) -> Bool {
        lhs.bundleIdentifier < rhs.bundleIdentifier
    }

    public var description: String { bundleIdentifier }

    // Coded as before the hash was kept: `{"bundleIdentifier": …}`.
    private enum CodingKeys: String, CodingKey {
        case bundleIdentifier
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode(String.self, forKey: .bundleIdentifier))
    }
}
