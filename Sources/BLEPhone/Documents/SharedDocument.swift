import BLEWire
import Foundation

/// A file shared on the phone: its name, its bytes, its type and where it comes from.
public struct SharedDocument: Sendable, Hashable {
    /// The file's name as it came (a mail attachment's, say): checked, never used as a path.
    public var name: String
    public var bytes: [UInt8]
    /// The type the sharer set (`UIDocumentInteractionController.uti`), or nil for the type of
    /// the name's extension.
    public var type: UniformTypeIdentifier?
    /// The app that shares it (`UIApplication.OpenURLOptionsKey.sourceApplication`).
    public var sourceApplication: String
    /// The file in another app's Documents folder when shared from the Files view (it may then
    /// be opened in place); nil for a file that exists only in the sharer (always copied).
    public var filesPath: String?

    public init(
        name: String, bytes: [UInt8], type: UniformTypeIdentifier? = nil,
        sourceApplication: String = SharedDocument.mail, filesPath: String? = nil
    ) {
        self.name = name
        self.bytes = bytes
        self.type = type
        self.sourceApplication = sourceApplication
        self.filesPath = filesPath
    }

    /// Mail, the usual source of a shared firmware file.
    public static let mail = "com.apple.mobilemail"
    /// The Files app.
    public static let files = "com.apple.DocumentsApp"

    /// The checks every name from outside passes before it names a file: not empty, not "." or
    /// "..", no "/" (it would leave the folder), no control or bidirectional character
    /// (`TerminalText.isUnsafe`: it would reach a terminal, or hide the real extension), at
    /// most 255 UTF-8 bytes (the file-name limit of APFS and ext4). Invalid names are refused
    /// rather than rewritten: the user sees the file they sent or an error, never another name.
    public static func validate(name: String) throws(DocumentError) {
        guard !name.isEmpty, name != ".", name != "..", name.utf8.count <= 255, !name.contains("/"),
            TerminalText.isSafe(name)
        else { throw .invalidName(name) }
    }
}

/// The share sheet ("Open in…"): the file, its type and the apps that can open it, best first
/// (`DocumentHandlerRanking`). Choose with `Phone.openIn(_:from:)`.
public struct ShareSheet: Sendable, Hashable {
    /// Numbers the sheets of one phone; a sheet is chosen from once.
    public var id: Int
    public var document: SharedDocument
    public var type: UniformTypeIdentifier
    public var handlers: [DocumentHandler]

    public var apps: [AppIdentifier] { handlers.map(\.app) }
}

/// `UIApplication.OpenURLOptionsKey` as the phone fills them for a shared document.
public struct OpenURLOptions: Sendable, Hashable {
    /// `.sourceApplication`: the bundle identifier of the app that shared the file.
    public var sourceApplication: String?
    /// `.openInPlace`: the URL is the original file (not a copy in Documents/Inbox); the app
    /// must coordinate its access to it.
    public var openInPlace: Bool
    /// `.annotation`: what the sharer attached (`UIDocumentInteractionController.annotation`).
    public var annotation: String?

    public init(sourceApplication: String? = nil, openInPlace: Bool = false, annotation: String? = nil) {
        self.sourceApplication = sourceApplication
        self.openInPlace = openInPlace
        self.annotation = annotation
    }
}

/// `UIOpenURLContext` (iOS 13+ scenes): the URL and its options.
public struct OpenURLContext: Sendable, Hashable {
    public var url: URL
    public var options: OpenURLOptions

    public init(url: URL, options: OpenURLOptions) {
        self.url = url
        self.options = options
    }
}

/// Which delegate method hands a document to the app — it depends on the iOS version:
/// - before iOS 9: `application(_:openURL:sourceApplication:annotation:)` (deprecated in iOS 9);
/// - iOS 9 to 12, and apps without scenes: `application(_:open:options:)`;
/// - iOS 13+ with scenes: `scene(_:openURLContexts:)` for a running app; at a launch the URL is in
///   the scene's connection options (`UIScene.ConnectionOptions.urlContexts`, here
///   `LaunchOptions.url`) and the method is not called.
public enum OpenURLSignature: String, Sendable, Hashable, CaseIterable {
    case openURLSourceApplicationAnnotation = "application(_:openURL:sourceApplication:annotation:)"
    case openURLOptions = "application(_:open:options:)"
    case sceneOpenURLContexts = "scene(_:openURLContexts:)"
    /// A scene app launched for the URL: `UIScene.ConnectionOptions.urlContexts`.
    case sceneConnectionOptions = "UIScene.ConnectionOptions.urlContexts"

    /// The method a profile calls (the profile's scenes follow its version: iOS 13+).
    public static func of(_ profile: PhoneProfile) -> Self {
        if profile.hasScenes { return .sceneOpenURLContexts }
        return profile.majorVersion < 9 ? .openURLSourceApplicationAnnotation : .openURLOptions
    }
}
