#if BLE_FUZZING
import BLEFuzzTargets
import BLELocking
import Foundation

/// libFuzzer's driver (compiler-rt's `libclang_rt.fuzzer_no_main`, linked by `scripts/fuzz`),
/// run from our own `main` so that the target's name is taken off the command line first.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

enum LibFuzzerDriver {
    /// The target under fuzzing: set once before the driver starts, read for every input.
    private static let target = Locked<FuzzTarget?>(nil)

    static func run(_ chosen: FuzzTarget) -> Never {
        target.withLock { $0 = chosen }
        // argv without the target's name: libFuzzer parses the rest.
        var arguments = CommandLine.arguments
        arguments.remove(at: 1)
        if !arguments.contains(where: { $0.hasPrefix("-max_len=") }) {
            arguments.insert("-max_len=\(chosen.maximumInputLength)", at: 1)
        }
        var cStrings: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var argc = CInt(arguments.count)
        let status = cStrings.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                let bytes = size == 0 ? [] : [UInt8](UnsafeBufferPointer(start: data, count: size))
                let chosen = LibFuzzerDriver.target.withLock { $0! }
                do {
                    try chosen.run(bytes)
                } catch {
                    // A broken promise is a crash: libFuzzer saves the input as a reproducer.
                    fatalError("\(chosen.rawValue): \(error)")
                }
                return 0
            }
        }
        exit(status)
    }
}
#endif
