#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Thin wrappers over the C library, as free functions: inside the transports `open` and `close`
// are also method names.

/// Microseconds since the Unix epoch, from the wall clock.
func wallClockMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

/// The text of the current `errno`.
func errnoDescription(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// Closes a descriptor this module opened (a free function: `close` is also a method name here).
func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// Reads up to `count` octets into `buffer`: the count read, 0 at the end, -1 with `errno` set.
func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// Opens a file or device; the descriptor, or -1 with `errno` set.
func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}

/// Writes all of `bytes`, retrying short writes and interruptions; the error's text on failure.
func writeFully(_ descriptor: Int32, _ bytes: [UInt8]) -> String? {
    var written = 0
    while written < bytes.count {
        let result = bytes.withUnsafeBytes { buffer in
            write(descriptor, buffer.baseAddress.map { $0 + written }, bytes.count - written)
        }
        if result < 0 {
            if errno == EINTR { continue }
            return errnoDescription()
        }
        if result == 0 { return "the file accepts no more octets" }
        written += result
    }
    return nil
}
