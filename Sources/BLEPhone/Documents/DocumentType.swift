/// `LSHandlerRank`: how an app ranks itself among the apps that open a type (Apple's
/// "CFBundleDocumentTypes" / "LSHandlerRank"): `Owner` (it creates files of the type), `Default`
/// (it opens them; the value when the key is missing), `Alternate` (a secondary viewer), `None`
/// (never chosen to open them).
public enum HandlerRank: String, Sendable, Hashable, CaseIterable, Comparable {
    case owner = "Owner"
    case `default` = "Default"
    case alternate = "Alternate"
    case none = "None"

    /// Owner first, None last.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.order < rhs.order }

    private var order: Int {
        switch self {
        case .owner: 0
        case .default: 1
        case .alternate: 2
        case .none: 3
        }
    }
}

/// One entry of `CFBundleDocumentTypes`: its name (`CFBundleTypeName`), its content types
/// (`LSItemContentTypes`) and the app's rank for them (`LSHandlerRank`).
public struct DocumentTypeDeclaration: Sendable, Hashable {
    public var name: String
    public var contentTypes: [UniformTypeIdentifier]
    public var handlerRank: HandlerRank

    public init(name: String, contentTypes: [UniformTypeIdentifier], handlerRank: HandlerRank = .default) {
        self.name = name
        self.contentTypes = contentTypes
        self.handlerRank = handlerRank
    }
}

/// An app that can open a shared file, as the share sheet lists it.
public struct DocumentHandler: Sendable, Hashable {
    public var app: AppIdentifier
    /// The document type that matched (`CFBundleTypeName`).
    public var documentType: String
    /// The content type it declared that the file's type conforms to.
    public var matchedType: UniformTypeIdentifier
    public var rank: HandlerRank
    /// Steps from the file's type up to `matchedType` (0: the declared type is the file's).
    public var distance: Int

    public var isExactMatch: Bool { distance == 0 }
}

/// Which apps can open a file of a type, best first — the share sheet's order ("Open in…").
///
/// The rule (Apple documents the ranks, "LSHandlerRank"; the order between them and the
/// preference for an exact type are Launch Services' behaviour as developers observe it — an
/// inference here):
/// 1. an app can open the file when one of its document types lists a content type the file's
///    type conforms to (`UniformTypeTree.conforms`) with a rank other than `None`;
/// 2. each app appears once, with its best match by the order of 3 and 4;
/// 3. apps whose declared type is the file's own come before those that declare a parent type
///    (a JSON viewer before an app that takes any `public.data`);
/// 4. then by rank, Owner > Default > Alternate; then the nearer type; then bundle identifier
///    (a stable order; iOS's within a rank is undocumented).
public enum DocumentHandlerRanking {
    public static func handlers(
        for type: UniformTypeIdentifier, among apps: [(AppIdentifier, [DocumentTypeDeclaration])],
        in tree: UniformTypeTree
    ) -> [DocumentHandler] {
        var best: [AppIdentifier: DocumentHandler] = [:]
        for (app, declarations) in apps {
            for declaration in declarations where declaration.handlerRank != .none {
                for contentType in declaration.contentTypes {
                    guard let distance = tree.distance(from: type, to: contentType) else { continue }
                    let candidate = DocumentHandler(
                        app: app, documentType: declaration.name, matchedType: contentType,
                        rank: declaration.handlerRank, distance: distance)
                    if let current = best[app], !precedes(candidate, current) { continue }
                    best[app] = candidate
                }
            }
        }
        return best.values.sorted(by: precedes)
    }

    /// Whether `a` comes before `b` in the share sheet.
    static func precedes(_ a: DocumentHandler, _ b: DocumentHandler) -> Bool {
        if a.isExactMatch != b.isExactMatch { return a.isExactMatch }
        if a.rank != b.rank { return a.rank < b.rank }
        if a.distance != b.distance { return a.distance < b.distance }
        return a.app < b.app
    }
}
