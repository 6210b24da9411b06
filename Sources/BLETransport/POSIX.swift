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

/// Opens a file or device; the descriptor, or -1 with `errno` set.
func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}
