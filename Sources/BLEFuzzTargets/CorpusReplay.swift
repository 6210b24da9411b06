import Foundation

/// Runs a target on files: the seed corpus and the reproducers of fixed crashes (Fuzz/Corpus/
/// TARGET/), as the test suite and `BLEFuzz TARGET PATH…` in a normal build do.
package enum CorpusReplay {
    /// One input that broke a promise.
    package struct Failure: Error, CustomStringConvertible {
        package var file: String
        package var failure: FuzzFailure
        package var description: String { "\(file): \(failure)" }
    }

    /// The files at `path`: the file itself, or every regular file of the directory (sorted,
    /// hidden files left out).
    package static func files(at path: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        guard isDirectory.boolValue else { return [path] }
        return try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { !$0.hasPrefix(".") }
            .sorted()
            .map { (path as NSString).appendingPathComponent($0) }
    }

    /// Runs `target` on every file at `paths`; returns how many ran and the failures.
    package static func replay(_ target: FuzzTarget, paths: [String]) throws -> (count: Int, failures: [Failure]) {
        var count = 0
        var failures: [Failure] = []
        for path in paths {
            for file in try files(at: path) {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
                count += 1
                do {
                    try target.run(bytes)
                } catch {
                    failures.append(Failure(file: file, failure: error))
                }
            }
        }
        return (count, failures)
    }
}
