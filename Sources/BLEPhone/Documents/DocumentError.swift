import BLEWire

/// Why a document could not be shared, opened or answered.
public enum DocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sharer named a type the phone does not know (`UIDocumentInteractionController.uti`).
    case unknownType(String)
    /// No installed app opens files of this type.
    case noHandler(file: String, type: UniformTypeIdentifier)
    /// The chosen app is not among those the share sheet listed (or not installed).
    case notAHandler(AppIdentifier)
    /// The file to share does not exist (a Files item removed meanwhile, a wrong path).
    case missingFile(String)
    /// The name is empty, ".", "..", holds a path separator or a control character, or is too
    /// long (255 UTF-8 bytes, the file system's limit).
    case invalidName(String)
    /// The file is larger than the phone accepts (`DocumentsRuntime.maximumFileSize`).
    case tooLarge(file: String, size: Int, limit: Int)
    /// The phone has no storage for apps (`Phone(storageRoot:)` was nil): nothing can be copied.
    case noStorage
    /// Writing or reading the file failed.
    case fileSystem(String)
    /// No such share sheet is open (already chosen from, or never shown).
    case noShareSheet
    /// No alert is waiting for the user (or none with that identifier).
    case noPrompt
    /// The alert has no button with that title.
    case unknownPromptAction(String)
    /// The alert's app is not in front (or the phone is locked): the user cannot see it.
    case promptNotVisible(AppIdentifier)

    public var description: String {
        switch self {
        case .unknownType(let type): "unknown type \(TerminalText.quoted(type))"
        case .noHandler(let file, let type): "no app opens \(TerminalText.quoted(file)) (\(type))"
        case .notAHandler(let app): "\(app) cannot open this file"
        case .missingFile(let path): "no file at \(TerminalText.quoted(path))"
        case .invalidName(let name): "invalid file name \(TerminalText.quoted(name))"
        case .tooLarge(let file, let size, let limit):
            "\(TerminalText.quoted(file)) is \(size) bytes, more than the \(limit) the phone accepts"
        case .noStorage: "the phone has no storage for apps"
        case .fileSystem(let why): "file system: \(TerminalText.escaped(why))"
        case .noShareSheet: "no share sheet is open"
        case .noPrompt: "no alert is waiting for an answer"
        case .unknownPromptAction(let title): "the alert has no button \(TerminalText.quoted(title))"
        case .promptNotVisible(let app): "the alert of \(app) is not on the screen"
        }
    }
}
