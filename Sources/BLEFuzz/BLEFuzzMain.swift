import BLEFuzzTargets
import Foundation

/// `BLEFuzz TARGET …`: the fuzz targets of swift-ble (Fuzz/README.md).
///
/// Built by `scripts/fuzz` with coverage instrumentation and `-DBLE_FUZZING`, it is a libFuzzer
/// binary: `BLEFuzz TARGET [libFuzzer options] [CORPUS…]`. Built normally (as `swift build`
/// does), it replays files through the same target: `BLEFuzz TARGET FILE-OR-DIRECTORY…`,
/// exit status 1 when an input breaks a promise. `BLEFuzz --list` names the targets.
@main
struct BLEFuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else { usage() }
        if arguments[1] == "--list" {
            for target in FuzzTarget.allCases { print("\(target.rawValue) \(target.maximumInputLength)") }
            return
        }
        guard let target = FuzzTarget(rawValue: arguments[1]) else {
            FileHandle.standardError.write(Data("BLEFuzz: no target named \(arguments[1])\n".utf8))
            usage()
        }
        #if BLE_FUZZING
        LibFuzzerDriver.run(target)
        #else
        replay(target, paths: Array(arguments.dropFirst(2)))
        #endif
    }

    private static func replay(_ target: FuzzTarget, paths: [String]) {
        do {
            let (count, failures) = try CorpusReplay.replay(target, paths: paths)
            for failure in failures { print("FAILED \(failure)") }
            print("\(target.rawValue): \(count) inputs, \(failures.count) failures")
            exit(failures.isEmpty ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("BLEFuzz: \(error)\n".utf8))
            exit(2)
        }
    }

    private static func usage() -> Never {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(
            Data("usage: BLEFuzz TARGET [FILE-OR-DIRECTORY…] | BLEFuzz --list\ntargets: \(names)\n".utf8))
        exit(2)
    }
}
