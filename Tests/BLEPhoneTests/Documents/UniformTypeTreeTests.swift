import Testing

@testable import BLEPhone

/// The phone's uniform types: the system tree, extensions, dynamic types, exported types
/// (Uniform Type Identifiers; `UTType.conforms(to:)`, `UTType(filenameExtension:)`).
@Suite("Documents: uniform types")
struct UniformTypeTreeTests {
    let tree = UniformTypeTree.system

    @Test("Conformance follows the tree: plain text is text, data and an item; an image is not text")
    func conformance() {
        #expect(tree.conforms(.utf8PlainText, to: .plainText))
        #expect(tree.conforms(.plainText, to: .data))
        #expect(tree.conforms(.plainText, to: .content))
        #expect(tree.conforms(.json, to: .text))
        #expect(tree.conforms(.json, to: .item))
        #expect(tree.conforms(.pkwareZip, to: .zip))
        #expect(tree.conforms(.zip, to: .archive))
        #expect(tree.conforms(.png, to: .image))
        #expect(!tree.conforms(.png, to: .text))
        #expect(!tree.conforms(.data, to: .json))
        #expect(tree.conforms(.json, to: .json))
    }

    @Test("Distance: 0 for the type itself, the shortest path up, nil when it does not conform")
    func distance() {
        #expect(tree.distance(from: .json, to: .json) == 0)
        #expect(tree.distance(from: .json, to: .text) == 1)
        #expect(tree.distance(from: .json, to: .data) == 2)
        #expect(tree.distance(from: .text, to: .content) == 1)
        #expect(tree.distance(from: .png, to: .json) == nil)
    }

    @Test("Extensions: case-insensitive; the last dot counts; no extension and unknown ones are data")
    func extensions() {
        #expect(tree.type(forFileNamed: "notes.TXT") == .plainText)
        #expect(tree.type(forFileNamed: "a.tar.zip") == .zip)
        #expect(tree.type(forFileNamed: "config.json") == .json)
        #expect(tree.type(forFileNamed: "README") == .data)
        #expect(tree.type(forFileNamed: ".profile") == .data)
        #expect(tree.type(forFileNamed: "trailing.") == .data)
        let unknown = tree.type(forFileNamed: "dump.xyz")
        #expect(unknown == .dynamic(filenameExtension: "xyz"))
        #expect(unknown.isDynamic)
        #expect(tree.conforms(unknown, to: .data))
        #expect(!tree.conforms(unknown, to: .text))
        #expect(tree.knows(unknown))
        #expect(!tree.knows("com.example.never-declared"))
    }

    @Test("Exported types join the tree; system types and extensions win a clash; a cycle ends the walk")
    func exported() {
        let tree = UniformTypeTree(exporting: [
            ExportedTypeDeclaration("com.example.fw", conformsTo: [.data], filenameExtensions: ["fw", "json"]),
            ExportedTypeDeclaration("public.json", conformsTo: [.image]),
            ExportedTypeDeclaration("com.example.loop-a", conformsTo: ["com.example.loop-b"]),
            ExportedTypeDeclaration("com.example.loop-b", conformsTo: ["com.example.loop-a"]),
            ExportedTypeDeclaration("com.example.other-fw", conformsTo: [.text], filenameExtensions: ["FW"]),
        ])
        #expect(tree.type(forFileNamed: "image.fw") == "com.example.fw")
        #expect(tree.type(forFileNamed: "x.json") == .json)
        #expect(!tree.conforms(.json, to: .image))
        #expect(tree.conforms("com.example.fw", to: .item))
        #expect(!tree.conforms("com.example.loop-a", to: .data))
        #expect(tree.conforms("com.example.loop-a", to: "com.example.loop-b"))
        #expect(UniformTypeIdentifier("COM.Example.FW") == "com.example.fw")
    }
}

/// Which apps open a file, best first (LSHandlerRank: Owner, Default, Alternate; None never).
@Suite("Documents: handler ranking")
struct DocumentHandlerRankingTests {
    let tree = UniformTypeTree.system

    func rank(_ type: UniformTypeIdentifier, _ apps: [(String, [DocumentTypeDeclaration])]) -> [String] {
        DocumentHandlerRanking.handlers(for: type, among: apps.map { (AppIdentifier($0.0), $0.1) }, in: tree)
            .map(\.app.bundleIdentifier)
    }

    @Test("LSHandlerRank: Owner before Default before Alternate; None is never listed")
    func ranks() {
        let apps: [(String, [DocumentTypeDeclaration])] = [
            ("a.alternate", [DocumentTypeDeclaration(name: "JSON", contentTypes: [.json], handlerRank: .alternate)]),
            ("b.none", [DocumentTypeDeclaration(name: "JSON", contentTypes: [.json], handlerRank: .none)]),
            ("c.default", [DocumentTypeDeclaration(name: "JSON", contentTypes: [.json])]),
            ("d.owner", [DocumentTypeDeclaration(name: "JSON", contentTypes: [.json], handlerRank: .owner)]),
        ]
        #expect(rank(.json, apps) == ["d.owner", "c.default", "a.alternate"])
    }

    @Test("An app that declares the file's own type comes before an Owner of a parent type")
    func exactBeforeConforming() {
        let apps: [(String, [DocumentTypeDeclaration])] = [
            ("a.data-owner", [DocumentTypeDeclaration(name: "Any", contentTypes: [.data], handlerRank: .owner)]),
            ("b.text-default", [DocumentTypeDeclaration(name: "Text", contentTypes: [.text])]),
            (
                "c.json-alternate",
                [DocumentTypeDeclaration(name: "JSON", contentTypes: [.json], handlerRank: .alternate)]
            ),
            ("d.images", [DocumentTypeDeclaration(name: "Images", contentTypes: [.image], handlerRank: .owner)]),
        ]
        // Exact first; then by rank among the conforming (Owner of data before Default of text).
        #expect(rank(.json, apps) == ["c.json-alternate", "a.data-owner", "b.text-default"])
    }

    @Test("Each app once, with its best match; a None entry does not hide the app's other entries")
    func bestMatchPerApp() {
        let apps: [(String, [DocumentTypeDeclaration])] = [
            (
                "a.editor",
                [
                    DocumentTypeDeclaration(name: "Data", contentTypes: [.data], handlerRank: .alternate),
                    DocumentTypeDeclaration(name: "JSON", contentTypes: [.json], handlerRank: .none),
                    DocumentTypeDeclaration(name: "Text", contentTypes: [.text, .plainText], handlerRank: .owner),
                ]
            )
        ]
        let handlers = DocumentHandlerRanking.handlers(
            for: .json, among: apps.map { (AppIdentifier($0.0), $0.1) }, in: tree)
        #expect(handlers.count == 1)
        #expect(handlers.first?.documentType == "Text")
        #expect(handlers.first?.rank == .owner)
        #expect(handlers.first?.distance == 1)
        #expect(rank(.png, apps) == ["a.editor"])
        #expect(rank(.png, [("x", [DocumentTypeDeclaration(name: "T", contentTypes: [.text])])]).isEmpty)
    }
}
