/// A uniform type identifier ("public.json", "com.swift-ble.firmware.raw"): what kind of data a
/// file holds, as iOS names it (Uniform Type Identifiers; `UTType`). Compared as text, lowercased
/// (Apple: identifiers are case-insensitive).
public struct UniformTypeIdentifier: Sendable, Hashable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let identifier: String

    public init(_ identifier: String) { self.identifier = identifier.lowercased() }
    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { identifier }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.identifier < rhs.identifier }

    public static let item: Self = "public.item"
    public static let data: Self = "public.data"
    public static let content: Self = "public.content"
    public static let text: Self = "public.text"
    public static let plainText: Self = "public.plain-text"
    public static let utf8PlainText: Self = "public.utf8-plain-text"
    public static let log: Self = "public.log"
    public static let json: Self = "public.json"
    public static let archive: Self = "public.archive"
    public static let zip: Self = "public.zip-archive"
    /// PKWARE's name for zip, which iOS also uses; conforms to `public.zip-archive`.
    public static let pkwareZip: Self = "com.pkware.zip-archive"
    public static let image: Self = "public.image"
    public static let png: Self = "public.png"
    public static let jpeg: Self = "public.jpeg"

    /// The type iOS makes up for an extension no declaration claims (a "dyn." type), which
    /// conforms to `public.data` only; "dyn.ext." + the extension here (Apple's encoding is
    /// opaque).
    public static func dynamic(filenameExtension: String) -> Self {
        Self("dyn.ext." + filenameExtension.lowercased())
    }

    public var isDynamic: Bool { identifier.hasPrefix("dyn.") }
}

/// `UTExportedTypeDeclarations`: a type an app defines — its identifier, the types it conforms
/// to (`UTTypeConformsTo`) and its filename extensions (`UTTypeTagSpecification`'s
/// `public.filename-extension`).
public struct ExportedTypeDeclaration: Sendable, Hashable {
    public var identifier: UniformTypeIdentifier
    public var conformsTo: [UniformTypeIdentifier]
    public var filenameExtensions: [String]
    /// `UTTypeDescription`.
    public var description: String

    public init(
        _ identifier: UniformTypeIdentifier, conformsTo: [UniformTypeIdentifier], filenameExtensions: [String] = [],
        description: String = ""
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions.map { $0.lowercased() }
        self.description = description
    }
}

/// The phone's type registry: a small tree of the system's types and the types the installed
/// apps export, with the filename-extension lookup and conformance.
///
/// The system tree (a subset of Apple's "System-declared uniform type identifiers"):
///
/// ```
/// public.item
/// ├─ public.data
/// │  ├─ public.text ─┬─ public.plain-text ─ public.utf8-plain-text
/// │  │               ├─ public.log
/// │  │               └─ public.json
/// │  ├─ public.image ─ public.png, public.jpeg
/// │  └─ public.archive ─ public.zip-archive ─ com.pkware.zip-archive
/// └─ public.content (public.text and public.image conform to it too)
/// ```
///
/// Rules: every type conforms to itself and to what its parents conform to; an extension maps to
/// a system type first, then to the first exporting app's type in bundle-identifier order (which
/// app wins a clash Apple does not document: an inference); an extension nobody claims, or a name
/// without one, gets a dynamic type that conforms to `public.data`. An exported type that reuses a
/// system identifier is ignored (the system's declaration stands).
public struct UniformTypeTree: Sendable, Hashable {
    /// Each known type's direct parents.
    public private(set) var parents: [UniformTypeIdentifier: [UniformTypeIdentifier]]
    /// Extension (lowercased) → type.
    public private(set) var extensions: [String: UniformTypeIdentifier]

    /// The system's types only.
    public static let system = UniformTypeTree()

    private init() {
        parents = [
            .item: [], .data: [.item], .content: [.item],
            .text: [.data, .content], .plainText: [.text], .utf8PlainText: [.plainText], .log: [.text],
            .json: [.text], .image: [.data, .content], .png: [.image], .jpeg: [.image],
            .archive: [.data], .zip: [.archive], .pkwareZip: [.zip],
        ]
        extensions = [
            "txt": .plainText, "text": .plainText, "log": .log, "json": .json, "png": .png, "jpg": .jpeg,
            "jpeg": .jpeg, "zip": .zip,
        ]
    }

    /// The system tree with the types `declarations` export, taken in order.
    public init(exporting declarations: [ExportedTypeDeclaration]) {
        self = .system
        for declaration in declarations where Self.system.parents[declaration.identifier] == nil {
            if parents[declaration.identifier] == nil {
                parents[declaration.identifier] = declaration.conformsTo
            }
            for filenameExtension in declaration.filenameExtensions where extensions[filenameExtension] == nil {
                extensions[filenameExtension] = declaration.identifier
            }
        }
    }

    /// Whether the tree knows `type` (dynamic types are known: they conform to `public.data`).
    public func knows(_ type: UniformTypeIdentifier) -> Bool {
        type.isDynamic || parents[type] != nil
    }

    /// The type of a file named `name`, from its extension (the text after the last dot).
    public func type(forFileNamed name: String) -> UniformTypeIdentifier {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return .data }
        let filenameExtension = String(name[name.index(after: dot)...]).lowercased()
        guard !filenameExtension.isEmpty else { return .data }
        return type(forFilenameExtension: filenameExtension)
    }

    /// `UTType(filenameExtension:)`.
    public func type(forFilenameExtension filenameExtension: String) -> UniformTypeIdentifier {
        extensions[filenameExtension.lowercased()] ?? .dynamic(filenameExtension: filenameExtension)
    }

    /// `UTType.conforms(to:)`: `type` is `other` or descends from it. Cycles in exported
    /// declarations end the walk (each type is visited once).
    public func conforms(_ type: UniformTypeIdentifier, to other: UniformTypeIdentifier) -> Bool {
        distance(from: type, to: other) != nil
    }

    /// How many steps up the tree from `type` to `other` (0: the same type), or nil when `type`
    /// does not conform to it. Breadth first, so the shortest path counts.
    public func distance(from type: UniformTypeIdentifier, to other: UniformTypeIdentifier) -> Int? {
        var level: [UniformTypeIdentifier] = [type]
        var seen: Set<UniformTypeIdentifier> = [type]
        var steps = 0
        while !level.isEmpty {
            if level.contains(other) { return steps }
            var nextLevel: [UniformTypeIdentifier] = []
            for node in level {
                let up = node.isDynamic ? [UniformTypeIdentifier.data] : parents[node] ?? []
                for parent in up where seen.insert(parent).inserted { nextLevel.append(parent) }
            }
            level = nextLevel
            steps += 1
        }
        return nil
    }
}
