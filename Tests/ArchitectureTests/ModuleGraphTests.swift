import Foundation
import Testing

/// The layering of docs/architecture.md, checked against what the compiler is told: the targets
/// and dependencies of Package.swift, and the imports of every source file.
@Suite("Module graph: one-way dependencies, as documented")
struct ModuleGraphTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("Package.swift declares exactly the graph docs/architecture.md draws")
    func packageMatchesDocument() throws {
        let declared = try PackageGraph.declared(in: Self.root)
        let documented = try PackageGraph.documented(in: Self.root)
        #expect(Set(declared.keys) == Set(documented.keys))
        for (target, dependencies) in documented {
            #expect(declared[target] == dependencies, "\(target)")
        }
    }

    @Test("The graph has no cycle")
    func acyclic() throws {
        let graph = try PackageGraph.declared(in: Self.root)
        for target in graph.keys {
            #expect(!PackageGraph.reachable(from: target, in: graph).contains(target), "\(target) reaches itself")
        }
    }

    @Test("Host and controller meet only through a transport; wire stands on nothing of ours, simulation on the lock alone")
    func layersThatMustNotMeet() throws {
        let graph = try PackageGraph.declared(in: Self.root)
        let host = PackageGraph.reachable(from: "BLEHost", in: graph)
        #expect(!host.contains("BLEController"))
        #expect(!host.contains("BLEVirtualHCI"))
        #expect(!host.contains("BLESimulation"))
        let transport = PackageGraph.reachable(from: "BLETransport", in: graph)
        #expect(!transport.contains("BLEController"))
        #expect(!transport.contains("BLESimulation"))
        let controller = PackageGraph.reachable(from: "BLEController", in: graph)
        #expect(!controller.contains("BLEHost"))
        #expect(!controller.contains("BLETransport"))
        #expect(graph["BLEWire"] == [])
        // BLELocking is the one exception below everything: the lock ThreadSanitizer can see,
        // which the simulation's executor needs as much as any module, and which itself stands on
        // nothing of ours, so nothing can reach the host or controller through it.
        #expect(graph["BLELocking"] == [])
        #expect(graph["BLESimulation"] == ["BLELocking"])
    }

    @Test("Every source file imports only modules its target depends on directly")
    func importsFollowDeclaredDependencies() throws {
        let graph = try PackageGraph.declared(in: Self.root)
        let ours = Set(graph.keys)
        for (target, dependencies) in graph {
            for (file, module) in try PackageGraph.imports(of: target, in: Self.root) where ours.contains(module) {
                #expect(dependencies.contains(module), "\(file) imports \(module), which \(target) does not declare")
            }
        }
    }
}

/// Reads the module graph from Package.swift and from docs/architecture.md.
enum PackageGraph {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// Library and executable targets (not test targets) and the targets of this package each
    /// depends on; products of other packages are left out.
    static func declared(in root: URL) throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        var rest = Substring(manifest)
        while let start = rest.range(of: #"\.(target|executableTarget)\("#, options: .regularExpression) {
            let body = try balancedParentheses(rest[start.upperBound...])
            guard let name = firstMatch(#"name:\s*"([^"]+)""#, in: body) else {
                throw Malformed(description: "a target without a name: \(body.prefix(80))")
            }
            var dependencies = Set<String>()
            if let list = body.range(of: "dependencies:") {
                // Products of other packages are `.product(name: …)` calls: drop them first.
                let plain = String(body[list.upperBound...])
                    .replacingOccurrences(of: #"\.product\([^)]*\)"#, with: "", options: .regularExpression)
                let strings = allMatches(#""([^"]+)""#, in: plain)
                dependencies = Set(strings)
            }
            targets[name] = dependencies
            rest = rest[start.upperBound...].dropFirst(body.count)
        }
        return targets
    }

    /// The graph docs/architecture.md states, one line per target in its `graph` block:
    /// `Target → A, B` (nothing after the arrow for none).
    static func documented(in root: URL) throws -> [String: Set<String>] {
        let document = try String(
            contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        guard let open = document.range(of: "```graph\n"),
            let close = document.range(of: "```", range: open.upperBound..<document.endIndex)
        else { throw Malformed(description: "docs/architecture.md has no ```graph block") }
        var graph: [String: Set<String>] = [:]
        for line in document[open.upperBound..<close.lowerBound].split(separator: "\n") {
            let sides = line.split(separator: "→", maxSplits: 1, omittingEmptySubsequences: false)
            guard sides.count == 2 else { throw Malformed(description: "not `Target → deps`: \(line)") }
            let name = sides[0].trimmingCharacters(in: .whitespaces)
            let dependencies = sides[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            graph[name] = Set(dependencies.filter { !$0.isEmpty })
        }
        return graph
    }

    static func reachable(from target: String, in graph: [String: Set<String>]) -> Set<String> {
        var seen = Set<String>()
        var stack = Array(graph[target] ?? [])
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            stack.append(contentsOf: graph[next] ?? [])
        }
        return seen
    }

    /// (file, module) for every `import` in the target's sources.
    static func imports(of target: String, in root: URL) throws -> [(String, String)] {
        let folder = root.appendingPathComponent("Sources/\(target)")
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            throw Malformed(description: "no folder Sources/\(target)")
        }
        var found: [(String, String)] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                // `import X`, `@testable import X`, `@_exported import struct X.Y`.
                guard let module = firstMatch(#"^(?:@\w+ )*import (?:(?:struct|class|enum|protocol|func|var|let|typealias) )?(\w+)"#, in: String(line)) else { continue }
                found.append((file.lastPathComponent, module))
            }
        }
        return found
    }

    private static func balancedParentheses(_ text: Substring) throws -> Substring {
        var depth = 1
        var inString = false
        for index in text.indices {
            switch text[index] {
            case "\"": inString.toggle()
            case "(" where !inString: depth += 1
            case ")" where !inString:
                depth -= 1
                if depth == 0 { return text[..<index] }
            default: break
            }
        }
        throw Malformed(description: "unbalanced parentheses in Package.swift")
    }

    private static func firstMatch(_ pattern: String, in text: some StringProtocol) -> String? {
        allMatches(pattern, in: text).first
    }

    private static func allMatches(_ pattern: String, in text: some StringProtocol) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let string = String(text)
        let range = NSRange(string.startIndex..., in: string)
        return expression.matches(in: string, range: range).compactMap { match in
            guard match.numberOfRanges > 1, let group = Range(match.range(at: 1), in: string) else { return nil }
            return String(string[group])
        }
    }
}
